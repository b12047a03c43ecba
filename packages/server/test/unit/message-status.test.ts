/**
 * Per-message state of docs/api.md 7.4 (src/core/message-status.ts): queueStatus, status, busStatus, mode, and the
 * per-group view of the message detail (consumed, leaseExpiresAt, retryCount, deliveryAttempts).
 *
 * Every case names the message offset k and each group's committed offset c and live span (c, spanEnd].
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { consumptionMode, groupView, isMessageStatus, leaseExpiry, messageStatus, retryCount } from '../../src/core/message-status.js';
import type { CursorFacts, DeadLetterFacts } from '../../src/store/messages.js';

const QM = '__QUEUE_MODE__';
const EXPIRY = '2026-08-02T09:17:01.204Z';

function cursor(group: string, committed: number, extra: Partial<CursorFacts> = {}): CursorFacts {
  return { group, committed, head: committed + 1, liveSpanEnd: null, leaseExpiresAt: null, recordedSpanEnd: null, retryCount: 0, claimsSinceAdvance: 0, ...extra };
}

/** A cursor holding a live lease over (committed, spanEnd]. */
function leased(group: string, committed: number, spanEnd: number, expiresAt = EXPIRY, extra: Partial<CursorFacts> = {}): CursorFacts {
  return cursor(group, committed, { liveSpanEnd: spanEnd, leaseExpiresAt: expiresAt, recordedSpanEnd: spanEnd, claimsSinceAdvance: 1, ...extra });
}

function entry(group: string, retries = 0, errorMessage = 'boom'): DeadLetterFacts {
  return { group, retryCount: retries, errorMessage, failedAt: '2026-08-02T09:00:00.000Z' };
}

describe('queueStatus: queue mode\'s view', () => {
  test('null when queue mode never contacted the partition', () => {
    assert.equal(messageStatus(3, [cursor('g', 5)], []).queueStatus, null);
  });
  test('completed at or below the cursor (k=5, c=5)', () => {
    assert.equal(messageStatus(5, [cursor(QM, 5)], []).queueStatus, 'completed');
  });
  test('processing inside the live span (k=6, c=5, span end 7); pending after it (k=8)', () => {
    assert.equal(messageStatus(6, [leased(QM, 5, 7)], []).queueStatus, 'processing');
    assert.equal(messageStatus(7, [leased(QM, 5, 7)], []).queueStatus, 'processing');
    assert.equal(messageStatus(8, [leased(QM, 5, 7)], []).queueStatus, 'pending');
  });
  test('pending above the cursor without a live lease (k=6, c=5)', () => {
    assert.equal(messageStatus(6, [cursor(QM, 5)], []).queueStatus, 'pending');
  });
  test('dead_letter wins when queue mode has a DLQ entry, even below the cursor', () => {
    assert.equal(messageStatus(4, [cursor(QM, 5)], [QM]).queueStatus, 'dead_letter');
  });
  test('another group\'s DLQ entry does not make queue mode\'s view dead_letter', () => {
    assert.equal(messageStatus(4, [cursor(QM, 5), cursor('g', 5)], ['g']).queueStatus, 'completed');
  });
});

describe('status', () => {
  test('equals queueStatus when queue mode contacted the partition, whatever the named groups say', () => {
    const view = messageStatus(6, [cursor(QM, 5), cursor('a', 9), leased('b', 5, 8)], ['a']);
    assert.equal(view.status, 'pending');
    assert.equal(view.queueStatus, 'pending');
  });
  test('pending when nobody contacted the partition', () => {
    assert.deepEqual(messageStatus(1, [], []), { status: 'pending', queueStatus: null, busStatus: { consumedBy: 0, totalGroups: 0 } });
  });
  test('named groups only: dead_letter if any of them dead-lettered it', () => {
    assert.equal(messageStatus(3, [cursor('a', 3), cursor('b', 1)], ['a']).status, 'dead_letter');
  });
  test('named groups only: completed when every group is past it (k=3, c=3 and 4)', () => {
    assert.equal(messageStatus(3, [cursor('a', 3), cursor('b', 4)], []).status, 'completed');
  });
  test('named groups only: processing when one holds it in a live span and not all are past it', () => {
    assert.equal(messageStatus(3, [cursor('a', 3), leased('b', 2, 3)], []).status, 'processing');
  });
  test('named groups only: pending when one is before it and nobody holds it', () => {
    assert.equal(messageStatus(3, [cursor('a', 3), cursor('b', 2)], []).status, 'pending');
    assert.equal(messageStatus(3, [cursor('a', 3), leased('b', 0, 2)], []).status, 'pending', 'a span ending before k does not hold it');
  });
});

describe('busStatus', () => {
  test('consumedBy counts named groups at or past k; totalGroups counts the named groups; queue mode is not a bus group', () => {
    assert.deepEqual(messageStatus(4, [cursor(QM, 9), cursor('a', 4), cursor('b', 3), cursor('c', 7)], []).busStatus, { consumedBy: 2, totalGroups: 3 });
  });
});

