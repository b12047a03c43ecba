/**
 * POST /api/v1/push (docs/api.md 4.4): result shapes, the 400s, per-item failures, ids, payload round trips,
 * deduplication, implicit queue creation, ordering and maxSize.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, uniqueQueue, useBroker } from '../support/harness.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MICROS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const QUEUED_KEYS = ['index', 'message_id', 'partition_id', 'queueName', 'status', 'trace_id', 'transaction_id'];
const DUPLICATE_KEYS = ['index', 'message_id', 'queueName', 'status', 'transaction_id'];
const FAILED_KEYS = ['error', 'index', 'partition', 'queue', 'queueName', 'status', 'transaction_id'];
const MESSAGE_KEYS = ['id', 'transactionId', 'traceId', 'data', 'producerSub', 'createdAt', 'partitionId', 'partition', 'leaseId', 'consumerGroup'];
const IMPLICIT_CONFIG = {
  leaseTime: 60, retryLimit: 3, retryDelay: 0, maxSize: 0, ttl: 3600, priority: 0, delayedProcessing: 0, windowBuffer: 0,
  minPopWaitTime: 0, retentionSeconds: 0, completedRetentionSeconds: 0, retentionEnabled: false, encryptionEnabled: false,
  maxWaitTimeSeconds: 0, deadLetterQueue: false, dlqAfterMaxRetries: false,
};

const setup = useBroker();

const sortedKeys = (o: object): string[] => Object.keys(o).sort();

/** Pops everything currently deliverable from a queue in queue mode with autoAck (all partitions). */
async function drain(queue: string, partition?: string): Promise<any[]> {
  const base = partition === undefined
    ? `/api/v1/pop/queue/${encodeURIComponent(queue)}`
    : `/api/v1/pop/queue/${encodeURIComponent(queue)}/partition/${encodeURIComponent(partition)}`;
  const all: any[] = [];
  for (let i = 0; i < 100; i++) {
    const res = await setup.api.get(`${base}?batch=10000&partitions=0&autoAck=true`);
    if (res.status === 204) return all;
    assert.equal(res.status, 200, res.text);
    all.push(...res.json.messages);
  }
  throw new Error('drain did not finish');
}

async function queueRowCount(name: string): Promise<number> {
  const r = await setup.db.query('SELECT count(*)::int AS n FROM queen.queues WHERE name = $1', [name]);
  return r.rows[0]!.n as number;
}

async function partitionId(queue: string, partition: string): Promise<string> {
  const r = await setup.db.query(
    'SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND p.name = $2',
    [queue, partition],
  );
  assert.equal(r.rowCount, 1, `partition ${queue}/${partition} should exist`);
  return r.rows[0]!.id as string;
}

async function configure(queue: string, options: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await setup.api.post('/api/v1/configure', { queue, options, ...extra });
  assert.equal(res.status, 200, res.text);
  return res.json;
}

