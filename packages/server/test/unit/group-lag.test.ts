/**
 * Lag and state of consumer groups (src/core/group-lag.ts), docs/api.md 7.7: offset lag = retained messages above
 * the cursor; time lag = seconds since the head's createdAt, 0 when caught up; state Dead after 24 h without
 * activity, else Lagging above 300 s of time lag, else Stable; summaries per (group, queue); lagging pairs;
 * the statistics of the overview. Every expected value is computed by hand in the test's comment.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupState, groupSummaries, laggingPairs, pairLag, statistics } from '../../src/core/group-lag.js';
import type { GroupCursorFacts, GroupSubscription } from '../../src/store/consumer-groups.js';

function pair(group: string, queue: string, partition: string, offsetLag: number, headAge: number | null, extra: Partial<GroupCursorFacts> = {}): GroupCursorFacts {
  return {
    group,
    queue: queue,
    partitionId: `id-${queue}-${partition}`,
    partitionName: partition,
    offsetLag: String(offsetLag),
    headCreatedAt: headAge === null ? null : '2026-08-02T09:00:00.000Z',
    headAgeSeconds: headAge,
    liveLeaseId: null,
    totalConsumed: '0',
    lastConsumedAt: null,
    idleSeconds: 10,
    contacted: true,
    ...extra,
  };
}

function record(group: string, queue: string, partition: string, idle = 5): GroupSubscription {
  return { group, queue: queue, partitionName: partition, mode: 'new', subscribedFrom: '2026-08-02T08:00:00.000Z', createdAt: '2026-08-02T08:00:00.001Z', idleSeconds: idle };
}

describe('pairLag', () => {
  test('caught up: no lag, whatever the head age says', () => {
    assert.deepEqual(pairLag(pair('g', 'q', 'P', 0, null)), { offsetLag: 0, timeLagSeconds: 0 });
    assert.deepEqual(pairLag(pair('g', 'q', 'P', 0, 500)), { offsetLag: 0, timeLagSeconds: 0 });
  });

  test('messages above the cursor: the head age in seconds, never negative', () => {
    assert.deepEqual(pairLag(pair('g', 'q', 'P', 7, 120)), { offsetLag: 7, timeLagSeconds: 120 });
    assert.deepEqual(pairLag(pair('g', 'q', 'P', 1, -1)), { offsetLag: 1, timeLagSeconds: 0 }, 'a head stamped after the query started');
  });
});

describe('groupState', () => {
  test('Dead from 24 h without activity, whatever the lag', () => {
    assert.equal(groupState(86_399, 10_000), 'Lagging');
    assert.equal(groupState(86_400, 0), 'Dead');
    assert.equal(groupState(86_400, 10_000), 'Dead');
  });

  test('Lagging strictly above 300 s, else Stable', () => {
    assert.equal(groupState(0, 300), 'Stable');
    assert.equal(groupState(0, 301), 'Lagging');
    assert.equal(groupState(0, 0), 'Stable');
  });
});

describe('groupSummaries', () => {
  test('one summary per (group, queue), ordered by group then queue, lags summed over the contacted partitions', () => {
    const summaries = groupSummaries(
      [
        // g on q1: P1 lags 3 (head 400 s), P2 caught up, P3 lags 2 (head 50 s)
        pair('g', 'q1', 'P1', 3, 400), pair('g', 'q1', 'P2', 0, null), pair('g', 'q1', 'P3', 2, 50),
        // __QUEUE_MODE__ on q1: one partition caught up; on q0: one lagging 10 s
        pair('__QUEUE_MODE__', 'q1', 'P1', 0, null), pair('__QUEUE_MODE__', 'q0', 'P1', 1, 10),
      ],
      [],
    );
    assert.deepEqual(summaries.map((s) => [s.name, s.queueName, s.members, s.partitionsWithLag, s.totalLag, s.maxTimeLag, s.state]), [
      ['__QUEUE_MODE__', 'q0', 1, 1, 1, 10, 'Stable'],
      ['__QUEUE_MODE__', 'q1', 1, 0, 0, 0, 'Stable'],
      ['g', 'q1', 3, 2, 5, 400, 'Lagging'],
    ]);
    assert.deepEqual(summaries[2]!.topics, ['q1']);
  });

  test('subscription fields come from the queue-wide record only; a record alone makes an element', () => {
    const queueWide = { ...record('g', 'q1', ''), mode: 'timestamp' as const };
    const summaries = groupSummaries([pair('g', 'q1', 'P1', 0, null)], [queueWide, record('g', 'q2', 'P9'), record('h', 'q1', 'P1')]);
    assert.deepEqual(summaries.map((s) => [s.name, s.queueName, s.members, s.subscriptionMode, s.subscriptionTimestamp, s.subscriptionCreatedAt]), [
      ['g', 'q1', 1, 'timestamp', '2026-08-02T08:00:00.000Z', '2026-08-02T08:00:00.001Z'],
      ['g', 'q2', 0, 'all', null, null],
      ['h', 'q1', 0, 'all', null, null],
    ]);
  });

  test('an untouched partition counts in the lag (from where the group will start) but is no member and no activity', () => {
    // g touched P1 (caught up, idle 25 h); P2 it never touched holds 4 messages, the oldest 700 s old.
    const [s] = groupSummaries([
      pair('g', 'q', 'P1', 0, null, { idleSeconds: 25 * 3600 }),
      pair('g', 'q', 'P2', 4, 700, { contacted: false, idleSeconds: null, totalConsumed: '0' }),
    ], []);
    assert.deepEqual([s!.members, s!.partitionsWithLag, s!.totalLag, s!.maxTimeLag, s!.state], [1, 1, 4, 700, 'Dead']);
  });

  test('the most recent activity of any pair or record decides Dead', () => {
    const old = 90_000;
    const [allOld] = groupSummaries([pair('g', 'q', 'P1', 0, null, { idleSeconds: old }), pair('g', 'q', 'P2', 0, null, { idleSeconds: old })], []);
    assert.equal(allOld!.state, 'Dead');
    const [oneRecent] = groupSummaries([pair('g', 'q', 'P1', 0, null, { idleSeconds: old }), pair('g', 'q', 'P2', 0, null, { idleSeconds: 3 })], []);
    assert.equal(oneRecent!.state, 'Stable');
    const [recentRecord] = groupSummaries([pair('g', 'q', 'P1', 0, null, { idleSeconds: old })], [record('g', 'q', '', 60)]);
    assert.equal(recentRecord!.state, 'Stable');
    const [oldRecordOnly] = groupSummaries([], [record('g', 'q', '', old)]);
    assert.equal(oldRecordOnly!.state, 'Dead');
  });
});

describe('laggingPairs', () => {
  test('pairs with messages above the cursor and a time lag of at least the minimum, largest first', () => {
    const pairs = [
      pair('a', 'q', 'P1', 5, 3600),
      pair('b', 'q', 'P1', 1, 7200),
      pair('c', 'q', 'P1', 0, null), // caught up: never lagging, even with a minimum of 0
      pair('d', 'q', 'P1', 9, 3599),
      pair('e', 'q', 'P1', 2, 3600),
    ];
    const lagging = laggingPairs(pairs, 3600);
    // 7200 first; the two 3600 s pairs by offset lag (5 before 2); 3599 is below the minimum.
    assert.deepEqual(lagging.map((l) => [l.facts.group, l.lag.timeLagSeconds, l.lag.offsetLag, l.lagHours]), [
      ['b', 7200, 1, 2],
      ['a', 3600, 5, 1],
      ['e', 3600, 2, 1],
    ]);
    assert.deepEqual(laggingPairs(pairs, 0).map((l) => l.facts.group), ['b', 'a', 'e', 'd']);
    // 1000 s = 0.2777.. h -> 0.28
    assert.equal(laggingPairs([pair('x', 'q', 'P', 1, 1000)], 0)[0]!.lagHours, 0.28);
  });
});

describe('statistics', () => {
  test('empty: zeros', () => {
    assert.deepEqual(statistics([]), { avg: 0, median: 0, min: 0, max: 0 });
  });

  test('odd count: the middle value; even count: the mean of the two middle values; avg to 2 decimals', () => {
    assert.deepEqual(statistics([300, 0, 100]), { avg: 133.33, median: 100, min: 0, max: 300 });
    assert.deepEqual(statistics([5, 0, 3, 2]), { avg: 2.5, median: 2.5, min: 0, max: 5 });
    assert.deepEqual(statistics([7]), { avg: 7, median: 7, min: 7, max: 7 });
    assert.deepEqual(statistics([1, 2]), { avg: 1.5, median: 1.5, min: 1, max: 2 });
  });
});
