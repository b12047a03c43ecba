/**
 * The dead-letter queue (docs/api.md 7.4, 7.5, 9.1): the listing (shape, every filter, newest failure first,
 * pagination and total), requeue (`.../retry`: a new message every group receives, DLQ entries removed, wake),
 * and the operator's move to the DLQ (`.../dlq`: head only, exact failure texts, lease release).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';
import { messaging, MILLIS_Z, QUEUE_MODE, UUID_V7 } from '../support/messaging.js';

let fx: ReturnType<typeof messaging>;
// Re-check ticks 20 s apart: a parked pop that answers at once was woken by the commit.
const setup = useBroker({ POP_WAIT_INITIAL_INTERVAL_MS: '20000', POP_WAIT_MAX_INTERVAL_MS: '20000' }, ({ api, db }) => {
  fx = messaging(api, db);
});

const ENTRY_KEYS = ['id', 'transactionId', 'partitionId', 'queue', 'partition', 'consumerGroup', 'errorMessage', 'retryCount', 'data',
  'producerSub', 'createdAt', 'failedAt'];

async function dlq(query: string): Promise<any> {
  const res = await setup.api.get(`/api/v1/dlq?${query}`);
  assert.equal(res.status, 200, res.text);
  return res.json;
}

const retryPath = (pid: string, txn: string): string => `/api/v1/messages/${pid}/${encodeURIComponent(txn)}/retry`;
const movePath = (pid: string, txn: string): string => `/api/v1/messages/${pid}/${encodeURIComponent(txn)}/dlq`;

/** Pops the head of a partition for a group and acks it with status dlq and the given error text. */
async function deadLetter(queue: string, partition: string, pid: string, txn: string, group: string, error: string): Promise<void> {
  const held = await fx.popOk(queue, partition, group === QUEUE_MODE ? '' : `consumerGroup=${group}`);
  assert.equal(held.messages[0].transactionId, txn);
  const r = await fx.ack({ transactionId: txn, partitionId: pid, leaseId: held.leaseId, consumerGroup: group, status: 'dlq', error });
  assert.equal(r.dlq, true);
}