describe('result shapes', () => {
  test('queued: 201 with exactly the queued keys and their values', async () => {
    const queue = uniqueQueue('shape');
    const traceId = '0b6f3c5e-2d1a-4c7b-9e8f-1a2b3c4d5e6f';
    const res = await setup.api.push([
      { queue, partition: 'p1', payload: { a: 1 }, transactionId: 'tx-shape-1', traceId },
      { queue, payload: 'second' },
    ]);
    assert.equal(res.status, 201);
    assert.ok(Array.isArray(res.json));
    assert.equal(res.json.length, 2);
    const [first, second] = res.json;
    assert.deepEqual(sortedKeys(first), QUEUED_KEYS);
    assert.equal(first.index, 0);
    assert.equal(first.transaction_id, 'tx-shape-1');
    assert.equal(first.status, 'queued');
    assert.match(first.message_id, UUID_V7);
    assert.equal(first.partition_id, await partitionId(queue, 'p1'));
    assert.equal(first.trace_id, traceId);
    assert.equal(first.queueName, queue);

    assert.deepEqual(sortedKeys(second), QUEUED_KEYS);
    assert.equal(second.index, 1);
    assert.equal(second.status, 'queued');
    assert.match(second.transaction_id, UUID_V7);
    assert.match(second.message_id, UUID_V7);
    assert.notEqual(second.message_id, first.message_id);
    assert.equal(second.partition_id, await partitionId(queue, 'Default'));
    assert.equal(second.trace_id, null);
    assert.equal(second.queueName, queue);
  });

  test('duplicate: exactly the duplicate keys, pointing at the stored message', async () => {
    const queue = uniqueQueue('shape-dup');
    const first = await setup.api.push([{ queue, payload: 1, transactionId: 'dup-1' }]);
    assert.equal(first.status, 201);
    const again = await setup.api.push([{ queue, payload: 2, transactionId: 'dup-1' }]);
    assert.equal(again.status, 201);
    assert.equal(again.json.length, 1);
    const dup = again.json[0];
    assert.deepEqual(sortedKeys(dup), DUPLICATE_KEYS);
    assert.deepEqual(dup, { index: 0, transaction_id: 'dup-1', status: 'duplicate', message_id: first.json[0].message_id, queueName: queue });
  });

  test('failed: exactly the failed keys, transaction_id is the client value or null', async () => {
    const queue = uniqueQueue('shape-fail');
    const res = await setup.api.push([
      { queue, partition: '', transactionId: 'tx-bad-partition' },
      { queue, traceId: 'nope' },
    ]);
    assert.equal(res.status, 201);
    assert.equal(res.json.length, 2);
    for (const item of res.json) assert.deepEqual(sortedKeys(item), FAILED_KEYS);
    assert.deepEqual(res.json[0], {
      index: 0, transaction_id: 'tx-bad-partition', status: 'failed', queueName: queue, queue, partition: '', error: 'Invalid partition name',
    });
    assert.deepEqual(res.json[1], {
      index: 1, transaction_id: null, status: 'failed', queueName: queue, queue, partition: 'Default', error: 'Invalid traceId: must be a UUID',
    });
  });

  test('items: [] answers 201 []', async () => {
    const res = await setup.api.post('/api/v1/push', { items: [] });
    assert.equal(res.status, 201);
    assert.equal(res.text, '[]');
  });

  test('an all-failed request is still a 201', async () => {
    const res = await setup.api.push([{ queue: '' }, { queue: 'x'.repeat(256) }]);
    assert.equal(res.status, 201);
    assert.deepEqual(res.json.map((r: any) => [r.index, r.status, r.error]), [
      [0, 'failed', 'Invalid queue name'],
      [1, 'failed', 'Invalid queue name'],
    ]);
  });
});

describe('400s: type checks over the whole request, nothing written', () => {
  const cases: Array<{ name: string; body: unknown; error: string }> = [
    { name: 'items missing', body: {}, error: 'items array is required' },
    { name: 'items null', body: { items: null }, error: 'items array is required' },
    { name: 'items an object', body: { items: { queue: 'x' } }, error: 'items array is required' },
    { name: 'items a string', body: { items: 'x' }, error: 'items array is required' },
  ];
  for (const c of cases) {
    test(`${c.name} -> 400 ${c.error}`, async () => {
      const res = await setup.api.post('/api/v1/push', c.body);
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, { error: c.error });
    });
  }

  // Each bad item follows a valid item for a fresh queue: the 400 must not have written that one either.
  const itemCases: Array<{ name: string; bad: (queue: string) => unknown; error: string }> = [
    { name: 'item is a number', bad: () => 42, error: 'Each item must be an object' },
    { name: 'item is null', bad: () => null, error: 'Each item must be an object' },
    { name: 'item is an array', bad: (queue) => [{ queue }], error: 'Each item must be an object' },
    { name: 'item is a string', bad: (queue) => queue, error: 'Each item must be an object' },
    { name: 'queue missing', bad: () => ({ payload: 1 }), error: 'Queue must be a string' },
    { name: 'queue null', bad: () => ({ queue: null }), error: 'Queue must be a string' },
    { name: 'queue a number', bad: () => ({ queue: 7 }), error: 'Queue must be a string' },
    { name: 'queue an object', bad: () => ({ queue: { name: 'x' } }), error: 'Queue must be a string' },
    { name: 'partition a number', bad: (queue) => ({ queue, partition: 1 }), error: 'Partition must be a string' },
    { name: 'partition a boolean', bad: (queue) => ({ queue, partition: true }), error: 'Partition must be a string' },
    { name: 'transactionId a number', bad: (queue) => ({ queue, transactionId: 12 }), error: 'TransactionId must be a string' },
    { name: 'transactionId an object', bad: (queue) => ({ queue, transactionId: {} }), error: 'TransactionId must be a string' },
    { name: 'traceId a number', bad: (queue) => ({ queue, traceId: 5 }), error: 'TraceId must be a string' },
    { name: 'traceId an array', bad: (queue) => ({ queue, traceId: [] }), error: 'TraceId must be a string' },
  ];
  for (const c of itemCases) {
    test(`${c.name} -> 400 ${c.error}, and the valid sibling is not written`, async () => {
      const queue = uniqueQueue('bad');
      const res = await setup.api.push([{ queue, payload: { ok: true }, transactionId: 'valid-sibling' }, c.bad(queue)]);
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, { error: c.error });
      assert.equal(await queueRowCount(queue), 0, 'a 400 must not create the queue');
    });
  }

  test('a 400 on an existing queue writes nothing to it', async () => {
    const queue = uniqueQueue('bad-existing');
    const seed = await setup.api.push([{ queue, payload: 'seed', transactionId: 'seed' }]);
    assert.equal(seed.json[0].status, 'queued');
    const res = await setup.api.push([
      { queue, payload: 'must not be stored', transactionId: 'not-stored-1' },
      { queue, partition: 'other', payload: 'must not be stored either', transactionId: 'not-stored-2' },
      { queue, transactionId: 99 },
    ]);
    assert.equal(res.status, 400);
    assert.deepEqual(res.json, { error: 'TransactionId must be a string' });
    const messages = await drain(queue);
    assert.deepEqual(messages.map((m) => m.transactionId), ['seed']);
    const partitions = await setup.db.query(
      'SELECT p.name FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 ORDER BY p.name',
      [queue],
    );
    assert.deepEqual(partitions.rows.map((r) => r.name), ['Default'], 'the 400 must not create partition "other"');
  });

  test('type checks win over per-item failures of earlier items', async () => {
    const queue = uniqueQueue('bad-order');
    const res = await setup.api.push([{ queue: '' }, { queue, traceId: 'not-a-uuid' }, { queue, partition: 3 }]);
    assert.equal(res.status, 400);
    assert.deepEqual(res.json, { error: 'Partition must be a string' });
    assert.equal(await queueRowCount(queue), 0);
  });

  test('null optional fields count as absent (not a 400)', async () => {
    const queue = uniqueQueue('nulls');
    const res = await setup.api.push([{ queue, partition: null, transactionId: null, traceId: null, payload: 'n' }]);
    assert.equal(res.status, 201);
    const [r] = res.json;
    assert.equal(r.status, 'queued');
    assert.match(r.transaction_id, UUID_V7);
    assert.equal(r.trace_id, null);
    assert.equal(r.partition_id, await partitionId(queue, 'Default'));
  });
});

