/**
 * Traces (docs/api.md 7.6): recording events against a message (201; `Message not found` with X-Queen-Status:
 * 404), reading them per message (oldest first), by name (newest first, with the message's queue,
 * partition and payload) and the names in use; the exact snake_case shapes and 400 texts; traces go with
 * their message (queue delete, message delete, queue clear, and any removal followed by a re-push).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { partitionIdOf, pushIds, type Api } from '../support/group-fixtures.js';

const SERVER_ID = 'trace-broker-1';
const MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function setUp(): Promise<{ db: TestDatabase; broker: BrokerProcess; api: Api }> {
  const db = await createDatabase();
  const broker = await startBroker(db, { SERVER_ID });
  return { db, broker, api: client(broker.url) };
}

const uniqueName = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Records an event and returns its id (asserting the 201). */
async function record(api: Api, body: Record<string, unknown>): Promise<string> {
  const res = await api.post('/api/v1/traces', body);
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(Object.keys(res.json), ['success', 'traceId']);
  assert.equal(res.json.success, true);
  assert.match(res.json.traceId, UUID_V7);
  return res.json.traceId;
}

async function tracesOf(api: Api, partitionId: string, transactionId: string): Promise<any[]> {
  const res = await api.get(`/api/v1/traces/${partitionId}/${encodeURIComponent(transactionId)}`);
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.json), ['traces']);
  return res.json.traces;
}

async function storedTraces(db: TestDatabase, partitionId: string): Promise<number> {
  return (await db.query('SELECT count(*)::integer AS n FROM queen.traces WHERE partition_id = $1', [partitionId])).rows[0]!.n;
}

