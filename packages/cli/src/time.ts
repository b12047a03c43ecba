/**
 * Time expressions (docs/cli.md): `now`, `beginning`/`start`/`earliest`, `<dur> ago`, a bare duration (= ago), Go
 * durations plus `Nd`/`Nw`, unix seconds, RFC 3339 and three UTC date forms. Sent to the broker as RFC 3339 UTC,
 * whole seconds.
 */
import { userError } from './errors.js';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Milliseconds of a Go-syntax duration (`90s`, `2h30m`, `1.5h`) with `d` and `w`; undefined when not one. */
export function durationMillis(text: string): number | undefined {
  const s = text.trim();
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d+)?|\.\d+)(ns|us|µs|ms|s|m|h|d|w)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched = re.lastIndex;
  }
  return matched === s.length && s.length > 0 ? total : undefined;
}

/** Parses a duration flag: a Go duration, or a bare integer in `bareUnit`; exit 1 otherwise. */
export function parseDuration(text: string, flag: string, bareUnit: 'ms' | 's' = 'ms'): number {
  if (/^\d+$/.test(text.trim())) return Number(text) * (bareUnit === 's' ? 1000 : 1);
  const ms = durationMillis(text);
  if (ms === undefined) throw userError(`invalid duration for ${flag}: "${text}" (examples: 500ms, 30s, 5m, 2h30m, 1d)`);
  return ms;
}

/** Humanises seconds as `1m30s`, `2h5m`, `3d4h` (table cells). */
export function humanSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return String(seconds);
  let s = Math.round(Math.abs(seconds));
  const sign = seconds < 0 ? '-' : '';
  if (s < 60) return `${sign}${s}s`;
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (s >= size) {
      parts.push(`${Math.floor(s / size)}${unit}`);
      s %= size;
    }
    if (parts.length === 2) break;
  }
  return sign + parts.join('');
}

/** Relative form of a timestamp: `5m ago`, `in 30s`, `just now`. */
export function relativeTime(date: Date, now = Date.now()): string {
  const delta = (now - date.getTime()) / 1000;
  if (Math.abs(delta) < 1) return 'just now';
  return delta > 0 ? `${humanSeconds(delta)} ago` : `in ${humanSeconds(-delta)}`;
}

/** Parses a time expression into an instant; `beginning` is the unix epoch. Exit 1 on anything else. */
export function parseTime(expr: string, flag = 'time', now = new Date()): Date {
  const s = expr.trim().toLowerCase();
  if (s === 'now') return now;
  if (s === 'beginning' || s === 'start' || s === 'earliest') return new Date(0);
  const ago = s.endsWith(' ago') ? s.slice(0, -4).trim() : s;
  const ms = durationMillis(ago);
  if (ms !== undefined) return new Date(now.getTime() - ms);
  if (/^\d+(\.\d+)?$/.test(s) && Number(s) > 1e9) return new Date(Number(s) * 1000);
  const t = expr.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return checked(new Date(`${t}T00:00:00Z`), expr, flag);
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(t)) return checked(new Date(`${t.replace(' ', 'T')}Z`), expr, flag);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(t)) return checked(new Date(t), expr, flag);
  throw userError(`invalid time for ${flag}: "${expr}" (examples: now, beginning, 15m ago, 2h, 1d, 1767225600, 2026-01-01, 2026-01-01T12:00:00Z)`);
}

function checked(date: Date, expr: string, flag: string): Date {
  if (Number.isNaN(date.getTime())) throw userError(`invalid time for ${flag}: "${expr}"`);
  return date;
}

/** RFC 3339 UTC: `2026-01-01T12:00:00Z`, with milliseconds when there are any (`...:00.250Z`). */
export function rfc3339(date: Date): string {
  // Milliseconds stay when there are any: `--to now` truncated to the second would leave out what happened in
  // the current second (a DLQ entry written just before the command, say).
  return date.toISOString().replace(/\.000Z$/, 'Z');
}

/**
 * A timestamp as every command prints it (docs/cli.md "Output"): ISO-8601 UTC with milliseconds, `…T12:00:00.123Z`.
 * The pop answer's microseconds are cut to milliseconds; anything unparseable is left as it came.
 */
export function millisIso(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** A time flag as sent to the broker, or undefined when absent. */
export function timeParam(expr: string | undefined, flag: string): string | undefined {
  return expr === undefined ? undefined : rfc3339(parseTime(expr, flag));
}

/** The seek body of a target (docs/cli.md): end -> `{toEnd:true}`, beginning -> epoch, else the timestamp. */
export function seekTarget(expr: string, flag = '--to'): { toEnd: true } | { timestamp: string } {
  const s = expr.trim().toLowerCase();
  if (s === 'now' || s === 'end' || s === 'latest') return { toEnd: true };
  if (s === 'beginning' || s === 'earliest' || s === 'start') return { timestamp: '1970-01-01T00:00:00Z' };
  return { timestamp: rfc3339(parseTime(expr, flag)) };
}

/** How a seek target is echoed in one-liners (`end` or the timestamp). */
export function seekLabel(target: { toEnd: true } | { timestamp: string }): string {
  return 'toEnd' in target ? 'end' : target.timestamp;
}