describe('GET /api/v1/dlq', () => {
  // Four DLQ events: (a/p1 m-1, queue mode), (a/p1 m-1, g1), (a/p2 n-1, queue mode), (b/Default b-1, g1), failed at
  // 10:00, 11:00, 12:00 and 13:00 on 2026-01-01.
  const a = uniqueQueue('dlq-a');
  const b = uniqueQueue('dlq-b');
  const ids = { p1: '', p2: '', b: '' };
  let traceId: string;

  before(async () => {
    traceId = randomUUID();
    const pushed = await setup.api.push([{ queue: a, partition: 'p1', transactionId: 'm-1', payload: { order: 7 }, traceId }]);
    ids.p1 = pushed.json[0].partition_id;
    ids.p2 = await fx.push(a, 'p2', 1, 'n');
    ids.b = await fx.push(b, 'Default', 1, 'b');
    await deadLetter(a, 'p1', ids.p1, 'm-1', QUEUE_MODE, 'e-qm');
    await deadLetter(a, 'p1', ids.p1, 'm-1', 'g1', 'e-g1');
    await deadLetter(a, 'p2', ids.p2, 'n-1', QUEUE_MODE, 'e-n');
    await deadLetter(b, 'Default', ids.b, 'b-1', 'g1', 'e-b');
    const times: Array<[string, string, string]> = [[ids.p1, QUEUE_MODE, '10:00'], [ids.p1, 'g1', '11:00'], [ids.p2, QUEUE_MODE, '12:00'], [ids.b, 'g1', '13:00']];
    for (const [pid, group, time] of times) {
      await setup.db.query(`UPDATE queen.dead_letters SET failed_at = $3::timestamptz WHERE partition_id = $1 AND consumer_group = $2`, [pid, group, `2026-01-01T${time}:00Z`]);
    }
  });

  test('shape of an entry: message id, data from the payload, segment createdAt, failedAt; total and pagination', async () => {
    const body = await dlq(`queue=${a}&partition=p1&consumerGroup=g1`);
    assert.deepEqual(Object.keys(body), ['messages', 'total', 'pagination']);
    assert.equal(body.total, 1);
    assert.deepEqual(body.pagination, { limit: 100, offset: 0 });
    const [entry] = body.messages;
    assert.deepEqual(Object.keys(entry), ENTRY_KEYS);
    assert.match(entry.id, UUID_V7);
    assert.match(entry.createdAt, MILLIS_Z);
    assert.deepEqual(entry, {
      id: entry.id, transactionId: 'm-1', partitionId: ids.p1, queue: a, partition: 'p1', consumerGroup: 'g1', errorMessage: 'e-g1',
      retryCount: 0, data: { order: 7 }, producerSub: null, createdAt: entry.createdAt, failedAt: '2026-01-01T11:00:00.000Z',
    });
    const popped = await setup.api.get(`/api/v1/messages/${ids.p1}/m-1`);
    assert.equal(popped.json.id, entry.id);
  });

  test('one entry per DLQ event, newest failure first', async () => {
    const body = await dlq(`queue=${a}`);
    assert.equal(body.total, 3);
    assert.deepEqual(body.messages.map((m: any) => [m.transactionId, m.consumerGroup, m.failedAt]), [
      ['n-1', QUEUE_MODE, '2026-01-01T12:00:00.000Z'],
      ['m-1', 'g1', '2026-01-01T11:00:00.000Z'],
      ['m-1', QUEUE_MODE, '2026-01-01T10:00:00.000Z'],
    ]);
  });

  test('every filter is honoured, alone and combined', async () => {
    const keys = async (query: string) => (await dlq(query)).messages.map((m: any) => `${m.queue === a ? 'a' : 'b'}:${m.transactionId}:${m.consumerGroup}`);
    assert.deepEqual(await keys(`queue=${b}`), [`b:b-1:g1`]);
    assert.deepEqual(await keys(`queue=${a}&consumerGroup=${QUEUE_MODE}`), [`a:n-1:${QUEUE_MODE}`, `a:m-1:${QUEUE_MODE}`]);
    assert.deepEqual(await keys(`consumerGroup=g1&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z`), ['b:b-1:g1', 'a:m-1:g1']);
    assert.deepEqual(await keys(`queue=${a}&partition=p2`), [`a:n-1:${QUEUE_MODE}`]);
    assert.deepEqual(await keys(`partition=p2&from=2026-01-01T12:00:00Z&to=2026-01-01T12:00:00Z`), [`a:n-1:${QUEUE_MODE}`], 'bounds are inclusive');
    assert.deepEqual(await keys(`queue=${a}&from=2026-01-01T10:30:00Z`), [`a:n-1:${QUEUE_MODE}`, 'a:m-1:g1']);
    assert.deepEqual(await keys(`queue=${a}&to=${encodeURIComponent('2026-01-01T12:30:00+01:00')}`), ['a:m-1:g1', `a:m-1:${QUEUE_MODE}`]);
    assert.deepEqual(await keys(`queue=${a}&from=not-a-date`), [`a:n-1:${QUEUE_MODE}`, 'a:m-1:g1', `a:m-1:${QUEUE_MODE}`], 'an invalid bound counts as absent');
    assert.deepEqual(await keys(`queue=${a}&consumerGroup=nobody`), []);
    const none = await dlq(`queue=${uniqueQueue('dlq-none')}`);
    assert.deepEqual(none, { messages: [], total: 0, pagination: { limit: 100, offset: 0 } });
  });

  test('pagination: limit and offset page the filtered rows, total counts them all', async () => {
    const page = await dlq(`queue=${a}&limit=1&offset=1`);
    assert.deepEqual([page.total, page.pagination], [3, { limit: 1, offset: 1 }]);
    assert.deepEqual(page.messages.map((m: any) => [m.transactionId, m.consumerGroup]), [['m-1', 'g1']]);
    const past = await dlq(`queue=${a}&limit=2&offset=3`);
    assert.deepEqual([past.messages, past.total], [[], 3]);
    assert.deepEqual((await dlq(`queue=${a}&limit=5000`)).pagination, { limit: 1000, offset: 0 });
    assert.deepEqual((await dlq(`queue=${a}&limit=0&offset=-4`)).pagination, { limit: 100, offset: 0 });
  });

  test('requeue: a new message with the same data and traceId for every group; DLQ entries removed', async () => {
    const res = await setup.api.post(retryPath(ids.p1, 'm-1'));
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json), ['success', 'partitionId', 'transactionId', 'newTransactionId', 'messageId', 'dlqEntriesRemoved']);
    const { newTransactionId, messageId } = res.json;
    assert.match(newTransactionId, UUID_V7);
    assert.match(messageId, UUID_V7);
    assert.deepEqual(res.json, { success: true, partitionId: ids.p1, transactionId: 'm-1', newTransactionId, messageId, dlqEntriesRemoved: 2 });
    assert.equal((await dlq(`queue=${a}&partition=p1`)).total, 0);
    assert.deepEqual(await fx.retained(ids.p1), ['m-1', newTransactionId], 'the original stays; the copy is at the tail');

    for (const params of ['', 'consumerGroup=g1']) {
      const popped = await fx.popOk(a, 'p1', params);
      assert.deepEqual(popped.messages.map((m: any) => [m.id, m.transactionId, m.data, m.traceId]), [[messageId, newTransactionId, { order: 7 }, traceId]]);
    }
    const again = await setup.api.post(retryPath(ids.p1, 'm-1'), '');
    assert.deepEqual(again.json, { success: false, error: 'Message is not in the DLQ' });
    assert.equal(again.headers.get('x-queen-status'), null);
  });
});

