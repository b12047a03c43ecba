/**
 * Several broker processes on one database (docs/api.md 2.1 rule 9, 5.15 rule 4): wakes cross processes through
 * LISTEN/NOTIFY, leases and acks are database state that every process honours.
 *
 * Both brokers re-check parked pops only every 5 s, so a delivery well under that can only come from the
 * cross-process wake.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { client, createDatabase, serverConnection, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase, type TestResponse } from '../support/harness.js';

const QUEUE_MODE = '__QUEUE_MODE__';
const SLOW_TICKS = { POP_WAIT_INITIAL_INTERVAL_MS: '5000', POP_WAIT_MAX_INTERVAL_MS: '5000' };

let db: TestDatabase;
let brokerA: BrokerProcess;
let brokerB: BrokerProcess;
let a: ReturnType<typeof client>;
let b: ReturnType<typeof client>;

before(async () => {
  db = await createDatabase();
  // Start one after the other: both run the migrations on the same database.
  brokerA = await startBroker(db, SLOW_TICKS);
  brokerB = await startBroker(db, SLOW_TICKS);
  a = client(brokerA.url);
  b = client(brokerB.url);
});
after(async () => {
  await Promise.all([brokerA?.stop(), brokerB?.stop()]);
  await db?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function txIds(res: TestResponse<any>, group = QUEUE_MODE): string[] {
  assert.equal(res.status, 200, `expected 200, got ${res.status} ${res.text}`);
  assert.equal(res.json.consumerGroup, group);
  return res.json.messages.map((m: any) => m.transactionId);
}

function assertEmpty(res: TestResponse<any>, reason: string): void {
  assert.equal(res.status, 204, `expected 204, got ${res.status} ${res.text}`);
  assert.equal(res.text, '');
  assert.equal(res.headers.get('x-queen-empty-reason'), reason);
}

async function pushVia(target: ReturnType<typeof client>, queue: string, ids: string[], partition = 'Default'): Promise<number> {
  const res = await target.push(ids.map((id) => ({ queue, partition, transactionId: id, payload: { id } })));
  assert.equal(res.status, 201, res.text);
  for (const r of res.json) assert.equal(r.status, 'queued', JSON.stringify(r));
  return Date.now();
}

/** Parks a pop on `parkOn`, pushes through `pushOn` after 300 ms; returns the push-to-delivery latency. */
async function crossWake(parkOn: ReturnType<typeof client>, pushOn: ReturnType<typeof client>, path: string, queue: string, id: string, group = QUEUE_MODE): Promise<number> {
  const start = Date.now();
  const parked = parkOn.get(path).then((res) => ({ res, doneAt: Date.now() }));
  await sleep(300);
  const pushedAt = await pushVia(pushOn, queue, [id]);
  const { res, doneAt } = await parked;
  assert.deepEqual(txIds(res, group), [id]);
  assert.ok(doneAt - start < 4000, `parked pop took ${doneAt - start} ms in total`);
  return doneAt - pushedAt;
}

test('a pop parked on broker B is woken by a push to broker A (and the other way round)', async () => {
  const latencies: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const queue = uniqueQueue('two-wake');
    assertEmpty(await b.get(`/api/v1/pop/queue/${queue}`), 'none');
    const ms = await crossWake(b, a, `/api/v1/pop/queue/${queue}?wait=true&timeout=10000`, queue, `ab-${i}`);
    latencies.push(ms);
    assert.ok(ms < 2000, `push on A -> delivery on B took ${ms} ms`);
  }
  console.log(`[wake-two-brokers] push on A -> parked pop on B, latencies after the push response: ${latencies.join(', ')} ms`);

  const reverse: number[] = [];
  for (let i = 0; i < 2; i += 1) {
    const queue = uniqueQueue('two-wake-rev');
    const ms = await crossWake(a, b, `/api/v1/pop/queue/${queue}?wait=true&timeout=10000&consumerGroup=g`, queue, `ba-${i}`, 'g');
    reverse.push(ms);
    assert.ok(ms < 2000, `push on B -> delivery on A took ${ms} ms`);
  }
  console.log(`[wake-two-brokers] push on B -> parked pop on A (queue created by the parked pop), latencies: ${reverse.join(', ')} ms`);
});

test('a discovery pop parked on broker B is woken by a push to broker A within its namespace', async () => {
  const ns = `twons${randomUUID().slice(0, 8)}`;
  const queue = `${ns}.task.q`;
  const ms = await crossWake(b, a, `/api/v1/pop?namespace=${ns}&wait=true&timeout=10000`, queue, 'disc-1');
  assert.ok(ms < 2000, `push on A -> discovery delivery on B took ${ms} ms`);
  console.log(`[wake-two-brokers] push on A -> parked discovery pop on B, latency: ${ms} ms`);
});

