/**
 * The SQL API beside a running broker process (docs/sql-api.md): the transactional outbox (a produce that
 * rolls back is never delivered; one that commits wakes a parked HTTP pop at once, measured), a trigger
 * producing one message per inserted row, SQL and HTTP consumers of one group sharing leases, and an SQL
 * long poll woken by an HTTP push.
 *
 * The broker re-checks parked pops only every 5 s, so a delivery well under that comes from the wake-up the
 * SQL produce sends at commit.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { Queen } from '@queen/client';
import { client, createDatabase, serverConnection, startBroker, uniqueQueue, type BrokerProcess, type Client, type TestDatabase } from '../support/harness.js';
import { loadOfficial } from '../support/streams.js';

const SLOW_TICKS = { POP_WAIT_INITIAL_INTERVAL_MS: '5000', POP_WAIT_MAX_INTERVAL_MS: '5000' };

let db: TestDatabase;
let broker: BrokerProcess;
let api: Client;
const sessions: pg.Client[] = [];

before(async () => {
  db = await createDatabase();
  broker = await startBroker(db, SLOW_TICKS);
  api = client(broker.url);
});
after(async () => {
  for (const s of sessions) await s.end().catch(() => undefined);
  await broker?.stop();
  await db?.close();
});

/** A dedicated connection to the broker's database (an application's connection). */
async function session(): Promise<pg.Client> {
  const s = new pg.Client({ ...serverConnection(db.name), options: '-c statement_timeout=30000' } as pg.ClientConfig);
  await s.connect();
  sessions.push(s);
  return s;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A long-poll HTTP pop, parked at once; resolves with the response and when it arrived. */
function parkedPop(path: string): Promise<{ status: number; body: any; at: number }> {
  return api.get(path).then((res) => ({ status: res.status, body: res.json, at: Date.now() }));
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

test('outbox: a rolled-back produce is never delivered; a committed one wakes a parked HTTP pop at once', async () => {
  const queue = uniqueQueue('outbox');
  const app = await session();
  await app.query('CREATE TABLE IF NOT EXISTS orders (id serial PRIMARY KEY, total integer NOT NULL)');
  await api.post('/api/v1/configure', { queue, options: {} });

  const parked = parkedPop(`/api/v1/pop/queue/${queue}?wait=true&timeout=1500`);
  await sleep(150);
  await app.query('BEGIN');
  await app.query('INSERT INTO orders (total) VALUES (100)');
  await app.query(`SELECT queen.produce_one($1, '{"order":"rolled back"}', 'Default', 'rb-1')`, [queue]);
  await app.query('ROLLBACK');
  const nothing = await parked;
  assert.equal(nothing.status, 204, 'the rolled-back message woke nobody and does not exist');
  assert.equal((await api.get(`/api/v1/pop/queue/${queue}`)).status, 204);

  // Wake latency, commit to delivery, alternating with HTTP pushes into the same kind of parked pop as the
  // baseline of this machine at this moment (the broker wakes its own pops without a NOTIFY).
  const viaSql: number[] = [];
  const viaHttp: number[] = [];
  for (let i = 0; i < 60; i++) {
    const pop = parkedPop(`/api/v1/pop/queue/${queue}?wait=true&timeout=10000&autoAck=true`);
    await sleep(100);
    let started: number;
    let expected: [string, unknown];
    if (i % 2 === 0) {
      await app.query('BEGIN');
      const order = (await app.query<{ id: number }>('INSERT INTO orders (total) VALUES ($1) RETURNING id', [i])).rows[0]!.id;
      await app.query(`SELECT queen.produce_one($1, $2, 'Default', $3)`, [queue, JSON.stringify({ order, total: i }), `order-${order}`]);
      started = Date.now();
      await app.query('COMMIT');
      expected = [`order-${order}`, { order, total: i }];
    } else {
      started = Date.now();
      await api.push([{ queue, transactionId: `http-${i}`, payload: { i } }]);
      expected = [`http-${i}`, { i }];
    }
    const res = await pop;
    assert.equal(res.status, 200, `iteration ${i}`);
    assert.deepEqual(res.body.messages.map((m: any) => [m.transactionId, m.data]), [expected]);
    (i % 2 === 0 ? viaSql : viaHttp).push(res.at - started);
  }
  const report = (name: string, values: number[]): number => {
    values.sort((a, b) => a - b);
    console.log(`${name} -> parked HTTP pop: p50 ${percentile(values, 50)} ms, p99 ${percentile(values, 99)} ms (${values.length}: ${values.join(' ')})`);
    return percentile(values, 99);
  };
  report('SQL produce (commit)', viaSql);
  report('HTTP push (request)', viaHttp);
  // Not woken, a pop would answer at the broker's 5 s re-check: every delivery far below that was woken. The
  // bounds leave room for a loaded machine; the figures are printed for the record.
  assert.ok(viaSql.at(-1)! < 2500, `slowest wake ${viaSql.at(-1)} ms`);
  assert.ok(percentile(viaSql, 50) < 250, `wake p50 ${percentile(viaSql, 50)} ms`);
});

test('an AFTER INSERT trigger produces one message per row, in commit order per partition', async () => {
  const queue = uniqueQueue('trig');
  const app = await session();
  const table = `events_${queue.replace(/-/g, '_')}`;
  await app.query(`CREATE TABLE ${table} (id serial PRIMARY KEY, customer text NOT NULL, amount integer NOT NULL)`);
  await app.query(`CREATE FUNCTION ${table}_out() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM queen.produce_one('${queue}', to_jsonb(NEW), NEW.customer, 'event-' || NEW.id);
      RETURN NEW;
    END $$`);
  await app.query(`CREATE TRIGGER ${table}_out AFTER INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_out()`);
  // The queue exists: an uncommitted produce that creates a queue holds every other producer of it.
  await api.post('/api/v1/configure', { queue, options: {} });
  const other = await session();
  // Two transactions on the same customer commit in the opposite order to their first insert.
  await app.query('BEGIN');
  await app.query(`INSERT INTO ${table} (customer, amount) VALUES ('c1', 1), ('c2', 2)`);
  await other.query('BEGIN');
  await other.query(`INSERT INTO ${table} (customer, amount) VALUES ('c3', 3)`);
  await other.query('COMMIT');
  await app.query(`INSERT INTO ${table} (customer, amount) VALUES ('c1', 4)`);
  await app.query('COMMIT');
  await other.query(`INSERT INTO ${table} (customer, amount) VALUES ('c1', 5)`);
  await app.query('BEGIN');
  await app.query(`INSERT INTO ${table} (customer, amount) VALUES ('c1', 99)`);
  await app.query('ROLLBACK');

  const seen = new Map<string, number[]>();
  for (let i = 0; i < 10; i++) {
    const res = await api.get(`/api/v1/pop/queue/${queue}?batch=10&partitions=0&autoAck=true&consumerGroup=audit`);
    if (res.status === 204) break;
    for (const m of res.json.messages) seen.set(m.partition, [...(seen.get(m.partition) ?? []), m.data.amount]);
  }
  assert.deepEqual(Object.fromEntries([...seen].sort()), { c1: [1, 4, 5], c2: [2], c3: [3] });
});

test('SQL and HTTP consumers of one group: leases are honoured across both, nothing twice, nothing lost', async () => {
  const queue = uniqueQueue('mixed');
  const sqlConsumer = await session();
  const partitions = ['p0', 'p1', 'p2', 'p3'];
  const items = partitions.flatMap((partition) => Array.from({ length: 10 }, (_, i) => ({ queue, partition, transactionId: `${partition}-${i}`, payload: { i } })));
  const pushed = await api.push(items);
  assert.equal(pushed.status, 201);

  // A lease taken in SQL blocks the HTTP pop of that partition, and the other way round.
  const [held] = (await sqlConsumer.query(`SELECT queen.consume($1) AS r`, [JSON.stringify({ queueName: queue, partitionName: 'p0', consumerGroup: 'g', batchSize: 2 })])).rows[0].r;
  assert.equal(held.messages.length, 2);
  const blocked = await api.get(`/api/v1/pop/queue/${queue}/partition/p0?consumerGroup=g`);
  assert.equal(blocked.status, 204);
  assert.equal(blocked.headers.get('x-queen-empty-reason'), 'leased');
  const httpLease = await api.get(`/api/v1/pop/queue/${queue}/partition/p1?consumerGroup=g&batch=2`);
  assert.equal(httpLease.status, 200);
  const [sqlBlocked] = (await sqlConsumer.query(`SELECT queen.consume($1) AS r`, [JSON.stringify({ queueName: queue, partitionName: 'p1', consumerGroup: 'g' })])).rows[0].r;
  assert.equal(sqlBlocked.emptyReason, 'leased');
  // Each door acks the other's lease holders' messages through its own door: SQL commits the HTTP batch.
  const settled = (await sqlConsumer.query('SELECT queen.commit($1) AS r', [JSON.stringify(httpLease.json.messages.map((m: any) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, consumerGroup: 'g' })))])).rows[0].r;
  assert.ok(settled.every((r: any) => r.success));
  const httpAck = await api.post('/api/v1/ack/batch', { acknowledgments: held.messages.map((m: any) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, consumerGroup: 'g' })) });
  assert.ok(httpAck.json.every((r: any) => r.success), httpAck.text);

  const delivered: string[] = [...held.messages, ...httpLease.json.messages].map((m: any) => m.transactionId);
  for (let round = 0; round < 40 && delivered.length < items.length; round++) {
    if (round % 2 === 0) {
      const [r] = (await sqlConsumer.query(`SELECT queen.consume($1) AS r`, [JSON.stringify({ queueName: queue, consumerGroup: 'g', batchSize: 3 })])).rows[0].r;
      if (r.messages.length === 0) continue;
      delivered.push(...r.messages.map((m: any) => m.transactionId));
      await sqlConsumer.query('SELECT queen.commit($1)', [JSON.stringify(r.messages.map((m: any) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, consumerGroup: 'g' })))]);
    } else {
      const res = await api.get(`/api/v1/pop/queue/${queue}?consumerGroup=g&batch=3`);
      if (res.status === 204) continue;
      delivered.push(...res.json.messages.map((m: any) => m.transactionId));
      await api.post('/api/v1/ack/batch', { acknowledgments: res.json.messages.map((m: any) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, consumerGroup: 'g' })) });
    }
  }
  assert.equal(new Set(delivered).size, delivered.length, 'no message delivered twice');
  assert.deepEqual([...delivered].sort(), items.map((i) => i.transactionId).sort(), 'every message delivered');
  assert.equal((await sqlConsumer.query(`SELECT queen.depth($1, 'g') AS n`, [queue])).rows[0].n, '0');
});

