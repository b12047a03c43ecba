/**
 * Durability across broker restarts (docs/api.md 2.1 rule 9, 4.4 rule 5, docs/architecture.md): all state lives in
 * PostgreSQL, and a 201 is only sent after the commit, so neither a clean stop nor a SIGKILL loses anything
 * that was acknowledged to a client.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';

let db: TestDatabase;
const started: BrokerProcess[] = [];

before(async () => {
  db = await createDatabase();
});
after(async () => {
  for (const b of started) await b.kill();
  await db?.close();
});

async function start(): Promise<BrokerProcess> {
  const b = await startBroker(db);
  started.push(b);
  return b;
}

/** Pops everything deliverable in queue mode with autoAck, across partitions. */
async function drain(api: ReturnType<typeof client>, queue: string): Promise<any[]> {
  const all: any[] = [];
  for (let i = 0; i < 100; i++) {
    const res = await api.get(`/api/v1/pop/queue/${encodeURIComponent(queue)}?batch=10000&partitions=0&autoAck=true`);
    if (res.status === 204) return all;
    assert.equal(res.status, 200, res.text);
    all.push(...res.json.messages);
  }
  throw new Error('drain did not finish');
}

test('messages, cursors, leases, configuration and dedup state survive a SIGTERM restart', async () => {
  const first = await start();
  let api = client(first.url);
  const queue = uniqueQueue('restart');
  const configured = await api.post('/api/v1/configure', { queue, options: { leaseTime: 200, retryLimit: 7 } });
  assert.equal(configured.status, 200);
  const pushed = await api.push([
    { queue, partition: 'p1', payload: { n: 1 }, transactionId: 't1' },
    { queue, partition: 'p1', payload: { n: 2 }, transactionId: 't2' },
    { queue, partition: 'p1', payload: { n: 3 }, transactionId: 't3' },
    { queue, partition: 'p2', payload: { n: 4 }, transactionId: 't4' },
  ]);
  assert.ok(pushed.json.every((r: any) => r.status === 'queued'));
  // Queue mode consumed t1 (autoAck); t4 is leased; group g has not started.
  const consumed = await api.get(`/api/v1/pop/queue/${queue}/partition/p1?autoAck=true`);
  assert.deepEqual(consumed.json.messages.map((m: any) => m.transactionId), ['t1']);
  const leased = await api.get(`/api/v1/pop/queue/${queue}/partition/p2`);
  assert.deepEqual(leased.json.messages.map((m: any) => m.transactionId), ['t4']);
  const groupView = await api.get(`/api/v1/pop/queue/${queue}/partition/p1?consumerGroup=g&batch=10&autoAck=true`);
  assert.equal(groupView.status, 200);
  const originals = new Map<string, any>(groupView.json.messages.map((m: any) => [m.transactionId, m]));
  assert.equal(originals.size, 3);

  await first.stop();
  const second = await start();
  api = client(second.url);

  // The queue-mode cursor is where it was: t2, t3 come next, byte-identical to before the restart.
  const p1 = await api.get(`/api/v1/pop/queue/${queue}/partition/p1?batch=10&autoAck=true`);
  assert.equal(p1.status, 200);
  assert.deepEqual(p1.json.messages.map((m: any) => m.transactionId), ['t2', 't3']);
  for (const m of p1.json.messages) {
    const o = originals.get(m.transactionId);
    assert.deepEqual([m.id, m.data, m.createdAt, m.partitionId, m.traceId], [o.id, o.data, o.createdAt, o.partitionId, o.traceId]);
  }
  // The lease on p2 is still held, and still ackable with its id.
  const p2 = await api.get(`/api/v1/pop/queue/${queue}/partition/p2`);
  assert.equal(p2.status, 204);
  assert.equal(p2.headers.get('x-queen-empty-reason'), 'leased');
  const ack = await api.post('/api/v1/ack', { transactionId: 't4', partitionId: leased.json.partitionId, leaseId: leased.json.leaseId });
  assert.equal(ack.json[0].success, true, ack.text);
  assert.equal(ack.json[0].leaseReleased, true);
  assert.equal((await api.get(`/api/v1/pop/queue/${queue}/partition/p2`)).status, 204);
  // Configuration and deduplication state.
  const detail = await api.get(`/api/v1/resources/queues/${queue}`);
  assert.equal(detail.json.config.leaseTime, 200);
  assert.equal(detail.json.config.retryLimit, 7);
  assert.equal(detail.json.id, configured.json.queueId);
  const dup = await api.push([{ queue, partition: 'p1', payload: 'again', transactionId: 't2' }]);
  assert.deepEqual(dup.json, [{ index: 0, transaction_id: 't2', status: 'duplicate', message_id: originals.get('t2').id, queueName: queue }]);
  // Group g's cursor survived too: nothing left for it.
  assert.equal((await api.get(`/api/v1/pop/queue/${queue}/partition/p1?consumerGroup=g&autoAck=true`)).status, 204);
  await second.stop();
});

