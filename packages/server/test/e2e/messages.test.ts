/**
 * The message routes (docs/api.md 7.4): listing (shape, order, every filter, status semantics, mode, pagination),
 * detail (payload, per-group state, DLQ error, queueConfig, misses), and delete (the offset stays and pops
 * skip it, the transactionId is freed, DLQ entries and traces go).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';
import { messaging, MILLIS_Z, QUEUE_MODE } from '../support/messaging.js';

let fx: ReturnType<typeof messaging>;
const setup = useBroker({}, ({ api, db }) => {
  fx = messaging(api, db);
});

const LIST_KEYS = ['id', 'transactionId', 'partitionId', 'queuePath', 'queue', 'partition', 'namespace', 'task', 'status', 'queueStatus',
  'busStatus', 'traceId', 'producerSub', 'traceparent', 'tracestate', 'queuePriority', 'createdAt', 'leaseExpiresAt'];
const DETAIL_KEYS = ['id', 'transactionId', 'partitionId', 'queuePath', 'queue', 'partition', 'namespace', 'task', 'status', 'payload',
  'isEncrypted', 'traceId', 'producerSub', 'traceparent', 'tracestate', 'createdAt', 'errorMessage', 'retryCount', 'leaseExpiresAt', 'queueConfig', 'mode', 'consumerGroups'];
const NO_MODE = { hasQueueMode: false, busGroupsCount: 0, type: 'none' };

async function list(query: string): Promise<any> {
  const res = await setup.api.get(`/api/v1/messages?${query}`);
  assert.equal(res.status, 200, res.text);
  return res.json;
}

const txids = (body: any): string[] => body.messages.map((m: any) => m.transactionId);
const detailPath = (pid: string, txn: string): string => `/api/v1/messages/${pid}/${encodeURIComponent(txn)}`;

async function detail(pid: string, txn: string): Promise<any> {
  const res = await setup.api.get(detailPath(pid, txn));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers.get('x-queen-status'), null, res.text);
  return res.json;
}

/** Moves the createdAt of a partition's segments (seconds ago): a way to place messages in time. */
async function age(pid: string, secondsAgo: number): Promise<void> {
  await setup.db.query(`UPDATE queen.segments SET created_at = now() - make_interval(secs => $2) WHERE partition_id = $1`, [pid, secondsAgo]);
}