test('one push wakes parked pops on both brokers; each message is delivered once per group', async () => {
  const queue = uniqueQueue('two-both');
  const parkedA = a.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=10000&consumerGroup=ga&batch=10`).then((res) => ({ res, doneAt: Date.now() }));
  const parkedB = b.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=10000&consumerGroup=gb&batch=10`).then((res) => ({ res, doneAt: Date.now() }));
  await sleep(300);
  const pushedAt = await pushVia(a, queue, ['x1', 'x2']);
  const [ra, rb] = await Promise.all([parkedA, parkedB]);
  assert.deepEqual(txIds(ra.res, 'ga'), ['x1', 'x2']);
  assert.deepEqual(txIds(rb.res, 'gb'), ['x1', 'x2']);
  assert.ok(ra.doneAt - pushedAt < 2000 && rb.doneAt - pushedAt < 2000);
  console.log(`[wake-two-brokers] one push on A -> same-process pop ${ra.doneAt - pushedAt} ms, other-process pop ${rb.doneAt - pushedAt} ms`);
});

test('competing pops of one group on two brokers share the partition without duplicates', async () => {
  const queue = uniqueQueue('two-compete');
  const parkedA = a.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=3000&consumerGroup=g&batch=10`);
  const parkedB = b.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=3000&consumerGroup=g&batch=10`);
  await sleep(300);
  await pushVia(a, queue, ['c1', 'c2', 'c3']);
  const results = await Promise.all([parkedA, parkedB]);
  const winners = results.filter((r) => r.status === 200);
  assert.equal(winners.length, 1, 'one partition, one live lease: exactly one pop gets the batch');
  assert.deepEqual(txIds(winners[0]!, 'g'), ['c1', 'c2', 'c3']);
  const loser = results.find((r) => r.status !== 200)!;
  assertEmpty(loser, 'timeout');
});

test('a lease taken through broker A is respected by broker B', async () => {
  const queue = uniqueQueue('two-lease');
  await pushVia(a, queue, ['l1', 'l2'], 'P');
  const taken = await a.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&batch=1`);
  assert.deepEqual(txIds(taken, 'g'), ['l1']);
  assertEmpty(await b.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&batch=10`), 'leased');
  assertEmpty(await b.get(`/api/v1/pop/queue/${queue}?consumerGroup=g&batch=10`), 'none');
  assertEmpty(await b.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&wait=true&timeout=500`), 'timeout');
  // Other groups are not blocked on B.
  assert.deepEqual(txIds(await b.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=h&batch=10`), 'h'), ['l1', 'l2']);
});

test('a message popped through broker A is acked through broker B', async () => {
  const queue = uniqueQueue('two-ack');
  await pushVia(a, queue, ['k1', 'k2'], 'P');
  const taken = await a.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&batch=1`);
  assert.deepEqual(txIds(taken, 'g'), ['k1']);
  const ack = await b.post('/api/v1/ack', { transactionId: 'k1', partitionId: taken.json.partitionId, leaseId: taken.json.leaseId, consumerGroup: 'g' });
  assert.equal(ack.status, 200);
  assert.deepEqual(ack.json, [{ index: 0, transactionId: 'k1', success: true, error: null, queueName: queue, partitionName: 'P', leaseReleased: true, dlq: false }]);
  // The lease is gone and the cursor moved, whichever broker asks next.
  const next = await a.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&batch=10`);
  assert.deepEqual(txIds(next, 'g'), ['k2']);
  const rows = await db.query(
    `SELECT c.committed::int AS committed, c.lease_id::text AS lease_id FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
     JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND c.consumer_group = 'g'`,
    [queue],
  );
  assert.deepEqual(rows.rows, [{ committed: 1, lease_id: next.json.leaseId }]);
  // A lease released through B wakes a pop parked on A (retry ack).
  const parked = a.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&wait=true&timeout=10000`).then((res) => ({ res, doneAt: Date.now() }));
  await sleep(300);
  const retry = await b.post('/api/v1/ack', { transactionId: 'k2', partitionId: next.json.partitionId, leaseId: next.json.leaseId, consumerGroup: 'g', status: 'retry' });
  assert.equal(retry.json[0].success, true, retry.text);
  const releasedAt = Date.now();
  const { res, doneAt } = await parked;
  assert.deepEqual(txIds(res, 'g'), ['k2']);
  assert.ok(doneAt - releasedAt < 2000, `release on B -> redelivery on A took ${doneAt - releasedAt} ms`);
  console.log(`[wake-two-brokers] lease release on B -> parked pop on A, latency: ${doneAt - releasedAt} ms`);
});

test('one push commit sends one wake notification per queue to the other processes', async () => {
  // The NOTIFY channel is the broker's (queen_wake); the rule is docs/api.md 5.15 rule 4.
  const listener = new pg.Client(serverConnection(db.name));
  await listener.connect();
  const seen: string[] = [];
  listener.on('notification', (n) => {
    if (n.channel === 'queen_wake' && n.payload) seen.push(n.payload);
  });
  try {
    await listener.query('LISTEN queen_wake');
    const queue = uniqueQueue('two-notify');
    await pushVia(a, queue, Array.from({ length: 20 }, (_, i) => `n${i}`));
    await sleep(500);
    const forQueue = seen.filter((p) => {
      try {
        return JSON.parse(p).queue === queue;
      } catch {
        return p.includes(queue);
      }
    });
    assert.equal(forQueue.length, 1, `notifications for ${queue}: ${JSON.stringify(forQueue)}`);
  } finally {
    await listener.end();
  }
});
