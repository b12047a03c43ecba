/**
 * The operation counters of one queue in one minute (`OpCounters`, the columns of `queen.stats_counters`):
 * their zero and their sum. The request paths add to them in memory (metrics/ops.ts); the status page sums
 * the stored rows (core/status.ts).
 */
import type { OpCounters } from '../store/stats.js';

const COUNTER_KEYS: ReadonlyArray<Exclude<keyof OpCounters, 'lagMaxMs'>> = ['pushRequests', 'pushMessages', 'popRequests',
  'popMessages', 'ackRequests', 'ackMessages', 'ackCompleted', 'ackFailed', 'transactions', 'dlqMoved', 'errors', 'dbErrors', 'lagSumMs'];

/** A set of counters at zero. */
export function emptyCounters(): OpCounters {
  return { pushRequests: 0, pushMessages: 0, popRequests: 0, popMessages: 0, ackRequests: 0, ackMessages: 0,
    ackCompleted: 0, ackFailed: 0, transactions: 0, dlqMoved: 0, errors: 0, dbErrors: 0, lagSumMs: 0, lagMaxMs: 0 };
}

/** Adds `from` into `into` (sums, and the larger lag maximum). */
export function addCounters(into: OpCounters, from: OpCounters): void {
  for (const key of COUNTER_KEYS) into[key] += from[key];
  into.lagMaxMs = Math.max(into.lagMaxMs, from.lagMaxMs);
}

