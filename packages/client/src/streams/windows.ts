/**
 * Window shapes (docs/streams-sdk.md) as pure functions: option validation with the upstream error texts, the
 * operator tag, the config_hash descriptor, which windows a timestamp falls into, the time of an event, and
 * the watermark. No I/O: the runner feeds these with popped messages and loaded state.
 */
import type { CronEvery, CronOptions, EventTimeFn, SessionOptions, SlidingOptions, TumblingOptions, WindowCommonOptions } from './types.js';

const SECOND = 1000;
const CRON_MS: Record<CronEvery, number> = { second: SECOND, minute: 60 * SECOND, hour: 3600 * SECOND, day: 86_400 * SECOND, week: 7 * 86_400 * SECOND };
/** 1970-01-01 was a Thursday; weeks are shifted by four days so they start on Monday 00:00 UTC. */
const WEEK_SHIFT_MS = 4 * 86_400 * SECOND;
/** Unit separator between the parts of a state key. */
export const KEY_SEPARATOR = '\u001f';
/** State key of the shard's watermark. */
export const WATERMARK_KEY = '__wm__';

/** One window a timestamp falls into. */
export interface WindowSlot {
  windowStart: number;
  windowEnd: number;
}

/** A validated window operator. */
export interface WindowSpec {
  kind: 'tumbling' | 'sliding' | 'session' | 'cron';
  /** `tumb:<s>`, `slide:<size>:<slide>`, `sess:<gap>`, `cron:<every>`. */
  tag: string;
  graceMs: number;
  idleFlushMs: number;
  eventTime: EventTimeFn<unknown> | undefined;
  allowedLatenessMs: number;
  onLate: 'drop' | 'include';
  /** Session gap, ms (sessions only). */
  gapMs: number;
  /** The windows `ts` falls into (not used by sessions). */
  assign(ts: number): WindowSlot[];
  /** The config_hash descriptor, keys in upstream order. */
  descriptor: Record<string, unknown>;
}

function positive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function onLatePolicy(onLate: unknown): 'drop' | 'include' {
  if (onLate === undefined || onLate === null || onLate === 'drop') return 'drop';
  if (onLate === 'include') return 'include';
  throw new Error(`onLate must be 'drop' or 'include' (got ${JSON.stringify(onLate)})`);
}

function common<T>(kind: WindowSpec['kind'], options: WindowCommonOptions<T>, defaultFlushMs: number) {
  const gracePeriod = options.gracePeriod ?? 0;
  const allowedLateness = options.allowedLateness ?? 0;
  const idleFlushMs = Math.max(0, Math.floor(options.idleFlushMs ?? defaultFlushMs));
  const eventTime = typeof options.eventTime === 'function' ? (options.eventTime as EventTimeFn<unknown>) : undefined;
  const onLate = onLatePolicy(options.onLate);
  return {
    fields: {
      graceMs: Math.max(0, Math.floor(gracePeriod * SECOND)),
      idleFlushMs,
      eventTime,
      allowedLatenessMs: Math.max(0, Math.floor(allowedLateness * SECOND)),
      onLate,
    },
    // gracePeriod and allowedLateness as passed, idleFlushMs normalised (docs/streams-sdk.md).
    tail: { gracePeriod, idleFlushMs, eventTime: eventTime !== undefined, allowedLateness, onLate },
    kind,
  };
}

/** `windowTumbling({seconds})`: epoch-aligned `[floor(t/size)·size, +size)`. */
export function tumblingWindow<T>(options: TumblingOptions<T>): WindowSpec {
  if (!positive(options?.seconds)) throw new Error('windowTumbling requires { seconds: <positive number> }');
  const sizeMs = options.seconds * SECOND;
  const { fields, tail } = common('tumbling', options, 5000);
  return {
    kind: 'tumbling',
    tag: `tumb:${options.seconds}`,
    gapMs: 0,
    ...fields,
    assign: (ts) => {
      const windowStart = Math.floor(ts / sizeMs) * sizeMs;
      return [{ windowStart, windowEnd: windowStart + sizeMs }];
    },
    descriptor: { kind: 'window-tumbling', seconds: options.seconds, ...tail },
  };
}

/** `windowSliding({size, slide})`: every `[s, s+size)` with `s` on the slide grid that contains `t`. */
export function slidingWindow<T>(options: SlidingOptions<T>): WindowSpec {
  if (!positive(options?.size)) throw new Error('windowSliding requires { size: <positive number> }');
  if (!positive(options.slide)) throw new Error('windowSliding requires { slide: <positive number> }');
  if (options.size % options.slide !== 0) {
    throw new Error(`windowSliding: size (${options.size}) must be an integer multiple of slide (${options.slide}) to keep the per-event window count finite`);
  }
  const sizeMs = options.size * SECOND;
  const slideMs = options.slide * SECOND;
  const perEvent = options.size / options.slide;
  const { fields, tail } = common('sliding', options, 5000);
  return {
    kind: 'sliding',
    tag: `slide:${options.size}:${options.slide}`,
    gapMs: 0,
    ...fields,
    assign: (ts) => {
      const latest = Math.floor(ts / slideMs) * slideMs;
      const slots: WindowSlot[] = [];
      // Oldest first, so state rows and emits come out in time order.
      for (let i = perEvent - 1; i >= 0; i--) {
        const windowStart = latest - i * slideMs;
        if (ts >= windowStart && ts < windowStart + sizeMs) slots.push({ windowStart, windowEnd: windowStart + sizeMs });
      }
      return slots;
    },
    descriptor: { kind: 'window-sliding', size: options.size, slide: options.slide, ...tail },
  };
}

