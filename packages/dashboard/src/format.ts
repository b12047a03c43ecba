/** Number, rate, duration and time formats of docs/dashboard.md (shared conventions). */
import { prefs } from './prefs.js';

/** `999,999` then `1.2M` / `1.2B`. */
export function fmtCount(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${(value / 1e9).toFixed(1)}B`;
  if (abs >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  return Math.round(value).toLocaleString('en-US');
}

/** Rates with 2/1/0 decimals below 10/100/1000, then `1.2k`. */
export function fmtRate(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  if (abs < 10) return value.toFixed(2);
  if (abs < 100) return value.toFixed(1);
  if (abs < 1000) return value.toFixed(0);
  if (abs < 1e6) return `${(value / 1e3).toFixed(1)}k`;
  return `${(value / 1e6).toFixed(1)}M`;
}

/** Seconds as `45s`, `3m 20s`, `2h 5m`, `1d 4h`. */
export function fmtDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '–';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

/** Milliseconds as `12 ms` or a duration above a second. */
export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  return ms < 1000 ? `${ms.toFixed(ms < 10 ? 1 : 0)} ms` : fmtDuration(ms / 1000);
}

/**
 * A chart's axis label: short enough for the axis (`950 ms`, `1.5 s`, `12k /s`, `3.2M`), with the chart's
 * unit; latencies in milliseconds become seconds from 1 000 ms on.
 */
export function fmtAxis(value: number, unit = ''): string {
  const trim = (n: number): string => String(Number(n.toFixed(Math.abs(n) < 10 ? 1 : 0)));
  if (unit.trim() === 'ms' && Math.abs(value) >= 1000) return `${trim(value / 1000)} s`;
  const abs = Math.abs(value);
  const short = abs >= 1e9 ? `${trim(value / 1e9)}B` : abs >= 1e6 ? `${trim(value / 1e6)}M` : abs >= 1e3 ? `${trim(value / 1e3)}k` : abs > 0 && abs < 1 ? String(Number(value.toFixed(2))) : trim(value);
  return `${short}${unit}`;
}

/** Bytes as `12.3 MB`. */
export function fmtBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '–';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

/** A 0..1 ratio as `98.2%`. */
export function fmtPercent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '–';
  return `${(ratio * 100).toFixed(1)}%`;
}

/** A timestamp as `YYYY-MM-DD HH:MM:SS`, local or (by preference) UTC with a `Z`. */
export function fmtTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '–';
  if (prefs.get().utc) return `${d.toISOString().slice(0, 19).replace('T', ' ')}Z`;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** The time of day of a timestamp, `HH:MM` (local or, by preference, UTC with a `Z`). */
export function fmtClock(iso: string): string {
  const full = fmtTime(iso);
  return full === '–' ? full : `${full.slice(11, 16)}${full.endsWith('Z') ? 'Z' : ''}`;
}

/** Age of a timestamp: `3m 20s ago`. */
export function fmtAgo(iso: string | null | undefined, now = Date.now()): string {
  if (iso === null || iso === undefined) return '–';
  const t = new Date(iso).getTime();
  return Number.isNaN(t) ? '–' : `${fmtDuration((now - t) / 1000)} ago`;
}

/** Severity of a value against warn/bad thresholds (higher is worse). */
export function severity(value: number | null | undefined, warn: number, bad: number): 'ok' | 'warn' | 'bad' {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'ok';
  return value >= bad ? 'bad' : value >= warn ? 'warn' : 'ok';
}

/** A count with its sign: `+12`, `-3`, `0`. */
export function signed(n: number): string {
  return `${n > 0 ? '+' : ''}${fmtCount(n)}`;
}
