/**
 * Pop basics (seed document; docs/api.md 5.1-5.6, 5.9, 5.12, 5.13): the exact 200 and 204 shapes, consumer
 * groups and queue mode, the batch budget, the partitions cap, the three routes, validation 400s and implicit
 * queue creation.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import {
  client,
  createDatabase,
  serverConnection,
  startBroker,
  uniqueQueue,
  useBroker,
  type BrokerProcess,
  type TestDatabase,
  type TestResponse,
} from '../support/harness.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const TOP_KEYS = ['success', 'queue', 'partition', 'partitionId', 'leaseId', 'consumerGroup', 'messages', 'partitionsClaimed'];
const MESSAGE_KEYS = ['id', 'transactionId', 'traceId', 'data', 'producerSub', 'createdAt', 'partitionId', 'partition', 'leaseId', 'consumerGroup'];
const QUEUE_MODE = '__QUEUE_MODE__';

/** Asserts the exact 200 pop shape and the invariants every 200 must keep; returns the body. */
function assertPopBody(res: TestResponse<any>, expect: { queue: string; group: string; autoAck?: boolean }): any {
  assert.equal(res.status, 200, `expected 200, got ${res.status} ${res.text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body: any = res.json;
  assert.deepEqual(Object.keys(body).sort(), [...TOP_KEYS].sort());
  assert.equal(body.success, true);
  assert.equal(body.queue, expect.queue);
  assert.equal(body.consumerGroup, expect.group);
  assert.ok(Array.isArray(body.messages) && body.messages.length >= 1, 'a 200 carries at least one message');
  if (expect.autoAck) assert.equal(body.leaseId, '');
  else assert.match(body.leaseId, UUID_V7);
  const first = body.messages[0];
  assert.equal(body.partition, first.partition);
  assert.equal(body.partitionId, first.partitionId);
  const seen: string[] = [];
  for (const m of body.messages) {
    assert.deepEqual(Object.keys(m).sort(), [...MESSAGE_KEYS].sort());
    assert.match(m.id, UUID_V7);
    assert.equal(typeof m.transactionId, 'string');
    assert.match(m.createdAt, CREATED_AT);
    assert.equal(m.leaseId, body.leaseId, 'every message carries the pop lease id');
    assert.equal(m.consumerGroup, expect.group);
    if (seen.length === 0 || seen[seen.length - 1] !== m.partitionId) {
      assert.ok(!seen.includes(m.partitionId), 'messages are grouped by partition');
      seen.push(m.partitionId);
    }
  }
  assert.equal(body.partitionsClaimed, seen.length);
  return body;
}

/** Asserts a bodiless 204 with the given X-Queen-Empty-Reason. */
function assertEmpty(res: TestResponse<any>, reason: string): void {
  assert.equal(res.status, 204, `expected 204, got ${res.status} ${res.text}`);
  assert.equal(res.text, '');
  assert.equal(res.headers.get('x-queen-empty-reason'), reason);
}

/** Asserts the pop-route 400 shape with an exact error text. */
function assertPopBadRequest(res: TestResponse<any>, error: string): void {
  assert.equal(res.status, 400, `expected 400, got ${res.status} ${res.text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(res.json, { success: false, error, messages: [] });
}

/** Recursively collects every key of a JSON value, skipping the user-controlled `data` values. */
function keysOutsideData(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) keysOutsideData(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      if (k !== 'data') keysOutsideData(v, out);
    }
  }
  return out;
}

const txIds = (body: any): string[] => body.messages.map((m: any) => m.transactionId);

const setup = useBroker();

/** Pushes one item per transaction id to one partition (one request); returns the push results. */
async function push(queue: string, partition: string, ids: string[], payload: (id: string) => unknown = (id) => ({ id })): Promise<any[]> {
  const res = await setup.api.push(ids.map((id) => ({ queue, partition, transactionId: id, payload: payload(id) })));
  assert.equal(res.status, 201, res.text);
  for (const r of res.json) assert.equal(r.status, 'queued', JSON.stringify(r));
  return res.json;
}

