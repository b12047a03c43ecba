/**
 * Resource listings (docs/api.md 7.2): queues, namespaces, tasks, the overview and partitions, with counts
 * computed directly (statsAge 0). Each suite owns its database, so the listings are exactly the world it
 * built; every expected figure is hand-computed from that world (see the comment on `world`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { client, createDatabase, startBroker, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { popped, pushIds, setSegmentTime, type Api } from '../support/group-fixtures.js';

const MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function setUp(): Promise<{ db: TestDatabase; broker: BrokerProcess; api: Api }> {
  const db = await createDatabase();
  const broker = await startBroker(db);
  return { db, broker, api: client(broker.url) };
}

function within(value: number, min: number, max: number, label: string): void {
  assert.ok(value >= min && value <= max, `${label}: ${value} not in [${min}, ${max}]`);
}

/** id and createdAt of each queue, by name. */
async function queueRows(db: TestDatabase): Promise<Map<string, { id: string; createdAt: string }>> {
  const rows = await db.query('SELECT id, name, queen.format_millis(created_at) AS created FROM queen.queues');
  return new Map(rows.rows.map((r) => [r.name, { id: r.id, createdAt: r.created }]));
}

/**
 * The world:
 *   billing.invoices  P1: i1..i5 (100 s old), queue mode holds a lease on i1, i2 (its cursor 0)
 *                     P2: j1..j3 (1000 s old), group audit settled all three (no queue mode)
 *   billing.refunds   P1: r1, r2 (70 s old), group ops failed r1 once (retry counter 1, cursor 0)
 *   orders            Default: o1..o4 (300 s old), queue mode dead-lettered o1 (cursor 1)
 * Counts per partition (reference cursor: queue mode's when queue mode is known on the queue, else the lowest
 * named group's; a group counts on a partition it has not touched from where it will start, here 0):
 *   invoices P1 total 5, processing 2, pending 3; P2 total 3, pending 3 (queue mode, known on invoices, has not
 *   read them; audit has); refunds total 2, pending 2, failed 1; orders total 4, completed 1, pending 3,
 *   deadLetter 1.
 * Pairs of the known groups (offset lag, time lag): (P1, queue mode) 5, 100; (P1, audit, untouched) 5, 100;
 *   (P2, audit) 0, 0; (P2, queue mode, untouched) 3, 1000; (refunds, ops) 2, 70; (orders, queue mode) 3, 300.
 */