describe('per-item failures fail alone', () => {
  test('every per-item failure next to queued siblings', async () => {
    const queue = uniqueQueue('peritem');
    const q255 = `${queue}-${'q'.repeat(255 - queue.length - 1)}`;
    assert.equal(q255.length, 255);
    const q256 = `${q255}x`;
    const p255 = 'p'.repeat(255);
    const t255 = 't'.repeat(255);
    const res = await setup.api.push([
      { queue, payload: 0, transactionId: 'ok-0' },
      { queue: '', payload: 1, transactionId: 'bad-1' },
      { queue, payload: 2, transactionId: 'ok-2' },
      { queue: q256, payload: 3, transactionId: 'bad-3' },
      { queue, partition: '', payload: 4, transactionId: 'bad-4' },
      { queue, partition: `${p255}p`, payload: 5, transactionId: 'bad-5' },
      { queue, payload: 6, transactionId: `${t255}t` },
      { queue, payload: 7, transactionId: 'bad-7', traceId: 'not-a-uuid' },
      { queue, payload: 8, transactionId: 'bad-8', traceId: '0b6f3c5e-2d1a-4c7b-9e8f-1a2b3c4d5e6' },
      { queue, payload: 9, transactionId: 'ok-9' },
      { queue: q255, payload: 10, transactionId: 'ok-10' },
      { queue, partition: p255, payload: 11, transactionId: 'ok-11' },
      { queue, payload: 12, transactionId: t255 },
    ]);
    assert.equal(res.status, 201);
    assert.equal(res.json.length, 13);
    res.json.forEach((r: any, i: number) => assert.equal(r.index, i));
    const failures = res.json.filter((r: any) => r.status === 'failed').map((r: any) => ({ ...r }));
    assert.deepEqual(failures, [
      { index: 1, transaction_id: 'bad-1', status: 'failed', queueName: '', queue: '', partition: 'Default', error: 'Invalid queue name' },
      { index: 3, transaction_id: 'bad-3', status: 'failed', queueName: q256, queue: q256, partition: 'Default', error: 'Invalid queue name' },
      { index: 4, transaction_id: 'bad-4', status: 'failed', queueName: queue, queue, partition: '', error: 'Invalid partition name' },
      { index: 5, transaction_id: 'bad-5', status: 'failed', queueName: queue, queue, partition: `${p255}p`, error: 'Invalid partition name' },
      { index: 6, transaction_id: `${t255}t`, status: 'failed', queueName: queue, queue, partition: 'Default', error: 'TransactionId too long (max 255 characters)' },
      { index: 7, transaction_id: 'bad-7', status: 'failed', queueName: queue, queue, partition: 'Default', error: 'Invalid traceId: must be a UUID' },
      { index: 8, transaction_id: 'bad-8', status: 'failed', queueName: queue, queue, partition: 'Default', error: 'Invalid traceId: must be a UUID' },
    ]);
    const queuedIdx = res.json.filter((r: any) => r.status === 'queued').map((r: any) => r.index);
    assert.deepEqual(queuedIdx, [0, 2, 9, 10, 11, 12]);

    // Only the valid items were stored, nothing of the failed ones.
    const main = await drain(queue, 'Default');
    assert.deepEqual(main.map((m) => [m.transactionId, m.data]), [['ok-0', 0], ['ok-2', 2], ['ok-9', 9], [t255, 12]]);
    const long = await drain(queue, p255);
    assert.deepEqual(long.map((m) => [m.transactionId, m.data, m.partition]), [['ok-11', 11, p255]]);
    const longQueue = await drain(q255);
    assert.deepEqual(longQueue.map((m) => [m.transactionId, m.data]), [['ok-10', 10]]);
    assert.equal(await queueRowCount(''), 0);
    assert.equal(await queueRowCount(q256), 0);
    const parts = await setup.db.query(
      'SELECT p.name FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 ORDER BY p.name',
      [queue],
    );
    assert.deepEqual(parts.rows.map((r) => r.name).sort(), ['Default', p255].sort());
  });
});