describe('mode', () => {
  test('queue, bus, hybrid, none', () => {
    assert.deepEqual(consumptionMode(true, 0), { hasQueueMode: true, busGroupsCount: 0, type: 'queue' });
    assert.deepEqual(consumptionMode(false, 2), { hasQueueMode: false, busGroupsCount: 2, type: 'bus' });
    assert.deepEqual(consumptionMode(true, 1), { hasQueueMode: true, busGroupsCount: 1, type: 'hybrid' });
    assert.deepEqual(consumptionMode(false, 0), { hasQueueMode: false, busGroupsCount: 0, type: 'none' });
  });
});

describe('groupView', () => {
  test('consumed message: deliveryAttempts null, no lease, retryCount 0', () => {
    assert.deepEqual(groupView(2, cursor('g', 5, { claimsSinceAdvance: 3, retryCount: 2 }), []), {
      name: 'g', consumed: true, leaseExpiresAt: null, retryCount: 0, deliveryAttempts: null,
    });
  });
  test('head message held by a live lease: the group\'s retry counter and claims since the advance', () => {
    const c = leased('g', 5, 8, EXPIRY, { retryCount: 2, claimsSinceAdvance: 3 });
    assert.deepEqual(groupView(6, c, []), { name: 'g', consumed: false, leaseExpiresAt: EXPIRY, retryCount: 2, deliveryAttempts: 3 });
  });
  test('a later message of the span: no retry count (not the head), claims as the upper bound', () => {
    const c = leased('g', 5, 8, EXPIRY, { retryCount: 2, claimsSinceAdvance: 3 });
    assert.deepEqual(groupView(8, c, []), { name: 'g', consumed: false, leaseExpiresAt: EXPIRY, retryCount: 0, deliveryAttempts: 3 });
  });
  test('beyond the span: no lease expiry', () => {
    assert.equal(groupView(9, leased('g', 5, 8), []).leaseExpiresAt, null);
  });
  test('never delivered since the cursor last advanced: 0 attempts', () => {
    assert.equal(groupView(6, cursor('g', 5), []).deliveryAttempts, 0);
  });
  test('inside the recorded span after a partial ack reset the claims: delivered once at least', () => {
    const c = leased('g', 6, 8, EXPIRY, { claimsSinceAdvance: 0 });
    assert.equal(groupView(7, c, []).deliveryAttempts, 1);
  });
  test('an expired lease keeps the recorded span but gives no lease expiry', () => {
    const c = cursor('g', 5, { recordedSpanEnd: 7, claimsSinceAdvance: 2, retryCount: 1 });
    assert.deepEqual(groupView(6, c, []), { name: 'g', consumed: false, leaseExpiresAt: null, retryCount: 1, deliveryAttempts: 2 });
  });
  test('dead-lettered by this group: the latest DLQ entry\'s count; another group\'s entry is ignored', () => {
    assert.equal(groupView(4, cursor('g', 4), [entry('g', 1), entry('g', 3), entry('h', 9)]).retryCount, 3);
    assert.equal(groupView(4, cursor('h2', 4), [entry('g', 3)]).retryCount, 0);
  });
  test('a message that is not the head (gap before it) gets no retry count', () => {
    assert.equal(groupView(7, cursor('g', 5, { head: 6, retryCount: 2 }), []).retryCount, 0);
    assert.equal(groupView(7, cursor('g', 5, { head: 7, retryCount: 2 }), []).retryCount, 2, 'head after a deleted offset');
  });
});

describe('message-level retryCount and leaseExpiresAt', () => {
  const qmView = { name: QM, consumed: false, leaseExpiresAt: null, retryCount: 1, deliveryAttempts: 1 };
  const a = { name: 'a', consumed: false, leaseExpiresAt: '2026-08-02T09:17:01.204Z', retryCount: 4, deliveryAttempts: 2 };
  const b = { name: 'b', consumed: false, leaseExpiresAt: '2026-08-02T10:00:00.000Z', retryCount: 2, deliveryAttempts: 1 };
  test('queue mode\'s values when queue mode contacted the partition (even when null)', () => {
    assert.equal(retryCount([a, qmView, b]), 1);
    assert.equal(leaseExpiry([a, qmView, b]), null);
  });
  test('otherwise the highest retry count and the latest expiry over the groups', () => {
    assert.equal(retryCount([a, b]), 4);
    assert.equal(leaseExpiry([a, b]), '2026-08-02T10:00:00.000Z');
  });
  test('no groups: 0 and null', () => {
    assert.equal(retryCount([]), 0);
    assert.equal(leaseExpiry([]), null);
  });
});

test('isMessageStatus accepts exactly the four states', () => {
  assert.deepEqual(['pending', 'processing', 'completed', 'dead_letter', 'failed', 'Pending', ''].map(isMessageStatus), [true, true, true, true, false, false, false]);
});