describe('a known world', () => {
  let db: TestDatabase;
  let broker: BrokerProcess;
  let api: Api;

  before(async () => {
    ({ db, broker, api } = await setUp());
    await pushIds(api, 'billing.invoices', 'P1', ['i1', 'i2', 'i3', 'i4', 'i5']);
    await pushIds(api, 'billing.invoices', 'P2', ['j1', 'j2', 'j3']);
    await pushIds(api, 'billing.refunds', 'P1', ['r1', 'r2']);
    await pushIds(api, 'orders', 'Default', ['o1', 'o2', 'o3', 'o4']);
    assert.deepEqual(popped(await api.get('/api/v1/pop/queue/billing.invoices/partition/P1?batch=2')), ['i1', 'i2']);
    assert.deepEqual(popped(await api.get('/api/v1/pop/queue/billing.invoices/partition/P2?batch=3&consumerGroup=audit&autoAck=true')), ['j1', 'j2', 'j3']);
    const ops = await api.get('/api/v1/pop/queue/billing.refunds?consumerGroup=ops');
    assert.deepEqual(popped(ops), ['r1']);
    const failed = await api.post('/api/v1/ack', { transactionId: 'r1', partitionId: ops.json.partitionId, leaseId: ops.json.leaseId, consumerGroup: 'ops', status: 'failed' });
    assert.equal(failed.json[0].success, true, failed.text);
    const orders = await api.get('/api/v1/pop/queue/orders');
    assert.deepEqual(popped(orders), ['o1']);
    const dlq = await api.post('/api/v1/ack', { transactionId: 'o1', partitionId: orders.json.partitionId, leaseId: orders.json.leaseId, status: 'dlq' });
    assert.equal(dlq.json[0].dlq, true, dlq.text);
    await setSegmentTime(db, 'billing.invoices', 'P1', 100);
    await setSegmentTime(db, 'billing.invoices', 'P2', 1000);
    await setSegmentTime(db, 'billing.refunds', 'P1', 70);
    await setSegmentTime(db, 'orders', 'Default', 300);
  });
  after(async () => {
    await broker?.stop();
    await db?.close();
  });

  test('GET /api/v1/resources/queues: newest first, exact shape and counts', async () => {
    const q = await queueRows(db);
    const entry = (name: string, namespace: string, task: string, partitions: number, messages: object) =>
      ({ id: q.get(name)!.id, name, namespace, task, createdAt: q.get(name)!.createdAt, partitions, messages });
    const orders = entry('orders', 'orders', '', 1, { total: 4, pending: 3, processing: 0 });
    const refunds = entry('billing.refunds', 'billing', 'refunds', 1, { total: 2, pending: 2, processing: 0 });
    const invoices = entry('billing.invoices', 'billing', 'invoices', 2, { total: 8, pending: 6, processing: 2 });

    const all = await api.get('/api/v1/resources/queues');
    assert.equal(all.status, 200);
    assert.deepEqual(all.json, { queues: [orders, refunds, invoices] });
    const cases: Array<[string, object[]]> = [
      ['?namespace=billing', [refunds, invoices]],
      ['?task=refunds', [refunds]],
      ['?namespace=billing&task=invoices', [invoices]],
      ['?namespace=nope', []],
      ['?limit=1&offset=1', [refunds]],
      ['?limit=2', [orders, refunds]],
      ['?offset=2', [invoices]],
      ['?offset=3', []],
      ['?limit=0&offset=-1', [orders, refunds, invoices]],
      ['?limit=abc', [orders, refunds, invoices]],
    ];
    for (const [query, queues] of cases) {
      const res = await api.get(`/api/v1/resources/queues${query}`);
      assert.deepEqual(res.json, { queues }, query);
    }
  });

  test('GET /api/v1/resources/namespaces and /tasks (queues without a task belong to no task)', async () => {
    const namespaces = await api.get('/api/v1/resources/namespaces');
    assert.equal(namespaces.status, 200);
    assert.deepEqual(namespaces.json, {
      namespaces: [
        { namespace: 'billing', queues: 2, partitions: 3, messages: { total: 10, pending: 8 } },
        { namespace: 'orders', queues: 1, partitions: 1, messages: { total: 4, pending: 3 } },
      ],
    });
    const tasks = await api.get('/api/v1/resources/tasks');
    assert.deepEqual(tasks.json, {
      tasks: [
        { task: 'invoices', queues: 1, partitions: 2, messages: { total: 8, pending: 6 } },
        { task: 'refunds', queues: 1, partitions: 1, messages: { total: 2, pending: 2 } },
      ],
    });
  });

  test('GET /api/v1/resources/overview: totals, lag over the pairs of the known groups, throughput of the last minute', async () => {
    const res = await api.get('/api/v1/resources/overview');
    assert.equal(res.status, 200);
    const body = res.json;
    assert.deepEqual(Object.keys(body), ['queues', 'partitions', 'namespaces', 'tasks', 'messages', 'lag', 'throughput', 'timestamp', 'statsAge']);
    assert.match(body.timestamp, MILLIS);
    // Time lags 0, 70, 100, 100, 300, 1000 (plus the seconds this test takes).
    const { time } = body.lag;
    within(time.avg, 261.6, 264.7, 'avg time lag');
    within(time.median, 100, 103, 'median time lag');
    within(time.max, 1000, 1003, 'max time lag');
    assert.deepEqual({ ...body, timestamp: '', lag: { ...body.lag, time: { min: time.min } } }, {
      queues: 3, partitions: 4, namespaces: 2, tasks: 2,
      messages: { total: 14, pending: 11, processing: 2, completed: 1, failed: 1, deadLetter: 1 },
      lag: { time: { min: 0 }, offset: { avg: 3, median: 3, min: 0, max: 5 } },
      throughput: { ingestedPerSecond: 0, processedPerSecond: 0 },
      timestamp: '',
      statsAge: 0,
    });
  });

  test('GET /api/v1/resources/partitions: filters, pagination, total, exact shape', async () => {
    const rows = await db.query(
      `SELECT p.id, q.name || '/' || p.name AS key, queen.format_millis(p.created_at) AS created,
              queen.format_millis(greatest(p.last_push_at, (SELECT max(c.last_activity_at) FROM queen.cursors c WHERE c.partition_id = p.id))) AS active
       FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id`,
    );
    const facts = new Map(rows.rows.map((r) => [r.key, r]));
    const entry = (queue: string, name: string, namespace: string, task: string, messages: object, consumerGroups: number) => {
      const f = facts.get(`${queue}/${name}`)!;
      return { id: f.id, name, queue, namespace, task, createdAt: f.created, lastActivity: f.active, messages, consumerGroups };
    };
    const invoicesP1 = entry('billing.invoices', 'P1', 'billing', 'invoices', { total: 5, pending: 3, processing: 2 }, 1);
    const invoicesP2 = entry('billing.invoices', 'P2', 'billing', 'invoices', { total: 3, pending: 3, processing: 0 }, 1);
    const refunds = entry('billing.refunds', 'P1', 'billing', 'refunds', { total: 2, pending: 2, processing: 0 }, 1);
    const orders = entry('orders', 'Default', 'orders', '', { total: 4, pending: 3, processing: 0 }, 1);
    assert.match(invoicesP1.lastActivity, MILLIS);

    const cases: Array<[string, object[], number, object]> = [
      ['', [invoicesP1, invoicesP2, refunds, orders], 4, { limit: 100, offset: 0 }],
      ['?namespace=billing', [invoicesP1, invoicesP2, refunds], 3, { limit: 100, offset: 0 }],
      ['?queue=orders', [orders], 1, { limit: 100, offset: 0 }],
      ['?task=invoices&limit=1&offset=1', [invoicesP2], 2, { limit: 1, offset: 1 }],
      ['?offset=10', [], 4, { limit: 100, offset: 10 }],
      ['?queue=missing', [], 0, { limit: 100, offset: 0 }],
    ];
    for (const [query, partitions, total, pagination] of cases) {
      const res = await api.get(`/api/v1/resources/partitions${query}`);
      assert.equal(res.status, 200, query);
      assert.deepEqual(res.json, { partitions, total, pagination }, query);
    }
  });
});