describe('GET /api/v1/messages', () => {
  test('shape, newest first, no payload; mode of the queue filter', async () => {
    const queue = uniqueQueue('ml-shape');
    const pushed = await setup.api.push([{ queue, partition: 'p1', transactionId: 'm-1', payload: { secret: 1 }, traceId: randomUUID().toUpperCase() }, { queue, partition: 'p1', transactionId: 'm-2' }]);
    const p2 = await fx.push(queue, 'p2', 1, 'n');
    const body = await list(`queue=${queue}`);
    assert.deepEqual(Object.keys(body), ['messages', 'mode', 'nextCursor']);
    assert.equal(body.nextCursor, null, 'the whole listing fits one page');
    assert.deepEqual(txids(body), ['n-1', 'm-2', 'm-1']);
    for (const m of body.messages) assert.deepEqual(Object.keys(m), LIST_KEYS);
    const m1 = body.messages[2];
    assert.match(m1.createdAt, MILLIS_Z);
    assert.deepEqual(m1, {
      id: pushed.json[0].message_id, transactionId: 'm-1', partitionId: pushed.json[0].partition_id, queuePath: `${queue}/p1`,
      queue, partition: 'p1', namespace: queue, task: '', status: 'pending', queueStatus: null,
      busStatus: { consumedBy: 0, totalGroups: 0 }, traceId: pushed.json[0].trace_id, producerSub: null, traceparent: null, tracestate: null, queuePriority: 0,
      createdAt: m1.createdAt, leaseExpiresAt: null,
    });
    assert.equal(body.messages[0].partitionId, p2);
    assert.deepEqual(body.mode, NO_MODE);
  });

  test('preview=N: the JSON text of each payload cut to N characters, whether it was cut, its size; a bad preview is a 400', async () => {
    const queue = uniqueQueue('ml-preview');
    const big = { blob: 'é'.repeat(300) };
    await setup.api.push([{ queue, partition: 'p1', transactionId: 'small', payload: { a: 1 } }, { queue, partition: 'p1', transactionId: 'big', payload: big }]);
    const body = await list(`queue=${queue}&preview=40`);
    for (const m of body.messages) assert.deepEqual(Object.keys(m), [...LIST_KEYS, 'payloadPreview', 'payloadTruncated', 'payloadBytes']);
    const [bigRow, smallRow] = body.messages;
    assert.deepEqual([smallRow.payloadPreview, smallRow.payloadTruncated, smallRow.payloadBytes], ['{"a":1}', false, 7]);
    const bigText = JSON.stringify(big);
    assert.deepEqual([bigRow.payloadPreview, bigRow.payloadTruncated, bigRow.payloadBytes], [bigText.slice(0, 40), true, Buffer.byteLength(bigText)]);
    // Without preview (or preview=0) the listing has no payload fields, as before.
    for (const m of (await list(`queue=${queue}&preview=0`)).messages) assert.deepEqual(Object.keys(m), LIST_KEYS);
    for (const bad of ['abc', '-1', '1001', '2.5']) {
      const res = await setup.api.get(`/api/v1/messages?queue=${queue}&preview=${bad}`);
      assert.equal(res.status, 400, bad);
      assert.deepEqual(res.json, { error: 'Invalid preview: must be an integer from 0 to 1000' });
    }
  });

  test('filters: partition, ns and namespace, task; without a queue filter mode is none', async () => {
    const ns = `ns${randomUUID().slice(0, 8)}`;
    await fx.push(`${ns}.alpha`, 'x', 1, 'a');
    await fx.push(`${ns}.alpha`, 'y', 1, 'b');
    await fx.push(`${ns}.beta.v2`, 'x', 1, 'c');
    assert.deepEqual(txids(await list(`ns=${ns}`)), ['c-1', 'b-1', 'a-1']);
    assert.deepEqual(txids(await list(`namespace=${ns}`)), ['c-1', 'b-1', 'a-1']);
    assert.deepEqual(txids(await list(`ns=${ns}&task=alpha`)), ['b-1', 'a-1']);
    assert.deepEqual(txids(await list(`ns=${ns}&partition=x`)), ['c-1', 'a-1']);
    assert.deepEqual(txids(await list(`queue=${ns}.alpha&partition=y`)), ['b-1']);
    const beta = (await list(`ns=${ns}&task=beta`)).messages[0];
    assert.deepEqual([beta.namespace, beta.task, beta.queuePath], [ns, 'beta', `${ns}.beta.v2/x`]);
    assert.deepEqual((await list(`ns=${ns}`)).mode, NO_MODE);
    assert.deepEqual(txids(await list(`queue=${ns}.missing`)), []);
  });

  test('time window: the last hour by default; from/to on createdAt; an invalid bound counts as absent', async () => {
    const queue = uniqueQueue('ml-window');
    const old = await fx.push(queue, 'old', 1, 'old');
    await age(old, 7200);
    await fx.push(queue, 'new', 1, 'new');
    assert.deepEqual(txids(await list(`queue=${queue}`)), ['new-1']);
    const threeHoursAgo = new Date(Date.now() - 3 * 3600_000).toISOString();
    assert.deepEqual(txids(await list(`queue=${queue}&from=${threeHoursAgo}`)), ['new-1', 'old-1']);
    const ninetyMinutesAgo = new Date(Date.now() - 90 * 60_000).toISOString();
    assert.deepEqual(txids(await list(`queue=${queue}&from=${threeHoursAgo}&to=${ninetyMinutesAgo}`)), ['old-1']);
    assert.deepEqual(txids(await list(`queue=${queue}&from=${encodeURIComponent('2000-01-01T00:00:00+02:00')}&to=${ninetyMinutesAgo}`)), ['old-1']);
    assert.deepEqual(txids(await list(`queue=${queue}&from=yesterday`)), ['new-1'], 'unparseable from -> default');
  });

  test('limit (default 200, at most 1000) and offset', async () => {
    const queue = uniqueQueue('ml-page');
    await setup.api.push(Array.from({ length: 1001 }, (_, i) => ({ queue, transactionId: `t-${i + 1}` })));
    assert.equal((await list(`queue=${queue}`)).messages.length, 200);
    assert.equal((await list(`queue=${queue}&limit=0`)).messages.length, 200);
    assert.equal((await list(`queue=${queue}&limit=5000`)).messages.length, 1000);
    assert.deepEqual(txids(await list(`queue=${queue}&limit=3`)), ['t-1001', 't-1000', 't-999']);
    assert.deepEqual(txids(await list(`queue=${queue}&limit=2&offset=999`)), ['t-2', 't-1']);
    assert.deepEqual(txids(await list(`queue=${queue}&limit=2&offset=1001`)), []);
  });

  test('queue mode: pending -> processing (with leaseExpiresAt) -> completed; dead_letter; the status filter', async () => {
    const queue = uniqueQueue('ml-qm');
    const pid = await fx.push(queue, 'Default', 4);
    const held = await fx.popOk(queue, undefined, 'batch=2');
    assert.equal((await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: held.leaseId })).success, true);
    const body = await list(`queue=${queue}`);
    const byTx = Object.fromEntries(body.messages.map((m: any) => [m.transactionId, m]));
    assert.deepEqual(['m-1', 'm-2', 'm-3', 'm-4'].map((t) => [byTx[t].status, byTx[t].queueStatus]), [
      ['completed', 'completed'], ['processing', 'processing'], ['pending', 'pending'], ['pending', 'pending'],
    ]);
    assert.match(byTx['m-2'].leaseExpiresAt, MILLIS_Z);
    assert.equal(byTx['m-3'].leaseExpiresAt, null);
    assert.deepEqual(body.mode, { hasQueueMode: true, busGroupsCount: 0, type: 'queue' });

    assert.equal((await fx.ack({ transactionId: 'm-2', partitionId: pid, leaseId: held.leaseId, status: 'dlq' })).dlq, true);
    assert.deepEqual(txids(await list(`queue=${queue}&status=dead_letter`)), ['m-2']);
    assert.deepEqual(txids(await list(`queue=${queue}&status=completed`)), ['m-1']);
    assert.deepEqual(txids(await list(`queue=${queue}&status=pending`)), ['m-4', 'm-3']);
    assert.deepEqual(txids(await list(`queue=${queue}&status=pending&limit=1&offset=1`)), ['m-3'], 'offset and limit count matches');
    assert.deepEqual(txids(await list(`queue=${queue}&status=processing`)), []);
    assert.deepEqual(txids(await list(`queue=${queue}&status=failed`)), [], 'an unknown status matches nothing');
  });

  test('bus groups: busStatus, the combined status, and the hybrid mode once queue mode joins', async () => {
    const queue = uniqueQueue('ml-bus');
    const pid = await fx.push(queue, 'Default', 2);
    const g1 = await fx.popOk(queue, undefined, 'consumerGroup=g1');
    assert.equal((await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: g1.leaseId, consumerGroup: 'g1' })).success, true);
    await fx.popOk(queue, undefined, 'consumerGroup=g2');
    let body = await list(`queue=${queue}`);
    assert.deepEqual(body.mode, { hasQueueMode: false, busGroupsCount: 2, type: 'bus' });
    const [m2, m1] = body.messages;
    assert.deepEqual([m1.status, m1.queueStatus, m1.busStatus], ['processing', null, { consumedBy: 1, totalGroups: 2 }]);
    assert.deepEqual([m2.status, m2.busStatus], ['pending', { consumedBy: 0, totalGroups: 2 }]);
    assert.match(m1.leaseExpiresAt, MILLIS_Z, 'g2 holds m-1');

    await fx.popOk(queue, undefined, 'autoAck=true&batch=2');
    body = await list(`queue=${queue}`);
    assert.deepEqual(body.mode, { hasQueueMode: true, busGroupsCount: 2, type: 'hybrid' });
    assert.deepEqual(body.messages.map((m: any) => [m.status, m.queueStatus]), [['completed', 'completed'], ['completed', 'completed']]);
    assert.equal(body.messages[1].leaseExpiresAt, null, 'queue mode\'s value wins: it holds no lease');
  });
});