describe('recording and reading traces of a message', () => {
  let db: TestDatabase;
  let broker: BrokerProcess;
  let api: Api;
  before(async () => ({ db, broker, api } = await setUp()));
  after(async () => {
    await broker?.stop();
    await db?.close();
  });

  test('201 with the event id; the message lists its events oldest first, exact shape and defaults', async () => {
    const queue = uniqueQueue('tr');
    await pushIds(api, queue, 'P', ['t1']);
    const partitionId = await partitionIdOf(db, queue, 'P');
    const data = { step: 1, nested: { ok: true, list: [1, 'two', null] }, odd: 'nul \u0000 and lone \ud800' };
    const first = await record(api, { transactionId: 't1', partitionId: partitionId.toUpperCase(), data });
    const second = await record(api, { transactionId: 't1', partitionId, data: false, consumerGroup: 'billing', eventType: 'processing', traceNames: ['checkout', 'slow', 'checkout'] });
    const third = await record(api, { transactionId: 't1', partitionId, data: 0, consumerGroup: '', eventType: '', traceNames: 'checkout' });
    const fourth = await record(api, { transactionId: 't1', partitionId, data: '', traceNames: null, eventType: 42 });

    const traces = await tracesOf(api, partitionId, 't1');
    for (const t of traces) {
      assert.deepEqual(Object.keys(t), ['id', 'event_type', 'data', 'consumer_group', 'worker_id', 'created_at', 'trace_names']);
      assert.match(t.created_at, MILLIS);
    }
    assert.deepEqual(traces.map((t) => ({ ...t, created_at: '' })), [
      { id: first, event_type: 'info', data, consumer_group: '__QUEUE_MODE__', worker_id: SERVER_ID, created_at: '', trace_names: [] },
      { id: second, event_type: 'processing', data: false, consumer_group: 'billing', worker_id: SERVER_ID, created_at: '', trace_names: ['checkout', 'slow'] },
      { id: third, event_type: 'info', data: 0, consumer_group: '__QUEUE_MODE__', worker_id: SERVER_ID, created_at: '', trace_names: ['checkout'] },
      { id: fourth, event_type: 'info', data: '', consumer_group: '__QUEUE_MODE__', worker_id: SERVER_ID, created_at: '', trace_names: [] },
    ]);
    assert.deepEqual(await tracesOf(api, partitionId.toUpperCase(), 't1'), traces);
  });

  test('request errors: 400 with the exact texts', async () => {
    const partitionId = randomUUID();
    const cases: Array<[unknown, string]> = [
      [{}, 'transactionId and partitionId are required'],
      [{ transactionId: 't', data: 1 }, 'transactionId and partitionId are required'],
      [{ partitionId, data: 1 }, 'transactionId and partitionId are required'],
      [{ transactionId: 5, partitionId, data: 1 }, 'transactionId and partitionId are required'],
      [{ transactionId: 't', partitionId }, 'data is required'],
      [{ transactionId: 't', partitionId, data: null }, 'data is required'],
      [{ transactionId: 't', partitionId, data: 1, traceNames: 5 }, 'Invalid traceNames'],
      [{ transactionId: 't', partitionId, data: 1, traceNames: ['ok', ''] }, 'Invalid traceNames'],
      [{ transactionId: 't', partitionId, data: 1, traceNames: ['x'.repeat(256)] }, 'Invalid traceNames'],
      [{ transactionId: 't', partitionId, data: 1, traceNames: [['nested']] }, 'Invalid traceNames'],
      [{ transactionId: 't', partitionId, data: 1, consumerGroup: 'g'.repeat(256) }, 'Invalid consumerGroup'],
      [{ transactionId: 't', partitionId, data: 1, eventType: 'a\u0000b' }, 'Invalid eventType'],
    ];
    for (const [body, error] of cases) {
      const res = await api.post('/api/v1/traces', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.json, { error }, JSON.stringify(body));
    }
    const empty = await api.post('/api/v1/traces', '');
    assert.deepEqual([empty.status, empty.json], [400, { error: 'Empty request body' }]);
  });

  test('an unknown message: 200 success:false Message not found with X-Queen-Status: 404; reads are empty', async () => {
    const queue = uniqueQueue('tr-miss');
    await pushIds(api, queue, 'P', ['known']);
    const partitionId = await partitionIdOf(db, queue, 'P');
    for (const [pid, txn] of [[partitionId, 'unknown'], [randomUUID(), 'known'], ['not-a-uuid', 'known']]) {
      const res = await api.post('/api/v1/traces', { transactionId: txn, partitionId: pid, data: {} });
      assert.equal(res.status, 200, `${pid}/${txn}`);
      assert.equal(res.headers.get('x-queen-status'), '404');
      assert.deepEqual(res.json, { success: false, error: 'Message not found' });
    }
    // A transactionId PostgreSQL cannot store is refused at the edge like every such body string (issue 13).
    const nul = await api.post('/api/v1/traces', { transactionId: 'a\u0000b', partitionId, data: {} });
    assert.deepEqual([nul.status, nul.json], [400, { error: 'Invalid transactionId' }]);
    assert.deepEqual(await tracesOf(api, partitionId, 'unknown'), []);
    assert.deepEqual(await tracesOf(api, 'not-a-uuid', 'known'), []);
    assert.deepEqual(await tracesOf(api, partitionId, 'a\u0000b'), []);
    assert.equal(await storedTraces(db, partitionId), 0);
  });

  test('by name: newest first with queue, partition and payload; total and pagination', async () => {
    const name = uniqueName('checkout');
    const [qa, qb] = [uniqueQueue('tr-a'), uniqueQueue('tr-b')];
    await pushIds(api, qa, 'P1', ['a1']);
    await pushIds(api, qb, 'P2', ['b1']);
    const [pa, pb] = [await partitionIdOf(db, qa, 'P1'), await partitionIdOf(db, qb, 'P2')];
    const e1 = await record(api, { transactionId: 'a1', partitionId: pa, data: { n: 1 }, traceNames: [name] });
    await record(api, { transactionId: 'a1', partitionId: pa, data: { n: 2 }, traceNames: ['other'] });
    const e3 = await record(api, { transactionId: 'b1', partitionId: pb, data: { n: 3 }, consumerGroup: 'g', eventType: 'done', traceNames: [name, 'other'] });

    const res = await api.get(`/api/v1/traces/by-name/${name}`);
    assert.equal(res.status, 200);
    const { traces, total, pagination } = res.json;
    assert.deepEqual(Object.keys(res.json), ['traces', 'total', 'pagination']);
    for (const t of traces) assert.match(t.created_at, MILLIS);
    assert.deepEqual(traces.map((t: any) => ({ ...t, created_at: '' })), [
      { id: e3, transaction_id: 'b1', partition_id: pb, event_type: 'done', data: { n: 3 }, consumer_group: 'g', worker_id: SERVER_ID,
        created_at: '', queue_name: qb, partition_name: 'P2', message_payload: { id: 'b1' }, trace_names: [name, 'other'] },
      { id: e1, transaction_id: 'a1', partition_id: pa, event_type: 'info', data: { n: 1 }, consumer_group: '__QUEUE_MODE__', worker_id: SERVER_ID,
        created_at: '', queue_name: qa, partition_name: 'P1', message_payload: { id: 'a1' }, trace_names: [name] },
    ]);
    assert.deepEqual([total, pagination], [2, { limit: 100, offset: 0 }]);

    const page = await api.get(`/api/v1/traces/by-name/${name}?limit=1&offset=1`);
    assert.deepEqual([page.json.traces.map((t: any) => t.id), page.json.total, page.json.pagination], [[e1], 2, { limit: 1, offset: 1 }]);
    const beyond = await api.get(`/api/v1/traces/by-name/${name}?offset=5`);
    assert.deepEqual(beyond.json, { traces: [], total: 2, pagination: { limit: 100, offset: 5 } });
    const unknown = await api.get(`/api/v1/traces/by-name/${uniqueName('none')}`);
    assert.deepEqual(unknown.json, { traces: [], total: 0, pagination: { limit: 100, offset: 0 } });
    const invalid = await api.get(`/api/v1/traces/by-name/${'n'.repeat(256)}`);
    assert.deepEqual(invalid.json, { traces: [], total: 0, pagination: { limit: 100, offset: 0 } });
  });
});