describe('ids', () => {
  test('transactionId absent or "" is minted by the broker as a UUIDv7 and delivered as such', async () => {
    const queue = uniqueQueue('mint');
    const res = await setup.api.push([{ queue, payload: 'a' }, { queue, payload: 'b', transactionId: '' }, { queue, payload: 'c' }]);
    assert.equal(res.status, 201);
    const ids = res.json.map((r: any) => r.transaction_id);
    for (const r of res.json) {
      assert.equal(r.status, 'queued');
      assert.match(r.transaction_id, UUID_V7);
      assert.match(r.message_id, UUID_V7);
    }
    assert.equal(new Set(ids).size, 3, 'minted transactionIds are distinct');
    const messages = await drain(queue);
    assert.deepEqual(messages.map((m) => m.transactionId), ids);
    assert.deepEqual(messages.map((m) => m.id), res.json.map((r: any) => r.message_id));
  });

  test('message ids of one request increase in input order (monotonic UUIDv7)', async () => {
    const queue = uniqueQueue('mono');
    const res = await setup.api.push(Array.from({ length: 50 }, (_, i) => ({ queue, payload: i })));
    const ids: string[] = res.json.map((r: any) => r.message_id);
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
  });

  test('traceId of any case and version is accepted and returned lowercase, in the push result and in the pop', async () => {
    const queue = uniqueQueue('trace');
    const v4Upper = 'F47AC10B-58CC-4372-A567-0E02B2C3D479';
    const v1Mixed = 'c232Ab00-9414-11Ec-B3C8-9F6bDECED846';
    const nil = '00000000-0000-0000-0000-000000000000';
    const res = await setup.api.push([
      { queue, payload: 1, traceId: v4Upper },
      { queue, payload: 2, traceId: v1Mixed },
      { queue, payload: 3, traceId: nil },
      { queue, payload: 4 },
    ]);
    assert.equal(res.status, 201);
    assert.deepEqual(res.json.map((r: any) => [r.status, r.trace_id]), [
      ['queued', v4Upper.toLowerCase()],
      ['queued', v1Mixed.toLowerCase()],
      ['queued', nil],
      ['queued', null],
    ]);
    const messages = await drain(queue);
    assert.deepEqual(messages.map((m) => m.traceId), [v4Upper.toLowerCase(), v1Mixed.toLowerCase(), nil, null]);
  });
});