describe('POST /api/v1/messages/:partitionId/:transactionId/retry', () => {
  test('a missing message or malformed partition id: {success:false, error:"Message not found"} + X-Queen-Status 404', async () => {
    const queue = uniqueQueue('rq-miss');
    const pid = await fx.push(queue, 'Default', 1);
    for (const path of [retryPath(pid, 'nope'), retryPath(randomUUID(), 'm-1'), retryPath('nope', 'm-1')]) {
      const res = await setup.api.post(path, { ignored: true });
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, { success: false, error: 'Message not found' });
      assert.equal(res.headers.get('x-queen-status'), '404');
    }
    assert.deepEqual((await setup.api.post(retryPath(pid, 'm-1'))).json, { success: false, error: 'Message is not in the DLQ' });
  });

  test('concurrent requeues of one message push exactly one copy', async () => {
    const queue = uniqueQueue('rq-race');
    const pid = await fx.push(queue, 'Default', 1);
    await deadLetter(queue, 'Default', pid, 'm-1', QUEUE_MODE, 'x');
    const answers = await Promise.all(Array.from({ length: 8 }, () => setup.api.post(retryPath(pid, 'm-1'))));
    const outcomes = answers.map((r) => (r.json.success === true ? 'requeued' : r.json.error)).sort();
    assert.deepEqual(outcomes, [...Array(7).fill('Message is not in the DLQ'), 'requeued']);
    assert.equal((await fx.retained(pid)).length, 2);
  });

  test('the requeued message wakes a parked pop at once', async () => {
    const queue = uniqueQueue('rq-wake');
    const pid = await fx.push(queue, 'Default', 1);
    await deadLetter(queue, 'Default', pid, 'm-1', QUEUE_MODE, 'x');
    // A named group subscribing from now writes its subscription record on its first attempt, then parks.
    const parked = setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=late&subscriptionMode=new&wait=true&timeout=15000`);
    await fx.until('the first attempt of the parked pop', async () => (await setup.db.query(`SELECT 1 FROM queen.subscriptions WHERE consumer_group = 'late'`)).rowCount === 1);
    const requeued = Date.now();
    const res = await setup.api.post(retryPath(pid, 'm-1'));
    assert.equal(res.json.success, true);
    const popped = await parked;
    assert.equal(popped.status, 200);
    assert.equal(popped.json.messages[0].transactionId, res.json.newTransactionId);
    assert.ok(Date.now() - requeued < 5000, 'the pop was answered by the wake, not by its 20 s re-check');
  });
});

describe('POST /api/v1/messages/:partitionId/:transactionId/dlq', () => {
  test('only the head moves; the cursor passes it, the retry counter resets, the entry keeps its count and text', async () => {
    const queue = uniqueQueue('mv');
    const pid = await fx.push(queue, 'Default', 3);
    const held = await fx.popOk(queue);
    await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: held.leaseId, status: 'failed' });
    assert.deepEqual((await setup.api.post(movePath(pid, 'm-2'))).json, { success: false, error: 'Message is not at the head of the consumer group' });

    const moved = await setup.api.post(movePath(pid, 'm-1'), { error: 'operator says no' });
    assert.equal(moved.status, 200);
    assert.deepEqual(moved.json, { success: true, partitionId: pid, transactionId: 'm-1', consumerGroup: QUEUE_MODE, dlq: true });
    assert.deepEqual(await fx.cursor(pid), { committed: 1, retry_count: 0, lease_id: null, live: false });
    assert.deepEqual(await fx.deadLetters(pid), [{ consumer_group: QUEUE_MODE, transaction_id: 'm-1', error_message: 'operator says no', retry_count: 1 }]);
    assert.deepEqual((await setup.api.post(movePath(pid, 'm-1'))).json, { success: false, error: 'Message already consumed by this consumer group' });
    assert.deepEqual((await fx.popOk(queue)).messages.map((m: any) => m.transactionId), ['m-2']);
  });

  test('a named group, never contacted: default error text, the group\'s own cursor; other groups unaffected', async () => {
    const queue = uniqueQueue('mv-group');
    const pid = await fx.push(queue, 'Default', 2);
    const moved = await setup.api.post(movePath(pid, 'm-1'), { consumerGroup: 'billing' });
    assert.deepEqual(moved.json, { success: true, partitionId: pid, transactionId: 'm-1', consumerGroup: 'billing', dlq: true });
    assert.deepEqual(await fx.deadLetters(pid), [{ consumer_group: 'billing', transaction_id: 'm-1', error_message: 'Moved to DLQ by operator', retry_count: 0 }]);
    assert.equal((await fx.cursor(pid, 'billing'))!.committed, 1);
    assert.equal(await fx.cursor(pid), undefined, 'queue mode was not contacted');
    assert.deepEqual((await fx.popOk(queue, undefined, 'consumerGroup=billing')).messages.map((m: any) => m.transactionId), ['m-2']);
    assert.deepEqual((await fx.popOk(queue)).messages.map((m: any) => m.transactionId), ['m-1']);
  });

  test('a failed move has no side effect: a never-contacted group stays uncontacted', async () => {
    const queue = uniqueQueue('mv-clean');
    const pid = await fx.push(queue, 'Default', 2);
    assert.equal((await setup.api.post(movePath(pid, 'm-2'), { consumerGroup: 'ghost' })).json.error, 'Message is not at the head of the consumer group');
    assert.equal(await fx.cursor(pid, 'ghost'), undefined);
  });

  test('a live lease is released when its span is settled, and kept otherwise', async () => {
    const queue = uniqueQueue('mv-lease');
    const pid = await fx.push(queue, 'Default', 3);
    const wide = await fx.popOk(queue, undefined, 'batch=2');
    await setup.api.post(movePath(pid, 'm-1'));
    assert.deepEqual(await fx.cursor(pid), { committed: 1, retry_count: 0, lease_id: wide.leaseId, live: true });
    await fx.popEmpty(queue);
    assert.equal((await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: wide.leaseId })).success, true, 'C3: already settled');
    await setup.api.post(movePath(pid, 'm-2'));
    assert.deepEqual(await fx.cursor(pid), { committed: 2, retry_count: 0, lease_id: null, live: false });
    assert.deepEqual((await fx.popOk(queue)).messages.map((m: any) => m.transactionId), ['m-3']);
  });

  test('missing message or malformed partition id: {success:false, error:"Message not found"} + X-Queen-Status 404', async () => {
    for (const path of [movePath(randomUUID(), 'm-1'), movePath('bad', 'm-1')]) {
      const res = await setup.api.post(path);
      assert.deepEqual([res.status, res.json, res.headers.get('x-queen-status')], [200, { success: false, error: 'Message not found' }, '404']);
    }
  });

  test('moved, then requeued: the message is delivered again', async () => {
    const queue = uniqueQueue('mv-requeue');
    const pid = await fx.push(queue, 'Default', 1);
    await setup.api.post(movePath(pid, 'm-1'));
    await fx.popEmpty(queue);
    const requeued = await setup.api.post(retryPath(pid, 'm-1'));
    assert.equal(requeued.json.dlqEntriesRemoved, 1);
    const popped = await fx.popOk(queue);
    assert.deepEqual(popped.messages.map((m: any) => [m.transactionId, m.data]), [[requeued.json.newTransactionId, { n: 1 }]]);
  });
});
