/**
 * The resource summaries (src/core/resources.ts), docs/api.md 7.2: counts per queue from partition facts,
 * namespaces and tasks (queues whose value is "" belong to none), and the overview. Expected values are
 * computed by hand from the facts in each test.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countsByQueue, overview, queueCounts, scopeSummaries } from '../../src/core/resources.js';
import type { GroupCursorFacts } from '../../src/store/consumer-groups.js';
import type { LocatedPartitionFacts } from '../../src/store/queues.js';
import type { QueueListing } from '../../src/store/resources.js';

/** A partition with retained offsets 1..total and the given queue-mode cursor (null: not contacted). */
function partition(queueId: string, total: number, queueModeCursor: number | null, live: [number, number] | null = null): LocatedPartitionFacts {
  return {
    queueId,
    id: `${queueId}-${Math.random()}`,
    name: 'P',
    createdAt: '2026-08-02T09:00:00.000Z',
    tail: String(total),
    firstRetained: total > 0 ? '1' : null,
    total: String(total),
    oldestMessage: null,
    newestMessage: null,
    deadLetters: '0',
    cursors: queueModeCursor === null ? [] : [{
      group: '__QUEUE_MODE__', committed: queueModeCursor, spanEnd: live?.[1] ?? null, live: live !== null, retryCount: 0, contacted: true,
    }],
  };
}

function queue(id: string, namespace: string, task: string, partitions: number): QueueListing {
  return { id, name: `${namespace}.${task}`, namespace, task, createdAt: '2026-08-02T09:00:00.000Z', partitions };
}

const pairFacts = (offsetLag: number, headAge: number | null): GroupCursorFacts => ({
  group: 'g', queue: 'q', partitionId: 'p', partitionName: 'P', offsetLag: String(offsetLag),
  headCreatedAt: null, headAgeSeconds: headAge, liveLeaseId: null, totalConsumed: '0', lastConsumedAt: null, idleSeconds: 0, contacted: true,
});

// Queue a: P 10 messages, cursor 4, live span (4, 6] -> completed 4, processing 2, pending 4;
//          P 3 messages, not contacted -> pending 3. Queue b: P 5 messages, cursor 5 -> completed 5.
const facts = [partition('a', 10, 4, [4, 6]), partition('a', 3, null), partition('b', 5, 5)];

describe('countsByQueue', () => {
  test('partition counts summed per queue; a queue without partitions counts zero', () => {
    const counts = countsByQueue(facts);
    assert.deepEqual(queueCounts(counts, 'a'), { total: 13, pending: 7, processing: 2, completed: 4, failed: 0, deadLetter: 0 });
    assert.deepEqual(queueCounts(counts, 'b'), { total: 5, pending: 0, processing: 0, completed: 5, failed: 0, deadLetter: 0 });
    assert.deepEqual(queueCounts(counts, 'c'), { total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 });
  });
});

describe('scopeSummaries', () => {
  test('grouped by namespace or task in name order; "" belongs to no group', () => {
    const queues = [queue('b', 'shop', 'orders', 1), queue('a', 'billing', 'orders', 2), queue('c', 'billing', '', 4)];
    const counts = countsByQueue(facts);
    assert.deepEqual(scopeSummaries(queues, counts, 'namespace'), [
      { name: 'billing', queues: 2, partitions: 6, messages: { total: 13, pending: 7 } },
      { name: 'shop', queues: 1, partitions: 1, messages: { total: 5, pending: 0 } },
    ]);
    assert.deepEqual(scopeSummaries(queues, counts, 'task'), [
      { name: 'orders', queues: 2, partitions: 3, messages: { total: 18, pending: 7 } },
    ]);
  });
});

describe('overview', () => {
  test('totals, distinct non-empty namespaces and tasks, lag statistics and throughput per second', () => {
    const queues = [queue('a', 'billing', 'orders', 2), queue('b', 'billing', '', 1)];
    const result = overview(queues, facts, [pairFacts(5, 100), pairFacts(0, null), pairFacts(2, 30)], {
      timestamp: '2026-08-02T09:00:00.000Z', windowSeconds: 60, ingested: 100, processed: 45,
    });
    assert.deepEqual(result, {
      queues: 2,
      partitions: 3,
      namespaces: 1,
      tasks: 1,
      messages: { total: 18, pending: 7, processing: 2, completed: 9, failed: 0, deadLetter: 0 },
      // time lags 100, 0, 30 -> avg 43.33, median 30; offset lags 5, 0, 2 -> avg 2.33, median 2
      lag: { time: { avg: 43.33, median: 30, min: 0, max: 100 }, offset: { avg: 2.33, median: 2, min: 0, max: 5 } },
      // 100 / 60 = 1.666.. -> 1.67; 45 / 60 = 0.75
      throughput: { ingestedPerSecond: 1.67, processedPerSecond: 0.75 },
      timestamp: '2026-08-02T09:00:00.000Z',
      statsAge: 0,
    });
  });
});
