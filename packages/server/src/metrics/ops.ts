/**
 * Per-minute operation counters, in process memory (docs/api.md 7.10: "kept per queue and per broker process").
 *
 * Request paths add to the counters of (current minute, queue): one map look-up and a few additions, no I/O.
 * The stats service drains everything every STATS_INTERVAL_MS into `queen.stats_counters` with one statement,
 * and restores the drained rows when that write fails, so a database outage delays counters instead of
 * losing them (up to RESTORE_HORIZON_MS of them: older minutes are dropped rather than kept without bound).
 * A minute drained while still current simply starts again from zero: the flush adds to the stored row.
 */

/** The queue name under which counters that belong to no queue are kept (transactions, failed requests). */
export const NO_QUEUE = '';

import { isValidName } from '../core/names.js';
import { addCounters, emptyCounters } from '../core/counters.js';
import type { OpCounters, OpsRow } from '../store/stats.js';

export { emptyCounters } from '../core/counters.js';
export type { OpCounters, OpsRow } from '../store/stats.js';

const MINUTE_MS = 60_000;
/** Drained rows older than this are not restored after a failed flush. */
const RESTORE_HORIZON_MS = 24 * 3600 * 1000;

/** Counters by minute and queue, fed by the request paths and drained by the stats service. */
export class OpsAccumulator {
  /** minute number (ms since the epoch / 60 000) -> queue -> counters. */
  private readonly minutes = new Map<number, Map<string, OpCounters>>();
  private currentMinute = -1;
  private current = new Map<string, OpCounters>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The counters of `queue` in the current minute, created at zero on first use. Only names that pass the
   * naming rules (core/names.ts) get counters of their own: anything else (a failed push item's invalid
   * queue name) is counted under NO_QUEUE, so no client-supplied string can make a flush fail.
   */
  at(name: string): OpCounters {
    const queue = name === NO_QUEUE || isValidName(name) ? name : NO_QUEUE;
    const minute = Math.floor(this.now() / MINUTE_MS);
    if (minute !== this.currentMinute) {
      this.currentMinute = minute;
      this.current = this.minuteMap(minute);
    }
    let counters = this.current.get(queue);
    if (counters === undefined) {
      counters = emptyCounters();
      this.current.set(queue, counters);
    }
    return counters;
  }

  /** Takes every counter accumulated so far, one row per (minute, queue), oldest minute first. */
  drain(): OpsRow[] {
    const rows: OpsRow[] = [];
    for (const minute of [...this.minutes.keys()].sort((a, b) => a - b)) {
      const bucket = new Date(minute * MINUTE_MS).toISOString();
      for (const [queue, counters] of this.minutes.get(minute)!) rows.push({ bucket, queue, ...counters });
    }
    this.minutes.clear();
    this.currentMinute = -1;
    return rows;
  }

  /** Puts drained rows back (their flush failed), merged with whatever was counted since. */
  restore(rows: readonly OpsRow[]): void {
    const horizon = this.now() - RESTORE_HORIZON_MS;
    for (const { bucket, queue, ...counters } of rows) {
      const startMs = Date.parse(bucket);
      if (startMs < horizon) continue;
      const map = this.minuteMap(Math.floor(startMs / MINUTE_MS));
      const existing = map.get(queue);
      if (existing === undefined) map.set(queue, counters);
      else addCounters(existing, counters);
    }
  }

  private minuteMap(minute: number): Map<string, OpCounters> {
    let map = this.minutes.get(minute);
    if (map === undefined) {
      map = new Map();
      this.minutes.set(minute, map);
    }
    return map;
  }
}
