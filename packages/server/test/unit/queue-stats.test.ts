/**
 * Message counts of the queue detail (src/core/queue-stats.ts partitionCounts), docs/api.md 7.2:
 * reference cursor = queue mode's if it contacted the partition, else the lowest named-group cursor, else 0;
 * total = retained; processing = retained inside a live span of any group, counted once; pending = retained
 * above the reference minus processing (never below 0); completed = retained at or below the reference;
 * failed = pairs with retry counter > 0; deadLetter = DLQ entries.
 *
 * Every expected value below is computed by hand from the offsets in the comment of the case.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupCounts, partitionCounts, sumCounts } from '../../src/core/queue-stats.js';
import type { PartitionFacts } from '../../src/store/queues.js';

type Cursor = PartitionFacts['cursors'][number];

function cursor(group: string, committed: number, extra: Partial<Cursor> = {}): Cursor {
  return { group, committed, spanEnd: null, live: false, retryCount: 0, contacted: true, ...extra };
}

/** Facts for a partition whose retained offsets are [first, tail] (or nothing when first is null). */
function facts(tail: number, first: number | null, cursors: Cursor[], deadLetters = 0): PartitionFacts {
  const total = first === null ? 0 : tail - first + 1;
  return {
    id: '0198f2c0-0000-7000-8000-00000000b001',
    name: 'Default',
    createdAt: '2026-08-02T09:00:00.000Z',
    tail: String(tail),
    firstRetained: first === null ? null : String(first),
    total: String(total),
    oldestMessage: null,
    newestMessage: null,
    deadLetters: String(deadLetters),
    cursors,
  };
}

const QM = '__QUEUE_MODE__';

describe('reference cursor', () => {
  test('no cursor at all: reference 0, everything pending', () => {
    // offsets 1..10, nobody contacted the partition
    assert.deepEqual(partitionCounts(facts(10, 1, [])), { total: 10, pending: 10, processing: 0, completed: 0, failed: 0, deadLetter: 0 });
  });

  test('queue mode contacted: its cursor is the reference even when a named group is further or behind', () => {
    // offsets 1..10; queue mode committed 4; groups a=9, b=1 -> completed = 1..4
    assert.deepEqual(partitionCounts(facts(10, 1, [cursor(QM, 4), cursor('a', 9), cursor('b', 1)])), {
      total: 10, pending: 6, processing: 0, completed: 4, failed: 0, deadLetter: 0,
    });
  });

  test('queue mode contacted with cursor 0 wins over named groups further on', () => {
    assert.deepEqual(partitionCounts(facts(10, 1, [cursor('a', 8), cursor(QM, 0)])), {
      total: 10, pending: 10, processing: 0, completed: 0, failed: 0, deadLetter: 0,
    });
  });

  test('named groups only: the lowest cursor is the reference', () => {
    // offsets 1..10; groups a=7, b=3, c=5 -> reference 3
    assert.deepEqual(partitionCounts(facts(10, 1, [cursor('a', 7), cursor('b', 3), cursor('c', 5)])), {
      total: 10, pending: 7, processing: 0, completed: 3, failed: 0, deadLetter: 0,
    });
  });

  test('fully consumed', () => {
    assert.deepEqual(partitionCounts(facts(6, 1, [cursor(QM, 6)])), {
      total: 6, pending: 0, processing: 0, completed: 6, failed: 0, deadLetter: 0,
    });
  });
});

