/**
 * Message counts of the queue detail view (docs/api.md 7.2), derived from per-partition facts.
 *
 * The reference cursor of a partition is the queue-mode cursor if queue mode is known on the queue, else the
 * lowest cursor of the named groups known on it, else 0; per group, each group's own cursors (groupCounts).
 * Retained offsets are the range [first retained, tail] (retention removes whole segments from the front) minus
 * the gaps individual message deletes left, so counts over offset ranges are interval arithmetic.
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

/**
 * The reference cursor of a partition: queue mode's if queue mode is known on the queue, else the lowest of the
 * named groups known on it, else 0. A known group that has not touched the partition yet counts at the offset it
 * will start from, so a group reaching a new partition moves no figure.
 */
export function referenceCursor(facts: Pick<PartitionFacts, 'cursors'>): number {
  const queueMode = facts.cursors.find((c) => c.group === QUEUE_MODE);
  const named = facts.cursors.filter((c) => c.group !== QUEUE_MODE).map((c) => Number(c.committed));
  return queueMode ? Number(queueMode.committed) : named.length > 0 ? Math.min(...named) : 0;
}

/** Retained messages of a partition with offset in (low, high]: the range minus the holes deleted messages left. */
function retainedCounter(facts: PartitionFacts): (low: number, high: number) => number {
  const tail = Number(facts.tail);
  const first = facts.firstRetained === null ? tail + 1 : Number(facts.firstRetained);
  return (low, high) => {
    let count = Math.max(0, Math.min(high, tail) - Math.max(low, first - 1));
    for (const [from, to] of facts.gaps ?? []) count -= Math.max(0, Math.min(high, to) - Math.max(low, from - 1));
    return Math.max(0, count);
  };
}

/** Counts for one partition. */
export function partitionCounts(facts: PartitionFacts): MessageCounts {
  const total = Number(facts.total);
  const retainedIn = retainedCounter(facts);
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

/** What one consumer group has done with a queue's retained messages (docs/api.md 7.10). */
export interface GroupCounts {
  name: string;
  /** Retained messages at or below the group's cursors. */
  completed: number;
  /** Retained messages inside the group's live lease spans. */
  processing: number;
  /** Retained messages the group has not received yet (above its cursors, outside its live spans). */
  pending: number;
  /** Partitions the group has touched. */
  partitions: number;
}

/**
 * Per-group counts over a queue's partitions, each group against its own cursors (untouched partitions at the
 * offset the group will start from); ordered by name.
 */
export function groupCounts(facts: readonly PartitionFacts[]): GroupCounts[] {
  const groups = new Map<string, GroupCounts>();
  for (const f of facts) {
    const retainedIn = retainedCounter(f);
    const total = Number(f.total);
    for (const c of f.cursors) {
      const g = groups.get(c.group) ?? { name: c.group, completed: 0, processing: 0, pending: 0, partitions: 0 };
      const committed = Number(c.committed);
      const completed = retainedIn(0, committed);
      const processing = c.live && c.spanEnd !== null ? retainedIn(committed, Number(c.spanEnd)) : 0;
      g.completed += completed;
      g.processing += processing;
      g.pending += Math.max(0, total - completed - processing);
      if (c.contacted) g.partitions += 1;
      groups.set(c.group, g);
    }
  }
  return [...groups.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Sums partition counts. */
export function sumCounts(counts: MessageCounts[]): MessageCounts {
  const sum: MessageCounts = { total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 };
  for (const c of counts) {
    for (const key of Object.keys(sum) as Array<keyof MessageCounts>) sum[key] += c[key];
  }
  return sum;
}