describe('GET /api/v1/traces/names', () => {
  let db: TestDatabase;
  let broker: BrokerProcess;
  let api: Api;
  before(async () => ({ db, broker, api } = await setUp()));
  after(async () => {
    await broker?.stop();
    await db?.close();
  });

  test('names with their event and message counts, most recently seen first; pagination', async () => {
    assert.deepEqual((await api.get('/api/v1/traces/names')).json, { trace_names: [], total: 0, pagination: { limit: 50, offset: 0 } });
    const queue = uniqueQueue('tr-names');
    await pushIds(api, queue, 'P', ['m1', 'm2']);
    const partitionId = await partitionIdOf(db, queue, 'P');
    await record(api, { transactionId: 'm1', partitionId, data: 1, traceNames: ['alpha'] });
    await record(api, { transactionId: 'm1', partitionId, data: 2, traceNames: ['alpha', 'beta'] });
    await record(api, { transactionId: 'm2', partitionId, data: 3, traceNames: ['alpha'] });
    await record(api, { transactionId: 'm2', partitionId, data: 4 });
    await record(api, { transactionId: 'm1', partitionId, data: 5, traceNames: ['gamma'] });
    const lastSeen = async (name: string): Promise<string> => (await db.query(
      `SELECT queen.format_millis(max(created_at)) AS at FROM queen.traces WHERE $1 = ANY (trace_names)`, [name])).rows[0]!.at;

    const res = await api.get('/api/v1/traces/names');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      trace_names: [
        { trace_name: 'gamma', trace_count: 1, message_count: 1, last_seen: await lastSeen('gamma') },
        { trace_name: 'alpha', trace_count: 3, message_count: 2, last_seen: await lastSeen('alpha') },
        { trace_name: 'beta', trace_count: 1, message_count: 1, last_seen: await lastSeen('beta') },
      ],
      total: 3,
      pagination: { limit: 50, offset: 0 },
    });
    const page = await api.get('/api/v1/traces/names?limit=1&offset=1');
    assert.deepEqual([page.json.trace_names.map((n: any) => n.trace_name), page.json.total, page.json.pagination], [['alpha'], 3, { limit: 1, offset: 1 }]);
  });
});

describe('traces go with their message', () => {
  let db: TestDatabase;
  let broker: BrokerProcess;
  let api: Api;
  before(async () => ({ db, broker, api } = await setUp()));
  after(async () => {
    await broker?.stop();
    await db?.close();
  });

  async function traced(queue: string, ids: string[], name: string): Promise<string> {
    await pushIds(api, queue, 'P', ids);
    const partitionId = await partitionIdOf(db, queue, 'P');
    for (const id of ids) await record(api, { transactionId: id, partitionId, data: { id }, traceNames: [name] });
    return partitionId;
  }

  test('queue delete removes the queue traces', async () => {
    const queue = uniqueQueue('tr-del');
    const partitionId = await traced(queue, ['d1', 'd2'], uniqueName('qd'));
    assert.equal(await storedTraces(db, partitionId), 2);
    assert.equal((await api.del(`/api/v1/resources/queues/${queue}`)).json.existed, true);
    assert.equal(await storedTraces(db, partitionId), 0);
  });

  test('message delete and queue clear remove the traces of the messages they remove', async () => {
    const queue = uniqueQueue('tr-msg');
    const name = uniqueName('md');
    const partitionId = await traced(queue, ['k1', 'k2', 'k3'], name);
    const deleted = await api.del(`/api/v1/messages/${partitionId}/k1`);
    assert.equal(deleted.json.success, true, deleted.text);
    assert.deepEqual(await tracesOf(api, partitionId, 'k1'), []);
    assert.equal(await storedTraces(db, partitionId), 2);
    const cleared = await api.del(`/api/v1/queues/${queue}/clear`);
    assert.equal(cleared.json.success, true, cleared.text);
    assert.equal(await storedTraces(db, partitionId), 0);
    assert.equal((await api.get(`/api/v1/traces/by-name/${name}`)).json.total, 0);
  });

  test('a message removed by any path and pushed again under its transactionId starts without traces', async () => {
    const queue = uniqueQueue('tr-reuse');
    const name = uniqueName('reuse');
    const partitionId = await traced(queue, ['r1'], name);
    // Removal the trace hook does not see (as retention would: segments and keys only).
    await db.query('DELETE FROM queen.segments WHERE partition_id = $1', [partitionId]);
    await db.query('DELETE FROM queen.message_keys WHERE partition_id = $1', [partitionId]);
    await pushIds(api, queue, 'P', ['r1']);
    assert.equal(await storedTraces(db, partitionId), 1, 'the old row is still stored');
    assert.deepEqual(await tracesOf(api, partitionId, 'r1'), []);
    assert.deepEqual((await api.get(`/api/v1/traces/by-name/${name}`)).json.total, 0);
    assert.deepEqual((await api.get('/api/v1/traces/names')).json.trace_names.filter((n: any) => n.trace_name === name), []);
  });
});