describe('payloads', () => {
  test('every JSON type round-trips verbatim; absent payload is delivered as null', async () => {
    const queue = uniqueQueue('payload');
    const payloads: unknown[] = [
      { orderId: 8891, total: 4200, nested: { deep: { deeper: [1, { x: 'y' }, null, true] } }, z: 1, a: 2 },
      [1, 'two', { three: 3 }, [4, [5]], null, false],
      'plain string',
      '',
      'nul inside: \u0000 end',
      'unicode: héllo ✓ 😀 中文 \u2028 "quotes" \\ backslash \n newline',
      0,
      -42,
      3.14159,
      1e21,
      Number.MAX_SAFE_INTEGER,
      true,
      false,
      null,
      {},
      [],
      { 'ключ': 'значение', emoji: '🚀', empty: {}, list: [] },
    ];
    const items: unknown[] = payloads.map((payload, i) => ({ queue, payload, transactionId: `p-${i}` }));
    items.push({ queue, transactionId: 'absent' });
    const res = await setup.api.push(items);
    assert.equal(res.status, 201);
    assert.ok(res.json.every((r: any) => r.status === 'queued'), res.text);
    const messages = await drain(queue);
    assert.equal(messages.length, payloads.length + 1);
    payloads.forEach((payload, i) => {
      const m = messages[i];
      assert.equal(m.transactionId, `p-${i}`);
      assert.deepEqual(m.data, payload, `payload ${i}`);
      // Stored verbatim: key order and number text survive too.
      assert.equal(JSON.stringify(m.data), JSON.stringify(payload), `payload ${i} verbatim`);
    });
    const last = messages[payloads.length];
    assert.equal(last.transactionId, 'absent');
    assert.ok('data' in last);
    assert.equal(last.data, null);
    for (const m of messages) assert.deepEqual(Object.keys(m), MESSAGE_KEYS);
  });

  test('the key `data` of an item is not read as the payload', async () => {
    const queue = uniqueQueue('datakey');
    const res = await setup.api.push([
      { queue, data: { should: 'be ignored' }, transactionId: 'only-data' },
      { queue, payload: 'real', data: 'ignored', transactionId: 'both' },
    ]);
    assert.equal(res.status, 201);
    const messages = await drain(queue);
    assert.deepEqual(messages.map((m) => [m.transactionId, m.data]), [['only-data', null], ['both', 'real']]);
  });

  test('ignored item fields and top-level fields do not change the outcome', async () => {
    const queue = uniqueQueue('ignored');
    const res = await setup.api.post('/api/v1/push', {
      items: [{ queue, payload: 1, producerSub: 'someone', namespace: 'nsx', task: 'tx', unknownField: 5 }],
      bufferMs: 100,
      bufferMax: 10,
      somethingElse: true,
    });
    assert.equal(res.status, 201);
    assert.equal(res.json[0].status, 'queued');
    const [m] = await drain(queue);
    assert.equal(m.producerSub, null, 'producerSub is the JWT sub (null without auth), never the item field');
    const detail = await setup.api.get(`/api/v1/resources/queues/${encodeURIComponent(queue)}`);
    assert.equal(detail.json.namespace, queue);
    assert.equal(detail.json.task, '');
  });
});

