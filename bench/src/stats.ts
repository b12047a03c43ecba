/**
 * Small numeric helpers for benchmark figures: a growable latency sample store with nearest-rank
 * percentiles, and the median used to summarise repeated runs.
 *
 * Design: samples live in a Float64Array that doubles when full and is sorted lazily (typed-array sort is
 * numeric and fast, so a million samples sort in well under a second). This keeps every sample, so the
 * percentiles are exact, with no dependency and no histogram bucketing error.
 */

/** An append-only set of measurements (milliseconds, usually) with exact percentiles. */
export class Samples {
  private data = new Float64Array(4096);
  private size = 0;
  private sorted = true;

  /** Adds one measurement. */
  add(value: number): void {
    if (this.size === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.size++] = value;
    this.sorted = false;
  }

  /** The number of measurements added. */
  get count(): number {
    return this.size;
  }

  /** The nearest-rank percentile `p` (0..100) of the measurements; NaN when there are none. */
  percentile(p: number): number {
    if (this.size === 0) return NaN;
    const view = this.view();
    const rank = Math.ceil((p / 100) * this.size);
    const index = Math.min(this.size - 1, Math.max(0, rank - 1));
    return view[index] ?? NaN;
  }

  /** The arithmetic mean; NaN when there are no measurements. */
  mean(): number {
    if (this.size === 0) return NaN;
    let sum = 0;
    for (let i = 0; i < this.size; i++) sum += this.data[i] ?? 0;
    return sum / this.size;
  }

  /** The largest measurement; NaN when there are none. */
  max(): number {
    return this.size === 0 ? NaN : this.percentile(100);
  }

  private view(): Float64Array {
    const view = this.data.subarray(0, this.size);
    if (!this.sorted) {
      view.sort();
      this.sorted = true;
    }
    return view;
  }
}

/** The median of a list of numbers (mean of the middle two for even lengths); NaN for an empty list. */
export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return NaN;
  const mid = Math.floor(finite.length / 2);
  return finite.length % 2 === 1 ? (finite[mid] ?? NaN) : ((finite[mid - 1] ?? NaN) + (finite[mid] ?? NaN)) / 2;
}

/** Rounds to `digits` decimals (keeps NaN as NaN). */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Events per second for `count` events over `elapsedMs` milliseconds (0 when no time elapsed). */
export function perSecond(count: number, elapsedMs: number): number {
  return elapsedMs > 0 ? round((count * 1000) / elapsedMs, 1) : 0;
}