describe('throughput and an empty broker', () => {
  let db: TestDatabase;
  let broker: BrokerProcess;
  let api: Api;

  before(async () => {
    ({ db, broker, api } = await setUp());
  });
  after(async () => {
    await broker?.stop();
    await db?.close();
  });

  test('with nothing stored every listing is empty and the overview is all zeros', async () => {
    assert.equal((await api.get('/api/v1/resources/queues')).text, '{"queues":[]}');
    assert.equal((await api.get('/api/v1/resources/namespaces')).text, '{"namespaces":[]}');
    assert.equal((await api.get('/api/v1/resources/tasks')).text, '{"tasks":[]}');
    assert.deepEqual((await api.get('/api/v1/resources/partitions')).json, { partitions: [], total: 0, pagination: { limit: 100, offset: 0 } });
    const overview = await api.get('/api/v1/resources/overview');
    const zero = { avg: 0, median: 0, min: 0, max: 0 };
    assert.deepEqual({ ...overview.json, timestamp: '' }, {
      queues: 0, partitions: 0, namespaces: 0, tasks: 0,
      messages: { total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 },
      lag: { time: zero, offset: zero }, throughput: { ingestedPerSecond: 0, processedPerSecond: 0 }, timestamp: '', statsAge: 0,
    });
  });

  test('messages written and settled within the last minute, per second', async () => {
    await pushIds(api, 'flow', 'Default', ['f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9', 'f10']);
    assert.equal(popped(await api.get('/api/v1/pop/queue/flow?consumerGroup=a&batch=4&autoAck=true')).length, 4);
    assert.equal(popped(await api.get('/api/v1/pop/queue/flow?consumerGroup=b&batch=10&autoAck=true')).length, 10);
    // 10 ingested; settled by a (4) and b (10): per second over 60 s, 2 decimals.
    const fresh = await api.get('/api/v1/resources/overview');
    assert.deepEqual(fresh.json.throughput, { ingestedPerSecond: 0.17, processedPerSecond: 0.23 });
    await setSegmentTime(db, 'flow', 'Default', 120);
    const old = await api.get('/api/v1/resources/overview');
    assert.deepEqual(old.json.throughput, { ingestedPerSecond: 0, processedPerSecond: 0 });
  });
});