describe('deduplication', () => {
  test('a duplicate inside one request points at the first occurrence', async () => {
    const queue = uniqueQueue('dedup-req');
    const res = await setup.api.push([
      { queue, payload: 'first', transactionId: 'a' },
      { queue, payload: 'other', transactionId: 'b' },
      { queue, payload: 'second a', transactionId: 'a' },
      { queue, payload: 'third a', transactionId: 'a' },
    ]);
    assert.equal(res.status, 201);
    const [a, b, a2, a3] = res.json;
    assert.equal(a.status, 'queued');
    assert.equal(b.status, 'queued');
    assert.deepEqual(a2, { index: 2, transaction_id: 'a', status: 'duplicate', message_id: a.message_id, queueName: queue });
    assert.deepEqual(a3, { index: 3, transaction_id: 'a', status: 'duplicate', message_id: a.message_id, queueName: queue });
    const messages = await drain(queue);
    assert.deepEqual(messages.map((m) => [m.id, m.transactionId, m.data]), [[a.message_id, 'a', 'first'], [b.message_id, 'b', 'other']]);
  });

  test('a duplicate of a stored message answers the stored id and writes nothing, also after consumption', async () => {
    const queue = uniqueQueue('dedup-stored');
    const first = await setup.api.push([{ queue, partition: 'p', payload: 'original', transactionId: 'order-1' }]);
    assert.equal(first.json[0].status, 'queued');
    const storedId = first.json[0].message_id;
    const dup = await setup.api.push([{ queue, partition: 'p', payload: 'replayed', transactionId: 'order-1' }]);
    assert.deepEqual(dup.json, [{ index: 0, transaction_id: 'order-1', status: 'duplicate', message_id: storedId, queueName: queue }]);
    const messages = await drain(queue);
    assert.deepEqual(messages.map((m) => [m.id, m.data]), [[storedId, 'original']]);
    // No time window and consumption does not remove: still a duplicate after the pop.
    const later = await setup.api.push([{ queue, partition: 'p', payload: 'again', transactionId: 'order-1' }]);
    assert.deepEqual(later.json, [{ index: 0, transaction_id: 'order-1', status: 'duplicate', message_id: storedId, queueName: queue }]);
    assert.equal((await setup.api.get(`/api/v1/pop/queue/${queue}?autoAck=true`)).status, 204);
    const segments = await setup.db.query('SELECT coalesce(sum(last_offset - first_offset + 1), 0)::int AS n FROM queen.segments WHERE partition_id = $1', [await partitionId(queue, 'p')]);
    assert.equal(segments.rows[0]!.n, 1);
  });

  test('20 concurrent identical pushes produce exactly one queued', async () => {
    for (const fresh of [true, false]) {
      const queue = fresh ? uniqueQueue('dedup-conc') : uniqueQueue('dedup-conc-existing');
      if (!fresh) assert.equal((await setup.api.push([{ queue, partition: 'hot', payload: 'warm-up' }])).status, 201);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => setup.api.push([{ queue, partition: 'hot', payload: { i }, transactionId: 'same-tx' }])),
      );
      for (const r of responses) assert.equal(r.status, 201);
      const results = responses.map((r) => r.json[0]);
      const queued = results.filter((r) => r.status === 'queued');
      const duplicates = results.filter((r) => r.status === 'duplicate');
      assert.equal(queued.length, 1, `exactly one queued (fresh=${fresh})`);
      assert.equal(duplicates.length, 19);
      for (const d of duplicates) assert.equal(d.message_id, queued[0].message_id);
      const messages = (await drain(queue, 'hot')).filter((m) => m.transactionId === 'same-tx');
      assert.equal(messages.length, 1);
      assert.equal(messages[0].id, queued[0].message_id);
    }
  });

  test('the same transactionId in two partitions (or two queues) is not a duplicate', async () => {
    const queue = uniqueQueue('dedup-parts');
    const other = uniqueQueue('dedup-parts-other');
    const res = await setup.api.push([
      { queue, partition: 'p1', payload: 1, transactionId: 'shared' },
      { queue, partition: 'p2', payload: 2, transactionId: 'shared' },
      { queue: other, partition: 'p1', payload: 3, transactionId: 'shared' },
    ]);
    assert.deepEqual(res.json.map((r: any) => r.status), ['queued', 'queued', 'queued']);
    assert.equal(new Set(res.json.map((r: any) => r.message_id)).size, 3);
    const again = await setup.api.push([{ queue, partition: 'p2', payload: 'x', transactionId: 'shared' }]);
    assert.equal(again.json[0].status, 'duplicate');
    assert.equal(again.json[0].message_id, res.json[1].message_id);
    const messages = await drain(queue);
    assert.deepEqual(messages.map((m) => [m.partition, m.data]).sort(), [['p1', 1], ['p2', 2]]);
  });
});

describe('implicit creation', () => {
  test('an unknown queue gets the implicit defaults (leaseTime 60) and a derived namespace/task', async () => {
    const tag = uniqueQueue('').slice(1);
    const names = [
      { queue: `billing${tag}.invoices`, namespace: `billing${tag}`, task: 'invoices' },
      { queue: `orders${tag}.created.v2`, namespace: `orders${tag}`, task: 'created' },
      { queue: `orders${tag}`, namespace: `orders${tag}`, task: '' },
    ];
    const res = await setup.api.push(names.map((n) => ({ queue: n.queue, partition: 'first-partition', payload: 1 })));
    assert.deepEqual(res.json.map((r: any) => r.status), ['queued', 'queued', 'queued']);
    for (const n of names) {
      const detail = await setup.api.get(`/api/v1/resources/queues/${encodeURIComponent(n.queue)}`);
      assert.equal(detail.status, 200);
      assert.equal(detail.json.name, n.queue);
      assert.equal(detail.json.namespace, n.namespace);
      assert.equal(detail.json.task, n.task);
      assert.deepEqual(detail.json.config, IMPLICIT_CONFIG);
      assert.deepEqual(detail.json.partitions.map((p: any) => p.name), ['first-partition']);
    }
  });

  test('push never changes an existing queue configuration', async () => {
    const queue = uniqueQueue('keep.config');
    await configure(queue, { leaseTime: 77, retryLimit: 5, maxSize: 1000, priority: 4 }, { namespace: 'custom-ns', task: 'custom-task' });
    const before = await setup.api.get(`/api/v1/resources/queues/${queue}`);
    const res = await setup.api.push([{ queue, payload: 1 }, { queue, partition: 'new-one', payload: 2 }]);
    assert.deepEqual(res.json.map((r: any) => r.status), ['queued', 'queued']);
    const after = await setup.api.get(`/api/v1/resources/queues/${queue}`);
    assert.equal(after.json.config.leaseTime, 77);
    assert.deepEqual(after.json.config, before.json.config);
    assert.equal(after.json.namespace, 'custom-ns');
    assert.equal(after.json.task, 'custom-task');
    assert.equal(after.json.id, before.json.id);
    assert.deepEqual(after.json.partitions.map((p: any) => p.name).sort(), ['Default', 'new-one']);
  });
});

