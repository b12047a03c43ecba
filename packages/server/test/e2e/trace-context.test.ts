/**
 * W3C trace context carried by messages (docs/api.md 4.4): stored from the item's `traceparent`/`tracestate`
 * (or, for a single-item push without it, from the request's headers), returned on pops, by the messages API,
 * through transactions, stream sink outputs, the SQL API and the failover buffer; invalid values are 400s that
 * store nothing; a message without context keeps the ten keys of the spec.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { serverConnection, uniqueQueue, useBroker } from '../support/harness.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const OTHER = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
const TEN_KEYS = ['id', 'transactionId', 'traceId', 'data', 'producerSub', 'createdAt', 'partitionId', 'partition', 'leaseId', 'consumerGroup'];

const bufferDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-trace-buffer-'));
const setup = useBroker({ FILE_BUFFER_DIR: bufferDir, FILE_BUFFER_FLUSH_MS: '20' });

async function popAll(queue: string, params = 'batch=100'): Promise<any[]> {
  const res = await setup.api.get(`/api/v1/pop/queue/${queue}?${params}&autoAck=true`);
  if (res.status === 204) return [];
  assert.equal(res.status, 200, res.text);
  return res.json.messages;
}

const contextOf = (m: any): [unknown, unknown] => [m.traceparent, m.tracestate];

test('the item fields are stored and returned on the pop; a message without them keeps exactly the ten keys', async () => {
  const queue = uniqueQueue('trace');
  const res = await setup.api.push([
    { queue, payload: 1, traceparent: TRACEPARENT, tracestate: ' congo=t61rcWkgMzE, rojo=00f067aa0ba902b7 ' },
    { queue, payload: 2, traceparent: OTHER },
    { queue, payload: 3 },
    { queue, payload: 4, traceparent: OTHER, tracestate: '' },
  ]);
  assert.equal(res.status, 201, res.text);
  const messages = await popAll(queue);
  assert.deepEqual(messages.map(contextOf), [
    [TRACEPARENT, 'congo=t61rcWkgMzE, rojo=00f067aa0ba902b7'], [OTHER, undefined], [undefined, undefined], [OTHER, undefined],
  ]);
  assert.deepEqual(Object.keys(messages[2]), TEN_KEYS);
  assert.deepEqual(Object.keys(messages[0]), [...TEN_KEYS, 'traceparent', 'tracestate']);
});

test('a single-item push takes the request headers; several items, or an item with its own, do not; a bad header is ignored', async () => {
  const queue = uniqueQueue('trace-header');
  const headers = { traceparent: TRACEPARENT, tracestate: 'vendor=1' };
  assert.equal((await setup.api.post('/api/v1/push', { items: [{ queue, payload: 'single' }] }, headers)).status, 201);
  assert.equal((await setup.api.post('/api/v1/push', { items: [{ queue, payload: 'own', traceparent: OTHER }] }, headers)).status, 201);
  assert.equal((await setup.api.post('/api/v1/push', { items: [{ queue, payload: 'a' }, { queue, payload: 'b' }] }, headers)).status, 201);
  const bad = await setup.api.post('/api/v1/push', { items: [{ queue, payload: 'bad header' }] }, { traceparent: 'not-a-traceparent' });
  assert.equal(bad.status, 201, bad.text);
  const messages = await popAll(queue);
  assert.deepEqual(messages.map((m) => [m.data, ...contextOf(m)]), [
    ['single', TRACEPARENT, 'vendor=1'], ['own', OTHER, undefined], ['a', undefined, undefined], ['b', undefined, undefined],
    ['bad header', undefined, undefined],
  ]);
});

test('an invalid traceparent or tracestate is a 400 naming the field, and nothing of the request is stored', async () => {
  const queue = uniqueQueue('trace-invalid');
  const invalidParent = 'Invalid traceparent: must be a W3C traceparent (00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>)';
  const invalidState = 'Invalid tracestate: must be a W3C tracestate (at most 32 key=value members, 512 characters)';
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ traceparent: 7 }, 'Traceparent must be a string'],
    [{ traceparent: '' }, invalidParent],
    [{ traceparent: TRACEPARENT.toUpperCase() }, invalidParent],
    [{ traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }, invalidParent],
    [{ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01' }, invalidParent],
    [{ traceparent: `ff${TRACEPARENT.slice(2)}` }, invalidParent],
    [{ traceparent: `${TRACEPARENT}-00` }, invalidParent],
    [{ traceparent: TRACEPARENT, tracestate: 5 }, 'Tracestate must be a string'],
    [{ tracestate: 'a=1' }, 'Tracestate needs a traceparent'],
    [{ traceparent: TRACEPARENT, tracestate: 'Upper=1' }, invalidState],
    [{ traceparent: TRACEPARENT, tracestate: 'a=1,b' }, invalidState],
    [{ traceparent: TRACEPARENT, tracestate: Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',') }, invalidState],
    [{ traceparent: TRACEPARENT, tracestate: `a=${'x'.repeat(520)}` }, invalidState],
  ];
  for (const [fields, error] of cases) {
    const res = await setup.api.push([{ queue, payload: 'fine', traceparent: OTHER }, { queue, payload: 'bad', ...fields }]);
    assert.deepEqual([res.status, res.json], [400, { error }], JSON.stringify(fields));
  }
  // A later version may append fields; version 00 may not.
  assert.equal((await setup.api.push([{ queue, payload: 'v01', traceparent: `01${TRACEPARENT.slice(2)}-0a` }])).status, 201);
  assert.deepEqual((await popAll(queue)).map((m) => m.data), ['v01']);
});

test('transactions, the messages API and DLQ requeue carry the context', async () => {
  const queue = uniqueQueue('trace-tx');
  const tx = await setup.api.post('/api/v1/transaction', { operations: [{ type: 'push', items: [{ queue, payload: 'tx', transactionId: 't1', traceparent: TRACEPARENT, tracestate: 'k=v' }] }] });
  assert.equal(tx.status, 200, tx.text);
  const partitionId = (await setup.db.query<{ id: string }>('SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1', [queue])).rows[0]!.id;
  const detail = await setup.api.get(`/api/v1/messages/${partitionId}/t1`);
  assert.equal(detail.status, 200, detail.text);
  assert.deepEqual(contextOf(detail.json), [TRACEPARENT, 'k=v']);
  const list = await setup.api.get(`/api/v1/messages?queue=${queue}`);
  assert.deepEqual(list.json.messages.map(contextOf), [[TRACEPARENT, 'k=v']]);

  const popped = await setup.api.get(`/api/v1/pop/queue/${queue}`);
  assert.deepEqual(contextOf(popped.json.messages[0]), [TRACEPARENT, 'k=v']);
  const failed = await setup.api.post('/api/v1/ack', { transactionId: 't1', partitionId, leaseId: popped.json.leaseId, status: 'failed', error: 'x' });
  assert.equal(failed.status, 200, failed.text);
  await setup.api.post(`/api/v1/messages/${partitionId}/t1/dlq`, {});
  const retried = await setup.api.post(`/api/v1/messages/${partitionId}/t1/retry`, {});
  assert.equal(retried.json.success, true, retried.text);
  const again = await setup.api.get(`/api/v1/messages/${partitionId}/${retried.json.newTransactionId}`);
  assert.deepEqual(contextOf(again.json), [TRACEPARENT, 'k=v']);
  const plain = await setup.api.push([{ queue, transactionId: 'plain' }]);
  assert.equal(plain.status, 201);
  assert.deepEqual(contextOf((await setup.api.get(`/api/v1/messages/${partitionId}/plain`)).json), [null, null]);
});

test('a stream cycle\'s sink outputs carry the context their items were given', async () => {
  const source = uniqueQueue('trace-src');
  const sink = uniqueQueue('trace-sink');
  await setup.api.push([{ queue: source, payload: 1, traceparent: TRACEPARENT }]);
  const reg = await setup.api.post('/streams/v1/queries', { name: `q-${randomUUID()}`, source_queue: source, config_hash: 'a'.repeat(64) });
  assert.equal(reg.status, 200, reg.text);
  const popped = await setup.api.get(`/api/v1/pop/queue/${source}?consumerGroup=g`);
  const m = popped.json.messages[0];
  const cycle = await setup.api.post('/streams/v1/cycle', {
    query_id: reg.json.query_id, partition_id: m.partitionId, consumer_group: 'g',
    push_items: [{ queue: sink, payload: 'out', traceparent: m.traceparent }],
    ack: { transactionId: m.transactionId, leaseId: m.leaseId, status: 'completed', count: 1 },
  });
  assert.equal(cycle.status, 200, cycle.text);
  assert.deepEqual((await popAll(sink)).map(contextOf), [[TRACEPARENT, undefined]]);
});

test('the SQL API produces and consumes the context, and refuses an invalid one naming the item', async () => {
  const queue = uniqueQueue('trace-sql');
  const db = new pg.Client(serverConnection(setup.db.name));
  await db.connect();
  try {
    await db.query('SELECT queen.produce($1::jsonb)', [JSON.stringify([{ queue, payload: 1, traceparent: TRACEPARENT, tracestate: 'a=b ' }, { queue, payload: 2 }])]);
    await assert.rejects(db.query('SELECT queen.produce($1::jsonb)', [JSON.stringify([{ queue }, { queue, traceparent: 'nope' }])]),
      (error: pg.DatabaseError) => error.code === '22023' && error.message === 'queen.produce: p_items[1].traceparent must be a W3C traceparent (00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>)');
    await assert.rejects(db.query('SELECT queen.produce($1::jsonb)', [JSON.stringify([{ queue, traceparent: TRACEPARENT, tracestate: 'A=1' }])]),
      (error: pg.DatabaseError) => error.code === '22023' && /p_items\[0\]\.tracestate must be a W3C tracestate/.test(error.message));
    const consumed = await db.query<{ c: any }>('SELECT queen.consume($1::jsonb) AS c', [JSON.stringify({ queueName: queue, batchSize: 10, autoAck: true })]);
    const messages = consumed.rows[0]!.c[0].messages;
    assert.deepEqual(messages.map(contextOf), [[TRACEPARENT, 'a=b'], [undefined, undefined]]);
  } finally {
    await db.end();
  }
});

test('a push buffered during maintenance keeps its context through the replay', async () => {
  const queue = uniqueQueue('trace-buffer');
  assert.equal((await setup.api.post('/api/v1/system/maintenance', { enabled: true })).status, 200);
  try {
    const res = await setup.api.push([{ queue, payload: 'buffered', traceparent: TRACEPARENT, tracestate: 'b=1' }]);
    assert.equal(res.json[0].status, 'buffered', res.text);
  } finally {
    assert.equal((await setup.api.post('/api/v1/system/maintenance', { enabled: false })).status, 200);
  }
  let messages: any[] = [];
  for (let i = 0; i < 100 && messages.length === 0; i++) {
    messages = await popAll(queue);
    if (messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.deepEqual(messages.map(contextOf), [[TRACEPARENT, 'b=1']]);
});
