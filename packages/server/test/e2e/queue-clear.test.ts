/**
 * DELETE /api/v1/queues/:queue/clear[?partition=<name>] (docs/api.md 7.3): every retained message of the queue (or
 * partition) goes with its DLQ entries and traces, live leases are released, cursors, subscriptions and
 * configuration stay, offsets keep growing, transactionIds are freed; misses answer with X-Queen-Status 404.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';
import { messaging, QUEUE_MODE } from '../support/messaging.js';

let fx: ReturnType<typeof messaging>;
const setup = useBroker({}, ({ api, db }) => {
  fx = messaging(api, db);
});

const clearPath = (queue: string, partition?: string): string =>
  `/api/v1/queues/${encodeURIComponent(queue)}/clear${partition === undefined ? '' : `?partition=${encodeURIComponent(partition)}`}`;

async function traceCount(pid: string): Promise<number> {
  const res = await setup.db.query('SELECT count(*)::int AS n FROM queen.traces WHERE partition_id = $1', [pid]);
  return res.rows[0]!.n as number;
}

test('clearing a queue deletes every message, DLQ entry and trace, releases leases, keeps cursors and config', async () => {
  const queue = uniqueQueue('clr');
  await fx.configure(queue, { leaseTime: 120, retryLimit: 7 });
  const p1 = await fx.push(queue, 'p1', 3);
  const p2 = await fx.push(queue, 'p2', 2, 'n');
  const held = await fx.popOk(queue, 'p1', 'batch=2');
  await fx.ack({ transactionId: 'm-1', partitionId: p1, leaseId: held.leaseId, status: 'dlq' });
  await setup.api.post('/api/v1/traces', { transactionId: 'n-1', partitionId: p2, data: { seen: true } });
  await fx.popOk(queue, 'p2', 'consumerGroup=g');
  assert.equal(await traceCount(p2), 1);

  const res = await setup.api.del(clearPath(queue));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-queen-status'), null);
  assert.deepEqual(res.json, { success: true, queue, partition: null, deletedMessages: 5 });

  assert.deepEqual(await fx.retained(p1), []);
  assert.deepEqual(await fx.retained(p2), []);
  assert.deepEqual(await fx.deadLetters(p1), []);
  assert.equal(await traceCount(p2), 0);
  assert.deepEqual(await fx.cursor(p1), { committed: 1, retry_count: 0, lease_id: null, live: false }, 'the cursor stays, the lease is released');
  assert.equal((await fx.cursor(p2, 'g'))!.live, false);
  assert.equal((await fx.cursor(p2, 'g'))!.committed, 0);
  assert.equal((await setup.api.get(`/api/v1/resources/queues/${queue}`)).json.config.retryLimit, 7, 'configuration stays');
  await fx.popEmpty(queue, 'p1');

  const again = await setup.api.push([{ queue, partition: 'p1', transactionId: 'm-2', payload: 'reused' }]);
  assert.equal(again.json[0].status, 'queued', 'freed transactionIds may be reused');
  assert.equal(again.json[0].partition_id, p1, 'the partition stays');
  const popped = await fx.popOk(queue, 'p1');
  assert.deepEqual(popped.messages.map((m: any) => [m.transactionId, m.data]), [['m-2', 'reused']]);
  await fx.ack({ transactionId: 'm-2', partitionId: p1, leaseId: popped.leaseId });
  assert.equal((await fx.cursor(p1))!.committed, 4, 'offsets keep growing after a clear');
});

test('clearing one partition leaves the others alone', async () => {
  const queue = uniqueQueue('clr-part');
  const p1 = await fx.push(queue, 'p1', 2);
  const p2 = await fx.push(queue, 'p2', 2, 'n');
  const res = await setup.api.del(clearPath(queue, 'p2'));
  assert.deepEqual(res.json, { success: true, queue, partition: 'p2', deletedMessages: 2 });
  assert.deepEqual(await fx.retained(p1), ['m-1', 'm-2']);
  assert.deepEqual(await fx.retained(p2), []);
  assert.deepEqual((await setup.api.del(clearPath(queue, 'p2'))).json, { success: true, queue, partition: 'p2', deletedMessages: 0 }, 'clearing twice is harmless');
});

test('clearing releases a live lease so the partition is claimable at once', async () => {
  const queue = uniqueQueue('clr-lease');
  const pid = await fx.push(queue, 'Default', 1);
  const held = await fx.popOk(queue, undefined, `consumerGroup=${QUEUE_MODE}&leaseSeconds=600`);
  await setup.api.del(clearPath(queue));
  await fx.push(queue, 'Default', 1, 'after');
  const next = await fx.popOk(queue);
  assert.notEqual(next.leaseId, held.leaseId);
  assert.deepEqual(next.messages.map((m: any) => m.transactionId), ['after-1']);
  assert.equal((await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: held.leaseId })).error, 'Message not found');
});

test('a missing queue or partition: {success:false, error} with X-Queen-Status 404; nothing is created', async () => {
  const missing = uniqueQueue('clr-missing');
  const res = await setup.api.del(clearPath(missing));
  assert.deepEqual([res.status, res.json, res.headers.get('x-queen-status')], [200, { success: false, error: 'Queue not found' }, '404']);
  assert.equal(await fx.queueExists(missing), false);

  const queue = uniqueQueue('clr-nopart');
  await fx.push(queue, 'p1', 1);
  const part = await setup.api.del(clearPath(queue, 'p9'));
  assert.deepEqual([part.status, part.json, part.headers.get('x-queen-status')], [200, { success: false, error: 'Partition not found' }, '404']);
  assert.deepEqual((await setup.api.del(clearPath(queue, ''))).json.partition, null, 'an empty partition value counts as absent');
  // A name PostgreSQL cannot store is refused at the edge with the field's text (issue 13 item 1).
  const nulPartition = await setup.api.del(clearPath(queue, 'p\u0000'));
  assert.deepEqual([nulPartition.status, nulPartition.json], [400, { error: 'Invalid partition name' }], 'a name that cannot exist');
  const nulQueue = await setup.api.del(clearPath('q\u0000'));
  assert.deepEqual([nulQueue.status, nulQueue.json], [400, { error: 'Invalid queue name' }]);
});

test('an empty queue clears with deletedMessages 0', async () => {
  const queue = uniqueQueue('clr-empty');
  await fx.configure(queue, {});
  assert.deepEqual((await setup.api.del(clearPath(queue))).json, { success: true, queue, partition: null, deletedMessages: 0 });
});