describe('ordering', () => {
  test("one request's items for one partition are delivered in input order and share one createdAt", async () => {
    const queue = uniqueQueue('order-req');
    // 450 items for A (more than one storage chunk) interleaved with 50 for B.
    const items: Array<{ queue: string; partition: string; payload: unknown; transactionId: string }> = [];
    let a = 0;
    let b = 0;
    for (let i = 0; i < 500; i++) {
      if (i % 10 === 3) items.push({ queue, partition: 'B', payload: { b }, transactionId: `b-${b++}` });
      else items.push({ queue, partition: 'A', payload: { a }, transactionId: `a-${a++}` });
    }
    const res = await setup.api.push(items);
    assert.equal(res.status, 201);
    assert.ok(res.json.every((r: any, i: number) => r.status === 'queued' && r.index === i));
    for (const [partition, prefix, count] of [['A', 'a', 450], ['B', 'b', 50]] as const) {
      const messages = await drain(queue, partition);
      assert.equal(messages.length, count);
      assert.deepEqual(messages.map((m) => m.transactionId), Array.from({ length: count }, (_, i) => `${prefix}-${i}`));
      assert.deepEqual(messages.map((m) => m.data[prefix]), Array.from({ length: count }, (_, i) => i));
      const createdAt = new Set(messages.map((m) => m.createdAt));
      assert.equal(createdAt.size, 1, `one createdAt for partition ${partition}`);
      assert.match(messages[0].createdAt, MICROS_Z);
      const expectedIds = res.json.filter((r: any) => items[r.index]!.partition === partition).map((r: any) => r.message_id);
      assert.deepEqual(messages.map((m) => m.id), expectedIds);
    }
  });

  test('concurrent writers: each writer order kept, nothing lost or duplicated, createdAt non-decreasing', async () => {
    const queue = uniqueQueue('order-conc');
    const writers = 8;
    const perWriter = 30;
    const acked = new Map<string, string>();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let s = 0; s < perWriter; s++) {
          const res = await setup.api.push([{ queue, partition: 'shared', payload: { w, s }, transactionId: `w${w}-s${s}` }]);
          assert.equal(res.status, 201);
          assert.equal(res.json[0].status, 'queued');
          acked.set(`w${w}-s${s}`, res.json[0].message_id);
        }
      }),
    );
    const messages = await drain(queue, 'shared');
    assert.equal(messages.length, writers * perWriter, 'nothing lost, nothing duplicated');
    assert.equal(new Set(messages.map((m) => m.transactionId)).size, writers * perWriter);
    assert.equal(new Set(messages.map((m) => m.id)).size, writers * perWriter);
    const nextSeq = new Array<number>(writers).fill(0);
    for (const m of messages) {
      assert.equal(m.transactionId, `w${m.data.w}-s${m.data.s}`);
      assert.equal(m.id, acked.get(m.transactionId));
      assert.equal(m.data.s, nextSeq[m.data.w], `writer ${m.data.w} out of order`);
      nextSeq[m.data.w] = m.data.s + 1;
    }
    assert.deepEqual(nextSeq, new Array<number>(writers).fill(perWriter));
    for (let i = 1; i < messages.length; i++) {
      assert.match(messages[i].createdAt, MICROS_Z);
      assert.ok(messages[i - 1].createdAt <= messages[i].createdAt, `createdAt decreased at ${i}: ${messages[i - 1].createdAt} > ${messages[i].createdAt}`);
    }
  });
});