test('an SQL long poll is woken by an HTTP push', async () => {
  const queue = uniqueQueue('sqlpoll');
  await api.post('/api/v1/configure', { queue, options: {} });
  const consumer = await session();
  const waiting = consumer.query('SELECT transaction_id, payload FROM queen.consume_one($1, p_timeout_seconds => 10)', [queue]).then((r) => ({ rows: r.rows, at: Date.now() }));
  await sleep(400);
  const pushedAt = Date.now();
  assert.equal((await api.push([{ queue, transactionId: 'from-http', payload: { via: 'http' } }])).status, 201);
  const { rows, at } = await waiting;
  assert.deepEqual(rows, [{ transaction_id: 'from-http', payload: { via: 'http' } }]);
  assert.ok(at - pushedAt < 500, `claimed ${at - pushedAt} ms after the push`);
});

test('messages produced in SQL reach our SDK and the official JS client with payload, transactionId and order', async () => {
  const queue = uniqueQueue('sqlsdk');
  const app = await session();
  await app.query('BEGIN');
  await app.query('SELECT queen.produce($1)', [JSON.stringify([1, 2, 3].map((n) => ({ queue, transactionId: `sdk-${n}`, payload: { n, nested: { ok: true } } })))]);
  await app.query('COMMIT');
  await app.query(`SELECT queen.produce_one($1, '{"n":4,"nested":{"ok":true}}', 'Default', 'sdk-4')`, [queue]);
  const expected = [1, 2, 3, 4].map((n) => [`sdk-${n}`, { n, nested: { ok: true } }]);

  const ours = new Queen(broker.url);
  try {
    const messages = await ours.queue(queue).group('ours').batch(10).pop();
    assert.deepEqual(messages.map((m) => [m.transactionId, m.data]), expected);
  } finally {
    await ours.close();
  }
  const { Queen: Official } = await loadOfficial();
  const official = new Official({ url: broker.url }) as unknown as { queue(name: string): any; close(): Promise<void> };
  try {
    const messages: Array<{ transactionId: string; data: unknown }> = await official.queue(queue).group('official').batch(10).pop();
    assert.deepEqual(messages.map((m) => [m.transactionId, m.data]), expected);
  } finally {
    await official.close();
  }
});

test('push maintenance does not divert SQL produce: it is committed to the database and delivered', async () => {
  const queue = uniqueQueue('sqlmaint');
  const app = await session();
  assert.equal((await api.post('/api/v1/system/maintenance', { enabled: true })).status, 200);
  try {
    const buffered = await api.push([{ queue, transactionId: 'via-http', payload: 1 }]);
    assert.equal(buffered.json[0].status, 'buffered', 'HTTP pushes go to the broker\'s buffer meanwhile');
    await app.query(`SELECT queen.produce_one($1, '2', 'Default', 'via-sql')`, [queue]);
    const res = await api.get(`/api/v1/pop/queue/${queue}?batch=10&autoAck=true`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.messages.map((m: any) => m.transactionId), ['via-sql']);
  } finally {
    await api.post('/api/v1/system/maintenance', { enabled: false });
  }
});