describe('processing: live spans, counted once', () => {
  test('one live span (committed, spanEnd]', () => {
    // offsets 1..10; queue mode committed 4, live lease to 7 -> processing 5..7 = 3; pending 8..10 = 3
    assert.deepEqual(partitionCounts(facts(10, 1, [cursor(QM, 4, { spanEnd: 7, live: true })])), {
      total: 10, pending: 3, processing: 3, completed: 4, failed: 0, deadLetter: 0,
    });
  });

  test('an expired lease is not processing', () => {
    assert.deepEqual(partitionCounts(facts(10, 1, [cursor(QM, 4, { spanEnd: 7, live: false })])), {
      total: 10, pending: 6, processing: 0, completed: 4, failed: 0, deadLetter: 0,
    });
  });

  test('overlapping spans of two groups count once', () => {
    // offsets 1..10; a: (2,6], b: (4,8] live -> union 3..8 = 6; reference min(2,4) = 2 -> completed 2;
    // pending = (10 - 2) - 6 = 2
    const counts = partitionCounts(facts(10, 1, [cursor('a', 2, { spanEnd: 6, live: true }), cursor('b', 4, { spanEnd: 8, live: true })]));
    assert.deepEqual(counts, { total: 10, pending: 2, processing: 6, completed: 2, failed: 0, deadLetter: 0 });
  });

  test('identical spans of two groups count once', () => {
    // offsets 1..10; a and b both (3,9] live -> 4..9 = 6; reference 3 -> pending 7 - 6 = 1
    const counts = partitionCounts(facts(10, 1, [cursor('a', 3, { spanEnd: 9, live: true }), cursor('b', 3, { spanEnd: 9, live: true })]));
    assert.deepEqual(counts, { total: 10, pending: 1, processing: 6, completed: 3, failed: 0, deadLetter: 0 });
  });

  test('a span nested inside another counts once', () => {
    // offsets 1..20; a (0,15], b (5,10] live -> 1..15 = 15; reference 0 -> pending 20 - 15 = 5
    const counts = partitionCounts(facts(20, 1, [cursor('a', 0, { spanEnd: 15, live: true }), cursor('b', 5, { spanEnd: 10, live: true })]));
    assert.deepEqual(counts, { total: 20, pending: 5, processing: 15, completed: 0, failed: 0, deadLetter: 0 });
  });

  test('disjoint spans add up', () => {
    // offsets 1..20; a (2,4], b (10,13] live -> {3,4} + {11,12,13} = 5; reference 2 -> pending 18 - 5 = 13
    const counts = partitionCounts(facts(20, 1, [cursor('a', 2, { spanEnd: 4, live: true }), cursor('b', 10, { spanEnd: 13, live: true })]));
    assert.deepEqual(counts, { total: 20, pending: 13, processing: 5, completed: 2, failed: 0, deadLetter: 0 });
  });

  test('adjacent spans add up without double counting the boundary', () => {
    // offsets 1..10; a (0,5], b (5,8] live -> 1..8 = 8; reference 0 -> pending 2
    const counts = partitionCounts(facts(10, 1, [cursor('a', 0, { spanEnd: 5, live: true }), cursor('b', 5, { spanEnd: 8, live: true })]));
    assert.deepEqual(counts, { total: 10, pending: 2, processing: 8, completed: 0, failed: 0, deadLetter: 0 });
  });

  test('a named group span below the queue-mode reference: pending never goes below 0', () => {
    // offsets 1..10; queue mode committed 9; a (0,10] live -> processing 10; completed 9; pending max(0, 1 - 10) = 0
    const counts = partitionCounts(facts(10, 1, [cursor(QM, 9), cursor('a', 0, { spanEnd: 10, live: true })]));
    assert.deepEqual(counts, { total: 10, pending: 0, processing: 10, completed: 9, failed: 0, deadLetter: 0 });
  });
});

describe('retention: only retained messages count', () => {
  test('removed head: completed and processing count only retained offsets', () => {
    // retained 6..10 (1..5 removed); queue mode committed 8, live span to 10 -> completed 6..8 = 3, processing 9..10 = 2
    assert.deepEqual(partitionCounts(facts(10, 6, [cursor(QM, 8, { spanEnd: 10, live: true })])), {
      total: 5, pending: 0, processing: 2, completed: 3, failed: 0, deadLetter: 0,
    });
  });

  test('cursor below the first retained message: nothing completed', () => {
    // retained 6..10; queue mode committed 3, live span (3,7] -> completed 0, processing 6..7 = 2, pending 5 - 2 = 3
    assert.deepEqual(partitionCounts(facts(10, 6, [cursor(QM, 3, { spanEnd: 7, live: true })])), {
      total: 5, pending: 3, processing: 2, completed: 0, failed: 0, deadLetter: 0,
    });
  });

  test('nothing retained: all message counts are 0 even with a live span over removed offsets', () => {
    assert.deepEqual(partitionCounts(facts(10, null, [cursor(QM, 4, { spanEnd: 8, live: true })])), {
      total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0,
    });
  });
});

describe('failed and deadLetter', () => {
  test('failed counts pairs with a retry counter above 0; deadLetter is the DLQ entry count', () => {
    const counts = partitionCounts(facts(10, 1, [
      cursor(QM, 2, { retryCount: 1 }),
      cursor('a', 5, { retryCount: 3 }),
      cursor('b', 5, { retryCount: 0 }),
    ], 4));
    assert.deepEqual(counts, { total: 10, pending: 8, processing: 0, completed: 2, failed: 2, deadLetter: 4 });
  });
});

describe('sumCounts', () => {
  test('adds partition counts field by field', () => {
    assert.deepEqual(
      sumCounts([
        { total: 10, pending: 3, processing: 3, completed: 4, failed: 1, deadLetter: 2 },
        { total: 5, pending: 5, processing: 0, completed: 0, failed: 0, deadLetter: 1 },
      ]),
      { total: 15, pending: 8, processing: 3, completed: 4, failed: 1, deadLetter: 3 },
    );
    assert.deepEqual(sumCounts([]), { total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 });
  });
});

describe('groupCounts', () => {
  test('each group against its own cursors, summed over partitions; untouched partitions count from their start', () => {
    // P1 offsets 1..10: billing 10, audit 2 with a live span (2, 4]. P2 offsets 1..5: billing 5, audit untouched (start 0).
    const p1 = facts(10, 1, [cursor('billing', 10), cursor('audit', 2, { live: true, spanEnd: 4 })]);
    const p2 = facts(5, 1, [cursor('billing', 5), cursor('audit', 0, { contacted: false })]);
    assert.deepEqual(groupCounts([p1, p2]), [
      { name: 'audit', completed: 2, processing: 2, pending: 11, partitions: 1 },
      { name: 'billing', completed: 15, processing: 0, pending: 0, partitions: 2 },
    ]);
    // The queue: reference = the lowest group (audit) on each partition; processing is audit's span.
    assert.deepEqual(sumCounts([partitionCounts(p1), partitionCounts(p2)]), { total: 15, pending: 11, processing: 2, completed: 2, failed: 0, deadLetter: 0 });
  });
});