describe('200 response shape', () => {
  test('top-level and per-message fields are exactly the documented ones with the documented values', async () => {
    const queue = uniqueQueue('shape');
    const traceId = randomUUID().toUpperCase();
    const pushed = await setup.api.push([
      { queue, transactionId: 'order-1', traceId, payload: { orderId: 1, nested: { list: [1, 'two', null] } } },
      { queue, transactionId: 'order-2', payload: 'a plain string' },
      { queue, transactionId: 'order-3' },
    ]);
    assert.equal(pushed.status, 201, pushed.text);
    const partitionId = pushed.json[0].partition_id;

    const before = Date.now();
    const res = await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=billing&batch=10`);
    const body = assertPopBody(res, { queue, group: 'billing' });
    assert.equal(body.partition, 'Default');
    assert.equal(body.partitionId, partitionId);
    assert.equal(body.partitionsClaimed, 1);
    assert.equal(body.messages.length, 3);
    assert.deepEqual(body.messages[0], {
      id: pushed.json[0].message_id,
      transactionId: 'order-1',
      traceId: traceId.toLowerCase(),
      data: { orderId: 1, nested: { list: [1, 'two', null] } },
      producerSub: null,
      createdAt: body.messages[0].createdAt,
      partitionId,
      partition: 'Default',
      leaseId: body.leaseId,
      consumerGroup: 'billing',
    });
    assert.equal(body.messages[1].id, pushed.json[1].message_id);
    assert.equal(body.messages[1].traceId, null);
    assert.equal(body.messages[1].data, 'a plain string');
    assert.equal(body.messages[2].id, pushed.json[2].message_id);
    assert.equal(body.messages[2].data, null, 'an absent payload is delivered as null');

    // createdAt: the segment's, identical for every message of one push, truthful UTC with a literal Z.
    const createdAt = body.messages[0].createdAt;
    for (const m of body.messages) assert.equal(m.createdAt, createdAt);
    const createdMs = Date.parse(createdAt);
    assert.ok(Math.abs(createdMs - before) < 60_000, `createdAt ${createdAt} should be close to the local UTC clock`);
  });

  test('createdAt of a later push is not earlier than that of an earlier push', async () => {
    const queue = uniqueQueue('shape-order');
    await push(queue, 'Default', ['a']);
    await push(queue, 'Default', ['b']);
    const body = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10`), { queue, group: QUEUE_MODE });
    assert.deepEqual(txIds(body), ['a', 'b']);
    assert.ok(body.messages[0].createdAt <= body.messages[1].createdAt);
  });

  test('leaseId is one UUIDv7 per pop, shared by the top level and every message, across partitions', async () => {
    const queue = uniqueQueue('lease-shared');
    await push(queue, 'p1', ['a1', 'a2']);
    await push(queue, 'p2', ['b1', 'b2']);
    const first = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&partitions=0`), { queue, group: QUEUE_MODE });
    assert.equal(first.messages.length, 4);
    assert.equal(first.partitionsClaimed, 2);
    assert.equal(new Set(first.messages.map((m: any) => m.leaseId)).size, 1);
    assert.match(first.leaseId, UUID_V7);
    const stored = await setup.db.query(
      `SELECT DISTINCT c.lease_id::text AS lease_id FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
       JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1`,
      [queue],
    );
    assert.deepEqual(stored.rows, [{ lease_id: first.leaseId }]);

    const other = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&partitions=0&consumerGroup=g2`), { queue, group: 'g2' });
    assert.notEqual(other.leaseId, first.leaseId, 'each pop mints its own lease id');
  });

  test('no offset (or other undocumented field) appears anywhere in the response', async () => {
    const queue = uniqueQueue('no-offset');
    await push(queue, 'Default', ['x1', 'x2'], () => ({ offset: 'user data may say offset' }));
    const res = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10`);
    const body = assertPopBody(res, { queue, group: QUEUE_MODE });
    const keys = keysOutsideData(body);
    assert.ok(!keys.some((k) => /offset|position|attempt|retry|expires|status/i.test(k)), `unexpected keys: ${keys.join(',')}`);
    assert.deepEqual(body.messages[0].data, { offset: 'user data may say offset' });
  });
});

describe('consumer groups and queue mode', () => {
  test('omitted, empty and explicit __QUEUE_MODE__ consumerGroup are one group with one shared cursor', async () => {
    const queue = uniqueQueue('qmode');
    const pushed = await push(queue, 'Default', ['m1', 'm2', 'm3']);
    const partitionId = pushed[0].partition_id;
    const variants = ['', '&consumerGroup=', `&consumerGroup=${QUEUE_MODE}`];
    const delivered: string[] = [];
    for (const variant of variants) {
      const body = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=1${variant}`), { queue, group: QUEUE_MODE });
      assert.equal(body.messages.length, 1);
      delivered.push(body.messages[0].transactionId);
      // While the lease lives, every spelling of queue mode is blocked on the partition.
      for (const v of variants) {
        assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Default?batch=1${v}`), 'leased');
      }
      const ack = await setup.api.post('/api/v1/ack', { transactionId: body.messages[0].transactionId, partitionId, leaseId: body.leaseId });
      assert.equal(ack.status, 200);
      assert.equal(ack.json[0].success, true, ack.text);
    }
    assert.deepEqual(delivered, ['m1', 'm2', 'm3']);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}`), 'none');
    // Pop and ack never remove anything.
    const stored = await setup.db.query('SELECT count(*)::int AS n FROM queen.message_keys WHERE partition_id = $1', [partitionId]);
    assert.equal(stored.rows[0]!.n, 3);
    const cursors = await setup.db.query('SELECT consumer_group, committed::int AS committed FROM queen.cursors WHERE partition_id = $1', [partitionId]);
    assert.deepEqual(cursors.rows, [{ consumer_group: QUEUE_MODE, committed: 3 }]);
    // A named group still reads everything through its own cursor.
    const named = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&consumerGroup=late`), { queue, group: 'late' });
    assert.deepEqual(txIds(named), ['m1', 'm2', 'm3']);
  });

  test('named groups fan out: each group receives every message; queue mode too', async () => {
    const queue = uniqueQueue('fanout');
    await push(queue, 'Default', ['f1', 'f2', 'f3']);
    for (const group of ['alpha', 'beta']) {
      const body = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&consumerGroup=${group}`), { queue, group });
      assert.deepEqual(txIds(body), ['f1', 'f2', 'f3']);
    }
    const qm = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10`), { queue, group: QUEUE_MODE });
    assert.deepEqual(txIds(qm), ['f1', 'f2', 'f3']);
  });

  test('two consumers of one group compete: disjoint batches, nothing lost, nothing duplicated', async () => {
    const queue = uniqueQueue('compete');
    await push(queue, 'p1', ['a1', 'a2']);
    await push(queue, 'p2', ['b1', 'b2']);
    const one = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&consumerGroup=workers`), { queue, group: 'workers' });
    const two = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&consumerGroup=workers`), { queue, group: 'workers' });
    assert.equal(one.partitionsClaimed, 1);
    assert.equal(two.partitionsClaimed, 1);
    assert.notEqual(one.partitionId, two.partitionId);
    assert.deepEqual([...txIds(one), ...txIds(two)].sort(), ['a1', 'a2', 'b1', 'b2']);
    for (const body of [one, two]) {
      const ids = txIds(body);
      assert.ok(JSON.stringify(ids) === '["a1","a2"]' || JSON.stringify(ids) === '["b1","b2"]', `offset order within a partition: ${ids}`);
    }
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&consumerGroup=workers`), 'none');
  });
});

