/**
 * Message counts of the queue detail view (docs/api.md 7.2), derived from per-partition facts.
 *
 * The reference cursor of a partition is the queue-mode cursor if queue mode contacted it, else the lowest
 * named-group cursor, else 0. Retained offsets are the range [first retained, tail] (retention removes
 * whole segments from the front) minus the gaps individual message deletes left, so counts over offset
 * ranges are interval arithmetic.
 */
import type { PartitionFacts } from '../store/queues.js';
import { QUEUE_MODE } from './names.js';

/** The six counts of one partition or of a whole queue. */
export interface MessageCounts {
  total: number;
  pending: number;
  processing: number;
  completed: number;
  failed: number;
  deadLetter: number;
}

/** The reference cursor of a partition: queue mode's if it contacted it, else the lowest named group's, else 0. */
export function referenceCursor(facts: Pick<PartitionFacts, 'cursors'>): number {
  const queueMode = facts.cursors.find((c) => c.group === QUEUE_MODE);
  const named = facts.cursors.filter((c) => c.group !== QUEUE_MODE).map((c) => Number(c.committed));
  return queueMode ? Number(queueMode.committed) : named.length > 0 ? Math.min(...named) : 0;
}

/** Counts for one partition. */
export function partitionCounts(facts: PartitionFacts): MessageCounts {
  const total = Number(facts.total);
  const tail = Number(facts.tail);
  const first = facts.firstRetained === null ? tail + 1 : Number(facts.firstRetained);
  // Retained messages with offset in (low, high]: the range minus the holes deleted messages left.
  const retainedIn = (low: number, high: number): number => {
    let count = Math.max(0, Math.min(high, tail) - Math.max(low, first - 1));
    for (const [from, to] of facts.gaps ?? []) count -= Math.max(0, Math.min(high, to) - Math.max(low, from - 1));
    return Math.max(0, count);
  };

  const reference = referenceCursor(facts);

  // Live lease spans (committed, spanEnd] of every group, merged so overlapping spans count once.
  const spans = facts.cursors
    .filter((c) => c.live && c.spanEnd !== null)
    .map((c) => [Number(c.committed), Number(c.spanEnd)] as const)
    .sort((a, b) => a[0] - b[0]);
  let processing = 0;
  let coveredTo = -Infinity;
  for (const [low, high] of spans) {
    const from = Math.max(low, coveredTo);
    if (high > from) processing += retainedIn(from, high);
    coveredTo = Math.max(coveredTo, high);
  }
  const completed = retainedIn(0, reference);
  return {
    total,
    pending: Math.max(0, total - completed - processing),
    processing,
    completed,
    failed: facts.cursors.filter((c) => c.retryCount > 0).length,
    deadLetter: Number(facts.deadLetters),
  };
}

/** Sums partition counts. */
export function sumCounts(counts: MessageCounts[]): MessageCounts {
  const sum: MessageCounts = { total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 };
  for (const c of counts) {
    for (const key of Object.keys(sum) as Array<keyof MessageCounts>) sum[key] += c[key];
  }
  return sum;
}
