/**
 * Time-series hygiene (docs/dashboard.md): null is a gap, never 0; the newest bucket is dropped while still open
 * (start + bucket width > now); "Now" is the latest finite point.
 */

/** One series aligned on a shared x axis (seconds since the epoch). */
export interface Series {
  label: string;
  values: (number | null)[];
}

/** Points of several series on one x axis. */
export interface Frame {
  x: number[];
  series: Series[];
}

/** Range presets: label and width in ms. */
export const RANGES: Record<string, number> = { '15m': 15 * 60_000, '1h': 3_600_000, '6h': 6 * 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 };

/** Most empty buckets filled between two reported ones (a 7-day range of 1-minute buckets is 10 080). */
const MAX_FILLED = 20_000;

/** `from`/`to` ISO strings for a preset ending now. */
export function rangeParams(range: string, now = Date.now()): { from: string; to: string } {
  const width = RANGES[range] ?? RANGES['1h']!;
  return { from: new Date(now - width).toISOString(), to: new Date(now).toISOString() };
}

/**
 * Builds a frame from rows keyed by timestamp: `pick` extracts each series' value from a row (null: a gap).
 * Rows with the same timestamp are summed (several queues or replicas per bucket).
 */
export function frameFrom<R extends { timestamp: string }>(rows: R[], bucketMs: number, labels: string[], pick: (row: R) => (number | null)[], now = Date.now()): Frame {
  const byTime = new Map<number, (number | null)[]>();
  for (const row of rows) {
    const t = new Date(row.timestamp).getTime();
    if (!Number.isFinite(t) || t + bucketMs > now) continue; // the open bucket
    const values = pick(row);
    const acc = byTime.get(t);
    if (acc === undefined) byTime.set(t, values.map((v) => (v === null || !Number.isFinite(v) ? null : v)));
    else values.forEach((v, i) => {
      if (v !== null && Number.isFinite(v)) acc[i] = (acc[i] ?? 0) + v;
    });
  }
  const present = [...byTime.keys()].sort((a, b) => a - b);
  // A bucket between two reported ones that has no row is a gap, not a line drawn across it.
  const times: number[] = [];
  for (const t of present) {
    const prev = times[times.length - 1];
    if (prev !== undefined && bucketMs > 0 && (t - prev) / bucketMs <= MAX_FILLED) {
      for (let g = prev + bucketMs; g < t; g += bucketMs) times.push(g);
    }
    times.push(t);
  }
  return {
    x: times.map((t) => t / 1000),
    series: labels.map((label, i) => ({ label, values: times.map((t) => byTime.get(t)?.[i] ?? null) })),
  };
}

/** The latest finite value of a series, or null. */
export function latest(values: (number | null)[]): number | null {
  for (let i = values.length - 1; i >= 0; i--) {
    const v = values[i];
    if (v !== null && v !== undefined && Number.isFinite(v)) return v;
  }
  return null;
}

/** Sum of the finite values. */
export function sum(values: (number | null)[]): number {
  let total = 0;
  for (const v of values) if (v !== null && Number.isFinite(v)) total += v;
  return total;
}

/** Maximum of the finite values, or null. */
export function max(values: (number | null)[]): number | null {
  let best: number | null = null;
  for (const v of values) if (v !== null && Number.isFinite(v) && (best === null || v > best)) best = v;
  return best;
}

/** Average of the finite values, or null. */
export function avg(values: (number | null)[]): number | null {
  let total = 0;
  let n = 0;
  for (const v of values) if (v !== null && Number.isFinite(v)) {
    total += v;
    n++;
  }
  return n === 0 ? null : total / n;
}