describe('batch budget and partitions cap', () => {
  test('batch is a total budget across partitions, consumed partition by partition', async () => {
    const queue = uniqueQueue('budget');
    const partitionIds = new Map<string, string>();
    for (const p of ['p1', 'p2', 'p3', 'p4']) {
      const r = await push(queue, p, [`${p}-1`, `${p}-2`, `${p}-3`]);
      partitionIds.set(r[0].partition_id, p);
    }
    const body = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=5&partitions=0`), { queue, group: QUEUE_MODE });
    assert.equal(body.messages.length, 5);
    // Grouped by partition; each partition's run is its head in offset order; the first run takes min(5, 3).
    const runs: { partition: string; ids: string[] }[] = [];
    for (const m of body.messages) {
      assert.equal(partitionIds.get(m.partitionId), m.partition, 'partition name matches its id');
      if (runs.length === 0 || runs[runs.length - 1]!.partition !== m.partition) runs.push({ partition: m.partition, ids: [] });
      runs[runs.length - 1]!.ids.push(m.transactionId);
    }
    assert.equal(runs.length, 2);
    assert.equal(body.partitionsClaimed, 2);
    assert.deepEqual(runs[0]!.ids, [`${runs[0]!.partition}-1`, `${runs[0]!.partition}-2`, `${runs[0]!.partition}-3`]);
    assert.deepEqual(runs[1]!.ids, [`${runs[1]!.partition}-1`, `${runs[1]!.partition}-2`]);
    assert.equal(body.partition, runs[0]!.partition, 'top-level partition is the first claimed one');

    // Both touched partitions are leased now; the rest of the budget comes from the two untouched ones.
    const rest = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=100&partitions=0`), { queue, group: QUEUE_MODE });
    assert.equal(rest.partitionsClaimed, 2);
    assert.equal(rest.messages.length, 6);
    const restPartitions = new Set(rest.messages.map((m: any) => m.partition));
    for (const run of runs) assert.ok(!restPartitions.has(run.partition), 'leased partitions are skipped');
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=100&partitions=0`), 'none');
  });

  test('partitions caps the partitions claimed; default 1; 0 and negative mean no cap', async () => {
    const queue = uniqueQueue('cap');
    for (const p of ['p1', 'p2', 'p3', 'p4']) await push(queue, p, [`${p}-1`, `${p}-2`]);

    const two = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=100&partitions=2&consumerGroup=g2`), { queue, group: 'g2' });
    assert.equal(two.partitionsClaimed, 2);
    assert.equal(two.messages.length, 4);

    for (const [group, variant] of [['gdefault', ''], ['gempty', '&partitions=']]) {
      const dflt = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=100&consumerGroup=${group}${variant}`), { queue, group: group! });
      assert.equal(dflt.partitionsClaimed, 1, `partitions ${variant || 'absent'}`);
      assert.equal(dflt.messages.length, 2);
    }

    const zero = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=100&partitions=0&consumerGroup=gzero`), { queue, group: 'gzero' });
    assert.equal(zero.partitionsClaimed, 4);
    assert.equal(zero.messages.length, 8);

    const neg = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=100&partitions=-3&consumerGroup=gneg`), { queue, group: 'gneg' });
    assert.equal(neg.partitionsClaimed, 4);
    assert.equal(neg.messages.length, 8);
    for (const body of [zero, neg]) {
      for (const p of ['p1', 'p2', 'p3', 'p4']) {
        assert.deepEqual(body.messages.filter((m: any) => m.partition === p).map((m: any) => m.transactionId), [`${p}-1`, `${p}-2`]);
      }
    }
  });

  test('batch defaults to 1 (absent or empty); 0, negative and non-integer values are a 400 naming batch and its range', async () => {
    const queue = uniqueQueue('batch-default');
    await push(queue, 'Default', ['b1', 'b2', 'b3']);
    const variants: Record<string, string> = { gabsent: '', gempty: '&batch=' };
    for (const [group, variant] of Object.entries(variants)) {
      const body = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=${group}${variant}`), { queue, group });
      assert.deepEqual(txIds(body), ['b1'], `variant ${variant || '(absent)'}`);
    }
    for (const value of ['0', '-7', 'abc', '2.5', '0x5']) {
      const res = await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=gbad&batch=${value}`);
      assert.deepEqual([res.status, res.json], [400, { success: false, error: `Invalid batch: must be an integer from 1 to 10000 (got "${value}")`, messages: [] }], value);
    }
    // Nothing was claimed by the refused calls.
    assert.deepEqual(txIds(assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=gbad`), { queue, group: 'gbad' })), ['b1']);
  });

  test('wildcard selection starves no partition: every hot partition is served within 2 x partitions calls', async () => {
    const queue = uniqueQueue('fair');
    const partitions = ['p1', 'p2', 'p3', 'p4'];
    const next = new Map(partitions.map((p) => [p, 1]));
    for (const p of partitions) await push(queue, p, [`${p}-1`]);
    const served: string[] = [];
    const deliveredPer = new Map<string, string[]>(partitions.map((p) => [p, []]));
    for (let i = 0; i < 2 * partitions.length; i += 1) {
      const body = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=fair&autoAck=true&batch=1`), { queue, group: 'fair', autoAck: true });
      const p = body.partition;
      served.push(p);
      deliveredPer.get(p)!.push(...txIds(body));
      // Keep the partition hot: one more message behind what was just consumed.
      const n = next.get(p)! + 1;
      next.set(p, n);
      await push(queue, p, [`${p}-${n}`]);
    }
    for (const p of partitions) assert.ok(served.includes(p), `partition ${p} was never served in ${served.join(',')}`);
    for (const [p, ids] of deliveredPer) {
      assert.deepEqual(ids, ids.map((_, i) => `${p}-${i + 1}`), `partition ${p} delivers in offset order without gaps or repeats`);
    }
  });

  test('a repeated query key: the first occurrence wins', async () => {
    const queue = uniqueQueue('repeat');
    await push(queue, 'Default', ['r1', 'r2', 'r3']);
    const body = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=2&batch=5&consumerGroup=first&consumerGroup=second`), { queue, group: 'first' });
    assert.deepEqual(txIds(body), ['r1', 'r2']);
  });

  test('the single-partition route claims only its partition and ignores partitions', async () => {
    const queue = uniqueQueue('single');
    for (const p of ['p1', 'p2', 'p3']) await push(queue, p, [`${p}-1`, `${p}-2`]);
    const body = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/p2?batch=100&partitions=0`), { queue, group: QUEUE_MODE });
    assert.equal(body.partition, 'p2');
    assert.equal(body.partitionsClaimed, 1);
    assert.deepEqual(txIds(body), ['p2-1', 'p2-2']);
    const capped = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/p3?batch=100&partitions=5&consumerGroup=g`), { queue, group: 'g' });
    assert.deepEqual(txIds(capped), ['p3-1', 'p3-2']);
    assert.equal(capped.partitionsClaimed, 1);
    // p1 and p3 are untouched for queue mode.
    const rest = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=100&partitions=0`), { queue, group: QUEUE_MODE });
    assert.deepEqual(txIds(rest).sort(), ['p1-1', 'p1-2', 'p3-1', 'p3-2']);
  });
});

describe('batch environment variables', () => {
  let small: BrokerProcess;
  let smallApi: ReturnType<typeof client>;
  before(async () => {
    small = await startBroker(setup.db, { DEFAULT_BATCH_SIZE: '2', POP_MAX_BATCH_SIZE: '3' });
    smallApi = client(small.url);
  });
  after(async () => {
    await small?.stop();
  });

  test('DEFAULT_BATCH_SIZE is the default batch, POP_MAX_BATCH_SIZE clamps large batches, batch < 1 is 1', async () => {
    const queue = uniqueQueue('batch-env');
    const res = await smallApi.push(['e1', 'e2', 'e3', 'e4', 'e5'].map((id) => ({ queue, transactionId: id })));
    assert.equal(res.status, 201);
    const dflt = assertPopBody(await smallApi.get(`/api/v1/pop/queue/${queue}?consumerGroup=gd`), { queue, group: 'gd' });
    assert.deepEqual(txIds(dflt), ['e1', 'e2']);
    const clamped = assertPopBody(await smallApi.get(`/api/v1/pop/queue/${queue}?consumerGroup=gc&batch=100`), { queue, group: 'gc' });
    assert.deepEqual(txIds(clamped), ['e1', 'e2', 'e3']);
    const exact = assertPopBody(await smallApi.get(`/api/v1/pop/queue/${queue}?consumerGroup=gx&batch=3`), { queue, group: 'gx' });
    assert.deepEqual(txIds(exact), ['e1', 'e2', 'e3']);
    const zero = await smallApi.get(`/api/v1/pop/queue/${queue}?consumerGroup=gz&batch=0`);
    assert.deepEqual([zero.status, zero.json.error], [400, 'Invalid batch: must be an integer from 1 to 3 (got "0")']);
    const disc = assertPopBody(await smallApi.get(`/api/v1/pop?namespace=${queue}&consumerGroup=gdisc&batch=50`), { queue: '', group: 'gdisc' });
    assert.deepEqual(txIds(disc), ['e1', 'e2', 'e3'], 'the clamp applies to the discovery route too');
  });
});

describe('discovery route', () => {
  test('neither namespace nor task: 400 with the exact pop error body', async () => {
    for (const path of ['/api/v1/pop', '/api/v1/pop?batch=5&consumerGroup=g', '/api/v1/pop?namespace=&task=', '/api/v1/pop?wait=true&timeout=5000']) {
      const res = await setup.api.get(path);
      assertPopBadRequest(res, 'namespace or task is required');
      assert.equal(res.text, '{"success":false,"error":"namespace or task is required","messages":[]}');
    }
  });

  test('namespace and/or task select queues by their derived namespace and task; top-level queue is ""', async () => {
    const ns = `ns${randomUUID().slice(0, 8)}`;
    const other = `other${randomUUID().slice(0, 8)}`;
    const taskA = `ta${randomUUID().slice(0, 8)}`;
    const taskB = `tb${randomUUID().slice(0, 8)}`;
    const queues = { nsA: `${ns}.${taskA}.x`, nsB: `${ns}.${taskB}.y`, otherA: `${other}.${taskA}.z`, bare: ns };
    const byPartitionId = new Map<string, string>();
    for (const [key, q] of Object.entries(queues)) {
      const r = await push(q, 'Default', [`${key}-1`]);
      byPartitionId.set(r[0].partition_id, q);
    }
    const popped = async (query: string, group: string): Promise<string[]> => {
      const body = assertPopBody(await setup.api.get(`/api/v1/pop?${query}&consumerGroup=${group}&batch=100&partitions=0`), { queue: '', group });
      for (const m of body.messages) assert.ok(byPartitionId.has(m.partitionId), 'every message comes from a pushed partition');
      return body.messages.map((m: any) => byPartitionId.get(m.partitionId)).sort();
    };
    // `ns` alone is a queue name without a dot: namespace ns, task "".
    assert.deepEqual(await popped(`namespace=${ns}`, 'g-ns'), [queues.bare, queues.nsA, queues.nsB].sort());
    assert.deepEqual(await popped(`task=${taskA}`, 'g-task'), [queues.nsA, queues.otherA].sort());
    assert.deepEqual(await popped(`namespace=${ns}&task=${taskA}`, 'g-both'), [queues.nsA]);
    assertEmpty(await setup.api.get(`/api/v1/pop?namespace=${ns}&task=${taskA}&consumerGroup=g-both`), 'none');
  });

  test('discovery prefers queues with a higher priority', async () => {
    const ns = `prio${randomUUID().slice(0, 8)}`;
    const low = `${ns}.low`;
    const high = `${ns}.high`;
    await push(low, 'Default', ['low-1']);
    const conf = await setup.api.post('/api/v1/configure', { queue: high, options: { priority: 10 } });
    assert.equal(conf.status, 200, conf.text);
    await push(high, 'Default', ['high-1']);
    const first = assertPopBody(await setup.api.get(`/api/v1/pop?namespace=${ns}&batch=10`), { queue: '', group: QUEUE_MODE });
    assert.deepEqual(txIds(first), ['high-1'], 'the higher-priority queue first, although its message is younger');
    const second = assertPopBody(await setup.api.get(`/api/v1/pop?namespace=${ns}&batch=10`), { queue: '', group: QUEUE_MODE });
    assert.deepEqual(txIds(second), ['low-1']);
  });

  test('the discovery route never creates queues', async () => {
    const ns = `ghost${randomUUID().slice(0, 8)}`;
    assertEmpty(await setup.api.get(`/api/v1/pop?namespace=${ns}`), 'none');
    assertEmpty(await setup.api.get(`/api/v1/pop?namespace=${ns}&task=t&consumerGroup=g&subscriptionMode=new`), 'none');
    assertEmpty(await setup.api.get(`/api/v1/pop?task=${ns}`), 'none');
    const rows = await setup.db.query('SELECT count(*)::int AS n FROM queen.queues WHERE namespace = $1 OR task = $1 OR name LIKE $2', [ns, `%${ns}%`]);
    assert.equal(rows.rows[0]!.n, 0);
  });
});

describe('validation', () => {
  const long = 'x'.repeat(256);
  const max = 'y'.repeat(255);

  test('queue name longer than 255: 400 Invalid queue name on both queue-scoped routes', async () => {
    assertPopBadRequest(await setup.api.get(`/api/v1/pop/queue/${long}`), 'Invalid queue name');
    assertPopBadRequest(await setup.api.get(`/api/v1/pop/queue/${long}/partition/Default`), 'Invalid queue name');
    assertPopBadRequest(await setup.api.get(`/api/v1/pop/queue/${long}?wait=true&timeout=5000`), 'Invalid queue name');
    const rows = await setup.db.query('SELECT count(*)::int AS n FROM queen.queues WHERE name = $1', [long]);
    assert.equal(rows.rows[0]!.n, 0, 'a rejected pop creates nothing');
  });

  test('partition name longer than 255: 400 Invalid partition name', async () => {
    const queue = uniqueQueue('val-part');
    assertPopBadRequest(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/${long}`), 'Invalid partition name');
  });

  test('consumerGroup longer than 255: 400 Invalid consumerGroup on all three routes', async () => {
    const queue = uniqueQueue('val-group');
    assertPopBadRequest(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=${long}`), 'Invalid consumerGroup');
    assertPopBadRequest(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Default?consumerGroup=${long}`), 'Invalid consumerGroup');
    assertPopBadRequest(await setup.api.get(`/api/v1/pop?namespace=${queue}&consumerGroup=${long}`), 'Invalid consumerGroup');
  });

  test('names of exactly 255 characters are accepted', async () => {
    const queue = `${uniqueQueue('max')}${max}`.slice(0, 255);
    const res = await setup.api.push([{ queue, partition: max, transactionId: 't1' }]);
    assert.equal(res.json[0].status, 'queued', res.text);
    const body = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/${max}?consumerGroup=${max}`), { queue, group: max });
    assert.equal(body.partition, max);
    assert.deepEqual(txIds(body), ['t1']);
  });

  test('malformed percent-encoding: 400 Malformed URL encoding in the pop shape', async () => {
    const queue = uniqueQueue('val-enc');
    assertPopBadRequest(await setup.api.get(`/api/v1/pop/queue/bad%E0%A4%A`), 'Malformed URL encoding');
    assertPopBadRequest(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/%ZZ`), 'Malformed URL encoding');
    assertPopBadRequest(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=%E0%A4%A`), 'Malformed URL encoding');
    assertPopBadRequest(await setup.api.get(`/api/v1/pop?namespace=%G1`), 'Malformed URL encoding');
  });

  test('percent-encoded names are decoded on the pop routes', async () => {
    const queue = `${uniqueQueue('enc')} with/slash`;
    await push(queue, 'part one', ['e1']);
    const body = assertPopBody(
      await setup.api.get(`/api/v1/pop/queue/${encodeURIComponent(queue)}/partition/${encodeURIComponent('part one')}?consumerGroup=${encodeURIComponent('group +x')}`),
      { queue, group: 'group +x' },
    );
    assert.equal(body.partition, 'part one');
    assert.deepEqual(txIds(body), ['e1']);
  });
});

describe('empty responses and implicit creation', () => {
  test('a queue-scoped pop on a missing queue answers 204 and creates the queue row with implicit defaults', async () => {
    const queue = `${uniqueQueue('nsimp')}.taskimp.rest`;
    const res = await setup.api.get(`/api/v1/pop/queue/${queue}`);
    assertEmpty(res, 'none');
    const detail = await setup.api.get(`/api/v1/resources/queues/${queue}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.headers.get('x-queen-status'), null);
    assert.equal(detail.json.name, queue);
    assert.equal(detail.json.namespace, queue.split('.')[0]);
    assert.equal(detail.json.task, 'taskimp');
    assert.equal(detail.json.config.leaseTime, 60);
    assert.deepEqual(detail.json.partitions, [], 'pops never create partitions');
    // A second pop finds the queue and does not duplicate it.
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=g`), 'none');
    const rows = await setup.db.query('SELECT namespace, task, lease_time FROM queen.queues WHERE name = $1', [queue]);
    assert.deepEqual(rows.rows, [{ namespace: queue.split('.')[0], task: 'taskimp', lease_time: 60 }]);
  });

  test('a single-partition pop on a missing queue creates the queue but no partition: 204 no_partition', async () => {
    const queue = uniqueQueue('imp-single');
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Nope`), 'no_partition');
    const detail = await setup.api.get(`/api/v1/resources/queues/${queue}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.json.name, queue);
    assert.equal(detail.json.namespace, queue);
    assert.equal(detail.json.task, '');
    assert.equal(detail.json.config.leaseTime, 60);
    assert.deepEqual(detail.json.partitions, []);
  });

  test('a single-partition pop on a missing partition of an existing queue: 204 no_partition, nothing created', async () => {
    const queue = uniqueQueue('nopart');
    await push(queue, 'Default', ['d1']);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/missing?consumerGroup=g`), 'no_partition');
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/missing`), 'no_partition');
    const rows = await setup.db.query(
      'SELECT p.name FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 ORDER BY p.name',
      [queue],
    );
    assert.deepEqual(rows.rows, [{ name: 'Default' }]);
  });

  test('every empty pop is a bare 204 with X-Queen-Empty-Reason (and no CORS headers while CORS_ORIGINS is unset)', async () => {
    const queue = uniqueQueue('empty');
    await push(queue, 'Default', ['only']);
    const taken = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Default`), { queue, group: QUEUE_MODE });
    assert.deepEqual(txIds(taken), ['only']);

    const leased = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Default`);
    assertEmpty(leased, 'leased');
    const wildcard = await setup.api.get(`/api/v1/pop/queue/${queue}`);
    assertEmpty(wildcard, 'none');
    const discovery = await setup.api.get(`/api/v1/pop?namespace=${queue}`);
    assertEmpty(discovery, 'none');
    for (const res of [leased, wildcard, discovery]) {
      assert.equal(res.headers.get('content-length') ?? '0', '0');
      assert.equal(res.headers.get('access-control-allow-origin'), null, 'same-origin by default: docs/decisions.md "Cross-origin by default"');
    }
    // Another group is not blocked by that lease.
    const other = assertPopBody(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Default?consumerGroup=other`), { queue, group: 'other' });
    assert.deepEqual(txIds(other), ['only']);
    // Nothing left for the other group either: the single-partition route reports `none`.
    const ack = await setup.api.post('/api/v1/ack', { transactionId: 'only', partitionId: other.partitionId, leaseId: other.leaseId, consumerGroup: 'other' });
    assert.equal(ack.json[0].success, true, ack.text);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Default?consumerGroup=other`), 'none');
  });
});

describe('transport failures (500 with a body)', () => {
  let failDb: TestDatabase;
  let failing: BrokerProcess;
  let failApi: ReturnType<typeof client>;
  let locker: pg.Client;
  before(async () => {
    failDb = await createDatabase();
    // One process: the pool that runs dry is one worker's (DB_POOL_SIZE is per worker).
    failing = await startBroker(failDb, { DB_STATEMENT_TIMEOUT: '700', DB_LOCK_TIMEOUT: '0', DB_POOL_SIZE: '2', DB_POOL_ACQUIRE_TIMEOUT_MS: '300', QUEEN_WORKERS: '1' });
    failApi = client(failing.url);
    locker = new pg.Client(serverConnection(failDb.name));
    await locker.connect();
  });
  after(async () => {
    await locker?.end();
    await failing?.stop();
    await failDb?.close();
  });

  /** Runs `fn` while queen.queues is locked against every reader. */
  async function whileLocked<T>(fn: () => Promise<T>): Promise<T> {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE queen.queues IN ACCESS EXCLUSIVE MODE');
    try {
      return await fn();
    } finally {
      await locker.query('ROLLBACK');
    }
  }

  test('a pop whose statement times out answers 500 {"error":"pop failed"}', async () => {
    const queue = uniqueQueue('fail-timeout');
    assert.equal((await failApi.push([{ queue, transactionId: 'f1' }])).status, 201);
    const res = await whileLocked(() => failApi.get(`/api/v1/pop/queue/${queue}`));
    assert.equal(res.status, 500);
    assert.deepEqual(res.json, { error: 'pop failed' });
    // Nothing was taken: the message is still there once the lock is gone.
    assert.deepEqual(txIds(assertPopBody(await failApi.get(`/api/v1/pop/queue/${queue}`), { queue, group: QUEUE_MODE })), ['f1']);
  });

  test('a pop that gets no connection in time answers 500 {"error":"pool"}', async () => {
    const queue = uniqueQueue('fail-pool');
    const results = await whileLocked(async () => {
      const blocked = [failApi.get(`/api/v1/pop/queue/${queue}`), failApi.get(`/api/v1/pop/queue/${queue}?consumerGroup=g`)];
      await new Promise((r) => setTimeout(r, 150));
      const starved = await failApi.get(`/api/v1/pop/queue/${queue}?consumerGroup=h`);
      return [starved, ...(await Promise.all(blocked))];
    });
    assert.equal(results[0]!.status, 500);
    assert.deepEqual(results[0]!.json, { error: 'pool' });
    for (const res of results.slice(1)) {
      assert.equal(res.status, 500);
      assert.deepEqual(res.json, { error: 'pop failed' });
    }
  });

  test('an error inside the pop procedure is a bare 204 with reason error, also with wait=true', async () => {
    const queue = uniqueQueue('fail-proc');
    assert.equal((await failApi.push([{ queue, transactionId: 'p1' }])).status, 201);
    // Make the first contact of one group fail inside the pop's transaction: its cursor row's insert violates a
    // check (a constraint, not a trigger: Citus has no triggers on distributed tables, and checks both deployments).
    await failDb.query(`ALTER TABLE queen.cursors ADD CONSTRAINT test_boom CHECK (consumer_group <> 'boom') NOT VALID`);
    try {
      assertEmpty(await failApi.get(`/api/v1/pop/queue/${queue}?consumerGroup=boom`), 'error');
      const start = Date.now();
      assertEmpty(await failApi.get(`/api/v1/pop/queue/${queue}?consumerGroup=boom&wait=true&timeout=3000`), 'error');
      assert.ok(Date.now() - start < 2500, 'a procedure error ends a long poll');
      // Nothing was claimed by the failed attempts; other groups are unaffected.
      assert.deepEqual(txIds(assertPopBody(await failApi.get(`/api/v1/pop/queue/${queue}?consumerGroup=fine`), { queue, group: 'fine' })), ['p1']);
    } finally {
      await failDb.query('ALTER TABLE queen.cursors DROP CONSTRAINT test_boom');
    }
    assert.deepEqual(txIds(assertPopBody(await failApi.get(`/api/v1/pop/queue/${queue}?consumerGroup=boom`), { queue, group: 'boom' })), ['p1']);
  });

  test('a failure during a long-poll re-attempt ends the request with that 500', async () => {
    const queue = uniqueQueue('fail-park');
    assertEmpty(await failApi.get(`/api/v1/pop/queue/${queue}`), 'none');
    const res = await (async () => {
      const parked = failApi.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=5000`);
      await new Promise((r) => setTimeout(r, 300));
      return whileLocked(() => parked);
    })();
    assert.equal(res.status, 500);
    assert.deepEqual(res.json, { error: 'pop failed' });
  });
});