describe('maxSize', () => {
  const capacityError = (queue: string): string => `Queue '${queue}' would exceed max capacity`;

  test('items beyond maxSize fail; room opens when queue mode consumes', async () => {
    const queue = uniqueQueue('maxsize');
    await configure(queue, { maxSize: 5 });
    const res = await setup.api.push(Array.from({ length: 8 }, (_, i) => ({ queue, payload: i, transactionId: `m-${i}` })));
    assert.equal(res.status, 201);
    assert.deepEqual(res.json.slice(0, 5).map((r: any) => r.status), ['queued', 'queued', 'queued', 'queued', 'queued']);
    assert.deepEqual(res.json.slice(5), [5, 6, 7].map((i) => ({
      index: i, transaction_id: `m-${i}`, status: 'failed', queueName: queue, queue, partition: 'Default', error: capacityError(queue),
    })));

    // Full: another push fails, a duplicate of a stored message is still a duplicate.
    const full = await setup.api.push([{ queue, payload: 'x', transactionId: 'm-x' }, { queue, payload: 'y', transactionId: 'm-0' }]);
    assert.deepEqual(full.json.map((r: any) => [r.status, r.error ?? null]), [['failed', capacityError(queue)], ['duplicate', null]]);
    assert.equal(full.json[1].message_id, res.json[0].message_id);

    // A named group consuming does not open room; a queue-mode lease does not either (the cursor has not moved).
    const named = await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=other&batch=5&autoAck=true`);
    assert.equal(named.status, 200);
    assert.equal(named.json.messages.length, 5);
    const leased = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=2`);
    assert.equal(leased.status, 200);
    assert.deepEqual(leased.json.messages.map((m: any) => m.transactionId), ['m-0', 'm-1']);
    const stillFull = await setup.api.push([{ queue, payload: 'z', transactionId: 'm-z' }]);
    assert.equal(stillFull.json[0].status, 'failed');
    assert.equal(stillFull.json[0].error, capacityError(queue));

    // Acking the two leased messages moves the queue-mode cursor: room for exactly two.
    const ack = await setup.api.post('/api/v1/ack/batch', {
      acknowledgments: leased.json.messages.map((m: any) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId })),
    });
    assert.equal(ack.status, 200);
    assert.ok(ack.json.every((r: any) => r.success === true), ack.text);
    const room = await setup.api.push([1, 2, 3].map((i) => ({ queue, payload: i, transactionId: `r-${i}` })));
    assert.deepEqual(room.json.map((r: any) => r.status), ['queued', 'queued', 'failed']);
    assert.equal(room.json[2].error, capacityError(queue));

    // An autoAck queue-mode pop of 2 opens room for 2 more.
    const popped = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=2&autoAck=true`);
    assert.equal(popped.status, 200);
    assert.deepEqual(popped.json.messages.map((m: any) => m.transactionId), ['m-2', 'm-3']);
    const again = await setup.api.push([4, 5, 6].map((i) => ({ queue, payload: i, transactionId: `r-${i}` })));
    assert.deepEqual(again.json.map((r: any) => r.status), ['queued', 'queued', 'failed']);

    const rest = await drain(queue);
    assert.deepEqual(rest.map((m) => m.transactionId), ['m-4', 'r-1', 'r-2', 'r-4', 'r-5']);
  });

  test('the backlog is summed over partitions and items are admitted in input order', async () => {
    const queue = uniqueQueue('maxsize-parts');
    await configure(queue, { maxSize: 5 });
    // Partition names deliberately sort in the opposite order of the input.
    const res = await setup.api.push([
      { queue, partition: 'zz', payload: 0, transactionId: 'z-0' },
      { queue, partition: 'zz', payload: 1, transactionId: 'z-1' },
      { queue, partition: 'zz', payload: 2, transactionId: 'z-2' },
      { queue, partition: 'aa', payload: 3, transactionId: 'a-3' },
      { queue, partition: 'aa', payload: 4, transactionId: 'a-4' },
      { queue, partition: 'aa', payload: 5, transactionId: 'a-5' },
    ]);
    assert.equal(res.status, 201);
    assert.deepEqual(res.json.map((r: any) => [r.index, r.status]), [
      [0, 'queued'], [1, 'queued'], [2, 'queued'], [3, 'queued'], [4, 'queued'], [5, 'failed'],
    ]);
    assert.equal(res.json[5].error, capacityError(queue));
    assert.equal(res.json[5].partition, 'aa');
    // Another partition is refused too: the cap is per queue.
    const other = await setup.api.push([{ queue, partition: 'mm', payload: 'x' }]);
    assert.equal(other.json[0].status, 'failed');
    assert.equal(other.json[0].error, capacityError(queue));
  });
});
