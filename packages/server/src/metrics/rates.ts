/**
 * Totals and per-second rates over the last 60 s for `GET /metrics` (docs/api.md 7.11), without timers: a ring
 * of 60 one-second slots, each stamped with the second it counts, so a slot left over from an earlier lap
 * is recognised as stale and ignored (or reset when written).
 */

const WINDOW_SECONDS = 60;

/** A monotonically growing count with its rate over the last minute. */
export class RateCounter {
  private count = 0;
  private readonly slots = new Float64Array(WINDOW_SECONDS);
  private readonly stamps = new Float64Array(WINDOW_SECONDS).fill(-1);

  constructor(private readonly now: () => number = Date.now) {}

  /** Everything counted since the process started. */
  get total(): number {
    return this.count;
  }

  /** Counts `n` events now. */
  add(n = 1): void {
    const second = Math.floor(this.now() / 1000);
    const slot = second % WINDOW_SECONDS;
    const current = this.stamps[slot] === second ? this.slots[slot]! : 0;
    this.stamps[slot] = second;
    this.slots[slot] = current + n;
    this.count += n;
  }

  /** Events per second over the last 60 s (the current second included). */
  rate(): number {
    const second = Math.floor(this.now() / 1000);
    let sum = 0;
    for (let i = 0; i < WINDOW_SECONDS; i += 1) {
      if (this.stamps[i]! > second - WINDOW_SECONDS) sum += this.slots[i]!;
    }
    return sum / WINDOW_SECONDS;
  }
}