describe('GET /api/v1/messages/:partitionId/:transactionId', () => {
  test('shape of a message nobody consumed yet', async () => {
    const queue = uniqueQueue('md-shape');
    await fx.configure(queue, { leaseTime: 45, retryLimit: 5, retryDelay: 10, ttl: 99, priority: 4 });
    const res = await setup.api.push([{ queue, transactionId: 'a/b c', payload: { deep: [1, { x: 'y' }] } }]);
    const pid = res.json[0].partition_id;
    const body = await detail(pid, 'a/b c');
    assert.deepEqual(Object.keys(body), DETAIL_KEYS);
    assert.match(body.createdAt, MILLIS_Z);
    assert.deepEqual(body, {
      id: res.json[0].message_id, transactionId: 'a/b c', partitionId: pid, queuePath: `${queue}/Default`, queue,
      partition: 'Default', namespace: queue, task: '', status: 'pending', payload: { deep: [1, { x: 'y' }] }, isEncrypted: false,
      traceId: null, producerSub: null, traceparent: null, tracestate: null, createdAt: body.createdAt, errorMessage: null, retryCount: 0, leaseExpiresAt: null,
      queueConfig: { leaseTime: 45, retryLimit: 5, retryDelay: 10, ttl: 99, priority: 4 },
      mode: { hasQueueMode: false, busGroupsCount: 0, consumedByGroups: 0, type: 'none' }, consumerGroups: [],
    });
    const pidUpper = await detail(pid.toUpperCase(), 'a/b c');
    assert.equal(pidUpper.id, body.id, 'partition ids compare case-insensitively');
  });

  test('queue mode after a failed ack and a redelivery: retry count, delivery attempts, lease expiry', async () => {
    const queue = uniqueQueue('md-retry');
    const pid = await fx.push(queue, 'Default', 2);
    const first = await fx.popOk(queue, undefined, 'batch=2');
    assert.equal((await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: first.leaseId, status: 'failed' })).leaseReleased, true);
    await fx.popOk(queue, undefined, 'batch=1');
    const head = await detail(pid, 'm-1');
    assert.equal(head.status, 'processing');
    assert.match(head.leaseExpiresAt, MILLIS_Z);
    assert.equal(head.retryCount, 1);
    assert.deepEqual(head.consumerGroups, [{ name: QUEUE_MODE, consumed: false, leaseExpiresAt: head.leaseExpiresAt, retryCount: 1, deliveryAttempts: 2 }]);
    assert.deepEqual(head.mode, { hasQueueMode: true, busGroupsCount: 0, consumedByGroups: 0, type: 'queue' });
    const second = await detail(pid, 'm-2');
    assert.deepEqual(second.consumerGroups, [{ name: QUEUE_MODE, consumed: false, leaseExpiresAt: null, retryCount: 0, deliveryAttempts: 2 }]);
    assert.equal(second.status, 'pending');
  });

  test('dead-lettered after the retry budget: errorMessage, the DLQ entry\'s count, consumed', async () => {
    const queue = uniqueQueue('md-dlq');
    await fx.configure(queue, { retryLimit: 1 });
    const pid = await fx.push(queue, 'Default', 1);
    for (const error of ['first', 'kaput']) {
      const held = await fx.popOk(queue);
      await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: held.leaseId, status: 'failed', error });
    }
    const body = await detail(pid, 'm-1');
    assert.deepEqual([body.status, body.errorMessage, body.retryCount, body.leaseExpiresAt], ['dead_letter', 'kaput', 1, null]);
    assert.deepEqual(body.consumerGroups, [{ name: QUEUE_MODE, consumed: true, leaseExpiresAt: null, retryCount: 1, deliveryAttempts: null }]);
  });

  test('named groups: one entry per group, consumedByGroups, highest retry and latest lease over groups', async () => {
    const queue = uniqueQueue('md-bus');
    const pid = await fx.push(queue, 'Default', 1);
    const a = await fx.popOk(queue, undefined, 'consumerGroup=a');
    await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: a.leaseId, consumerGroup: 'a' });
    const b = await fx.popOk(queue, undefined, 'consumerGroup=b&leaseSeconds=600');
    await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: b.leaseId, consumerGroup: 'b', status: 'failed' });
    await fx.popOk(queue, undefined, 'consumerGroup=b&leaseSeconds=600');
    const body = await detail(pid, 'm-1');
    const groups = Object.fromEntries(body.consumerGroups.map((g: any) => [g.name, g]));
    assert.deepEqual(Object.keys(groups).sort(), ['a', 'b']);
    assert.deepEqual(groups.a, { name: 'a', consumed: true, leaseExpiresAt: null, retryCount: 0, deliveryAttempts: null });
    assert.deepEqual({ ...groups.b, leaseExpiresAt: typeof groups.b.leaseExpiresAt }, { name: 'b', consumed: false, leaseExpiresAt: 'string', retryCount: 1, deliveryAttempts: 2 });
    assert.deepEqual([body.status, body.retryCount, body.leaseExpiresAt], ['processing', 1, groups.b.leaseExpiresAt]);
    assert.deepEqual(body.mode, { hasQueueMode: false, busGroupsCount: 2, consumedByGroups: 1, type: 'bus' });
  });

  test('misses answer 200 {"error":"Message not found"} with X-Queen-Status: 404, never a 500', async () => {
    const queue = uniqueQueue('md-miss');
    const pid = await fx.push(queue, 'Default', 1);
    for (const path of [detailPath(pid, 'nope'), detailPath(randomUUID(), 'm-1'), detailPath('not-a-uuid', 'm-1'), detailPath('%20', 'm-1'), detailPath(pid, 'm\u0000')]) {
      const res = await setup.api.get(path);
      assert.equal(res.status, 200, path);
      assert.deepEqual(res.json, { error: 'Message not found' });
      assert.equal(res.headers.get('x-queen-status'), '404');
    }
  });
});