/** `windowCron({every})`: UTC calendar boundaries; a week starts on Monday 00:00 UTC. */
export function cronWindow<T>(options: CronOptions<T>): WindowSpec {
  if (typeof options?.every !== 'string') throw new Error("windowCron requires { every: 'second'|'minute'|'hour'|'day'|'week' }");
  const every = options.every;
  if (!Object.hasOwn(CRON_MS, every)) throw new Error(`windowCron: every must be one of second|minute|hour|day|week (got ${JSON.stringify(every)})`);
  const sizeMs = CRON_MS[every];
  const shift = every === 'week' ? WEEK_SHIFT_MS : 0;
  const { fields, tail } = common('cron', options, 30_000);
  return {
    kind: 'cron',
    tag: `cron:${every}`,
    gapMs: 0,
    ...fields,
    assign: (ts) => {
      const windowStart = Math.floor((ts - shift) / sizeMs) * sizeMs + shift;
      return [{ windowStart, windowEnd: windowStart + sizeMs }];
    },
    descriptor: { kind: 'window-cron', every, ...tail },
  };
}

/** `windowSession({gap})`: per-key activity windows (the merging is in session.ts). */
export function sessionWindow<T>(options: SessionOptions<T>): WindowSpec {
  if (!positive(options?.gap)) throw new Error('windowSession requires { gap: <positive number> }');
  const { fields, tail } = common('session', options, 1000);
  return {
    kind: 'session',
    tag: `sess:${options.gap}`,
    gapMs: options.gap * SECOND,
    ...fields,
    assign: () => [],
    descriptor: { kind: 'window-session', gap: options.gap, ...tail },
  };
}

/**
 * The time of an event, epoch ms: the extractor's result (number, Date or ISO string) in event-time mode,
 * else the message's `createdAt`. `null` when there is none; a throwing extractor is rethrown with context.
 */
export function eventTimeOf(message: { createdAt?: string }, extractor: EventTimeFn<unknown> | undefined): number | null {
  if (extractor) {
    let raw: unknown;
    try {
      raw = extractor(message as never);
    } catch (error) {
      throw new Error(`eventTime extractor threw: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? null : raw.getTime();
    if (typeof raw === 'number') return Number.isFinite(raw) ? raw : null;
    if (typeof raw === 'string') {
      const t = Date.parse(raw);
      return Number.isNaN(t) ? null : t;
    }
    return null;
  }
  if (typeof message.createdAt !== 'string') return null;
  const t = Date.parse(message.createdAt);
  return Number.isNaN(t) ? null : t;
}

/** The watermark after a batch: `max(previous, maxEventTime − lateness)`; it never moves back. */
export function advanceWatermark(previous: number | undefined, maxEventTime: number | undefined, allowedLatenessMs: number): number | undefined {
  const candidate = maxEventTime === undefined ? undefined : maxEventTime - allowedLatenessMs;
  if (previous === undefined) return candidate;
  if (candidate === undefined) return previous;
  return Math.max(previous, candidate);
}

/** True when an event is late: below the watermark as it was before the batch. */
export function isLate(eventTime: number, watermarkBefore: number | undefined): boolean {
  return watermarkBefore !== undefined && eventTime < watermarkBefore;
}

/** True when a window (or session) ending at `windowEnd` is closed at `clock`: `windowEnd + grace ≤ clock`. */
export function isClosed(windowEnd: number, graceMs: number, clock: number | undefined): boolean {
  return clock !== undefined && windowEnd + graceMs <= clock;
}

/** State key of a window row: `<tag>␟<windowKey>␟<userKey>`. */
export function windowStateKey(tag: string, windowStart: number, userKey: string): string {
  return `${tag}${KEY_SEPARATOR}${new Date(windowStart).toISOString()}${KEY_SEPARATOR}${userKey}`;
}

/** The parts of a window state key; null for keys of another shape. */
export function parseWindowStateKey(key: string): { tag: string; windowKey: string; userKey: string } | null {
  const first = key.indexOf(KEY_SEPARATOR);
  if (first === -1) return null;
  const second = key.indexOf(KEY_SEPARATOR, first + 1);
  if (second === -1) return null;
  return { tag: key.slice(0, first), windowKey: key.slice(first + 1, second), userKey: key.slice(second + 1) };
}

/** State key of a key's open session: `sess:<gap>␟open␟<userKey>`. */
export function sessionStateKey(tag: string, userKey: string): string {
  return `${tag}${KEY_SEPARATOR}open${KEY_SEPARATOR}${userKey}`;
}
