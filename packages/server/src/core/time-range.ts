/**
 * Time ranges and buckets of the status and analytics routes (docs/api.md 7.10).
 *
 * `from`/`to` are ISO-8601 (docs/api.md 1.8); a missing or unparsable value takes its default (`to`: now; `from`:
 * `to` minus the route's default span). Bucket size by the length of the range: <= 2 h -> 1 min, <= 24 h ->
 * 5 min, <= 7 d -> 60 min, longer -> 1440 min (or fixed by `interval` on `status/analytics`). Buckets are
 * aligned on the Unix epoch, so a day bucket starts at 00:00 UTC. A dense series never exceeds MAX_POINTS
 * buckets: a longer request keeps its `to` and has its `from` moved forward (the reply echoes the range used).
 */
import { parseTimestamp } from './timestamps.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** The most buckets one series may have (a week of minutes). */
export const MAX_POINTS = 10_080;

/** One hour: the default span of most routes. */
export const DEFAULT_SPAN_MS = HOUR_MS;

/** A range with its bucket size; `start` is the start of the bucket that holds `from`. */
export interface TimeRange {
  from: Date;
  to: Date;
  bucketMinutes: number;
  start: Date;
}

/** Bucket size (minutes) for a range of `spanMs`. */
export function bucketMinutesFor(spanMs: number): number {
  if (spanMs <= 2 * HOUR_MS) return 1;
  if (spanMs <= 24 * HOUR_MS) return 5;
  if (spanMs <= 7 * 24 * HOUR_MS) return 60;
  return 1440;
}

/** The `interval` of `status/analytics`: `minute`, `hour` (default; also for unknown values) or `day`. */
export function analyticsInterval(raw: string | null): { interval: 'minute' | 'hour' | 'day'; bucketMinutes: number } {
  if (raw === 'minute') return { interval: 'minute', bucketMinutes: 1 };
  if (raw === 'day') return { interval: 'day', bucketMinutes: 1440 };
  return { interval: 'hour', bucketMinutes: 60 };
}

function instant(raw: string | null): Date | null {
  if (raw === null) return null;
  const normalised = parseTimestamp(raw);
  return normalised === null ? null : new Date(normalised);
}

/**
 * The range of a request. `bucketMinutes` fixes the bucket size (otherwise it follows the span). A range
 * whose `from` is after its `to` is kept as given: its series is empty.
 */
export function timeRange(
  query: { from: string | null; to: string | null },
  options: { defaultSpanMs: number; bucketMinutes?: number; now?: number },
): TimeRange {
  const to = instant(query.to) ?? new Date(options.now ?? Date.now());
  let from = instant(query.from) ?? new Date(to.getTime() - options.defaultSpanMs);
  const bucketMinutes = options.bucketMinutes ?? bucketMinutesFor(to.getTime() - from.getTime());
  const bucketMs = bucketMinutes * MINUTE_MS;
  const earliest = alignDown(to.getTime(), bucketMs) - (MAX_POINTS - 1) * bucketMs;
  if (from.getTime() < earliest) from = new Date(earliest);
  return { from, to, bucketMinutes, start: new Date(alignDown(from.getTime(), bucketMs)) };
}

/** Number of buckets in the range (0 when `from` is after `to`). */
export function bucketCount(range: TimeRange): number {
  if (range.start.getTime() > range.to.getTime()) return 0;
  return Math.floor((range.to.getTime() - range.start.getTime()) / (range.bucketMinutes * MINUTE_MS)) + 1;
}

/** `{from, to}` as the replies echo them (milliseconds ISO-8601). */
export function wireRange(range: TimeRange): { from: string; to: string } {
  return { from: range.from.toISOString(), to: range.to.toISOString() };
}

function alignDown(ms: number, bucketMs: number): number {
  return Math.floor(ms / bucketMs) * bucketMs;
}