describe('DELETE /api/v1/messages/:partitionId/:transactionId', () => {
  test('the offset stays and pops skip it; the transactionId is freed; neighbours keep their offsets', async () => {
    const queue = uniqueQueue('del');
    const pid = await fx.push(queue, 'Default', 4);
    const res = await setup.api.del(detailPath(pid, 'm-2'));
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { success: true, partitionId: pid, transactionId: 'm-2', message: 'Message deleted successfully' });
    assert.deepEqual(await fx.retained(pid), ['m-1', 'm-3', 'm-4']);

    const popped = await fx.popOk(queue, undefined, 'batch=10');
    assert.deepEqual(popped.messages.map((m: any) => [m.transactionId, m.data]), [['m-1', { n: 1 }], ['m-3', { n: 3 }], ['m-4', { n: 4 }]]);
    assert.equal((await fx.ack({ transactionId: 'm-3', partitionId: pid, leaseId: popped.leaseId })).success, true);
    assert.equal((await fx.cursor(pid))!.committed, 3, 'm-3 kept offset 3');
    const again = await setup.api.push([{ queue, transactionId: 'm-2', payload: 'back' }]);
    assert.equal(again.json[0].status, 'queued', 'the transactionId is free again');
    assert.equal((await fx.ack({ transactionId: 'm-4', partitionId: pid, leaseId: popped.leaseId })).leaseReleased, true);
    assert.deepEqual((await fx.popOk(queue)).messages.map((m: any) => [m.transactionId, m.data]), [['m-2', 'back']]);
    assert.equal((await detail(pid, 'm-2')).payload, 'back');
  });

  test('deleting a leased message: its ack misses, acks of its neighbours work as before', async () => {
    const queue = uniqueQueue('del-lease');
    const pid = await fx.push(queue, 'Default', 3);
    const held = await fx.popOk(queue, undefined, 'batch=3');
    await setup.api.del(detailPath(pid, 'm-3'));
    assert.equal((await fx.ack({ transactionId: 'm-3', partitionId: pid, leaseId: held.leaseId })).error, 'Message not found');
    await fx.ack({ transactionId: 'm-2', partitionId: pid, leaseId: held.leaseId });
    assert.deepEqual(await fx.cursor(pid), { committed: 2, retry_count: 0, lease_id: held.leaseId, live: true });
    await setup.api.del(detailPath(pid, 'm-1'));
    assert.equal((await detail(pid, 'm-2')).status, 'completed');
  });

  test('removes the message\'s DLQ entries and traces', async () => {
    const queue = uniqueQueue('del-dlq');
    const pid = await fx.push(queue, 'Default', 1);
    const held = await fx.popOk(queue);
    await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: held.leaseId, status: 'dlq' });
    const traced = await setup.api.post('/api/v1/traces', { transactionId: 'm-1', partitionId: pid, data: { step: 1 } });
    assert.equal(traced.status, 201, traced.text);
    assert.equal((await fx.deadLetters(pid)).length, 1);
    await setup.api.del(detailPath(pid, 'm-1'));
    assert.deepEqual(await fx.deadLetters(pid), []);
    assert.equal((await setup.api.get(`/api/v1/dlq?queue=${queue}`)).json.total, 0);
    const traces = await setup.db.query('SELECT count(*)::int AS n FROM queen.traces WHERE partition_id = $1', [pid]);
    assert.equal(traces.rows[0]!.n, 0);
  });

  test('a missing message or a malformed partition id: success false, "Message not found", X-Queen-Status 404', async () => {
    const queue = uniqueQueue('del-miss');
    const pid = await fx.push(queue, 'Default', 1);
    await setup.api.del(detailPath(pid, 'm-1'));
    for (const [p, t] of [[pid, 'm-1'], ['zzz', 'm-1'], [randomUUID(), 'x'], [pid, 'm\u0000']] as const) {
      const res = await setup.api.del(detailPath(p, t));
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, { success: false, partitionId: p, transactionId: t, message: 'Message not found' });
      assert.equal(res.headers.get('x-queen-status'), '404');
    }
  });
});