test('SIGKILL right after the 201s loses none of 50 acknowledged messages', async () => {
  const broker = await start();
  const api = client(broker.url);
  const queue = uniqueQueue('kill9');
  const writers = 10;
  const perWriter = 5;
  const acknowledged = new Map<string, string>();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let s = 0; s < perWriter; s++) {
        const tx = `w${w}-s${s}`;
        const res = await api.push([{ queue, partition: `part-${w % 3}`, payload: { w, s }, transactionId: tx }]);
        assert.equal(res.status, 201);
        assert.equal(res.json[0].status, 'queued');
        acknowledged.set(tx, res.json[0].message_id);
      }
    }),
  );
  await broker.kill();
  assert.equal(acknowledged.size, 50);

  const restarted = await start();
  const messages = await drain(client(restarted.url), queue);
  assert.equal(messages.length, 50);
  const seen = new Map<string, number>();
  for (const m of messages) seen.set(m.transactionId, (seen.get(m.transactionId) ?? 0) + 1);
  for (const [tx, id] of acknowledged) {
    assert.equal(seen.get(tx), 1, `${tx} must be delivered exactly once`);
    assert.equal(messages.find((m) => m.transactionId === tx).id, id);
  }
  // Per writer, the send order is the delivery order.
  for (let w = 0; w < writers; w++) {
    const order = messages.filter((m) => m.data.w === w).map((m) => m.data.s);
    assert.deepEqual(order, [0, 1, 2, 3, 4], `writer ${w}`);
  }
  await restarted.stop();
});

test('SIGKILL in the middle of a push stream: acknowledged messages survive, client retries do not duplicate', async () => {
  const broker = await start();
  const api = client(broker.url);
  const queue = uniqueQueue('kill9-stream');
  const writers = 4;
  const acknowledged = new Map<string, string>();
  const inFlight = new Map<number, string>();
  let stop = false;
  let killed: Promise<void> | null = null;
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let s = 0; !stop; s++) {
        const tx = `w${w}-s${s}`;
        inFlight.set(w, tx);
        let res;
        try {
          res = await api.push([{ queue, payload: { w, s }, transactionId: tx }]);
        } catch {
          return; // the broker died under this request: unknown outcome
        }
        if (res.status !== 201) return;
        assert.equal(res.json[0].status, 'queued');
        acknowledged.set(tx, res.json[0].message_id);
        inFlight.delete(w);
        if (acknowledged.size >= 80 && killed === null) {
          stop = true;
          killed = broker.kill();
        }
      }
    }),
  );
  await killed;
  assert.ok(acknowledged.size >= 80);

  const restarted = await start();
  const restartedApi = client(restarted.url);
  const messages = await drain(restartedApi, queue);
  const ids = messages.map((m) => m.id);
  assert.equal(new Set(ids).size, ids.length, 'no message delivered twice');
  const delivered = new Map<string, string>(messages.map((m) => [m.transactionId, m.id]));
  for (const [tx, id] of acknowledged) assert.equal(delivered.get(tx), id, `acknowledged ${tx} lost`);
  // Anything else delivered can only be a request that was in flight at the kill.
  const unknown = [...delivered.keys()].filter((tx) => !acknowledged.has(tx));
  for (const tx of unknown) assert.ok([...inFlight.values()].includes(tx), `${tx} was never sent`);
  for (let w = 0; w < writers; w++) {
    const order = messages.filter((m) => m.data.w === w).map((m) => m.data.s);
    assert.deepEqual(order, Array.from({ length: order.length }, (_, i) => i), `writer ${w}: a gap or reordering`);
  }

  // The client retries its in-flight requests: each one ends up stored exactly once.
  for (const [w, tx] of inFlight) {
    const s = Number(tx.split('-s')[1]);
    const retry = await restartedApi.push([{ queue, payload: { w, s }, transactionId: tx }]);
    assert.equal(retry.status, 201);
    if (delivered.has(tx)) {
      assert.equal(retry.json[0].status, 'duplicate');
      assert.equal(retry.json[0].message_id, delivered.get(tx));
    } else {
      assert.equal(retry.json[0].status, 'queued');
    }
  }
  const retried = await drain(restartedApi, queue);
  assert.deepEqual(retried.map((m) => m.transactionId).sort(),
    [...inFlight.values()].filter((tx) => !delivered.has(tx)).sort());
  await restarted.stop();
});
