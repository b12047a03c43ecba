/**
 * Upgrade from the previous release (pgmq's habit, CONTRIBUTING.md): a database built by release 1.0's schema
 * (its migrations, frozen under test/fixtures/release-1.0 — gzipped: a released file is data to replay, never
 * code to edit or to copy from — applied by that release's runner: no checksums,
 * functions inside migrations) and filled through that release's SQL functions — queues, partitions with
 * backlog, a leased batch, DLQ rows, a consumer group part-way through a partition — is upgraded by today's
 * start-up, then served by a real broker: nothing is lost, the old lease still settles, every function is the
 * one a fresh database gets, and the public SQL API (docs/sql-api.md), which 1.0 did not have, exists with its
 * grants and round-trips a message in SQL through a 1.0 queue and its consumer group.
 *
 * This file is the template for every later schema change: freeze the released migrations under
 * test/fixtures/release-X, seed what the change touches, upgrade, check.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { migrate, readFunctions, readMigrations } from '../../src/store/migrations.js';
import { client, createDatabase, serverConnection, startBroker, type BrokerProcess, type Client, type TestDatabase } from '../support/harness.js';

const RELEASE_1_0 = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/release-1.0/migrations');
const QUEUE = 'shop.orders';
const PARTITIONS = ['p0', 'p1', 'p2'];
const PER_PARTITION = 10;
const txn = (partition: string, i: number) => `${partition}-m${i}`;

/** Release 1.0's migration runner: each file in its own transaction, the ledger without checksums. */
async function migrateAsRelease10(db: TestDatabase): Promise<void> {
  await db.query(`CREATE SCHEMA queen;
    CREATE TABLE queen.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const file of fs.readdirSync(RELEASE_1_0).sort()) {
    const name = file.replace(/\.gz$/, '');
    await db.query(`BEGIN; ${gunzipSync(fs.readFileSync(path.join(RELEASE_1_0, file))).toString('utf8')}; COMMIT;`);
    await db.query('INSERT INTO queen.migrations (version, name) VALUES ($1, $2)', [Number(name.slice(0, 4)), name]);
  }
}

/** Release 1.0's pop call (16 parameters), wildcard over the queue; returns the claimed rows. */
async function popAsRelease10(db: TestDatabase, group: string, partition: string, batch: number, leaseId: string) {
  const result = await db.query<{ transaction_id: string; partition_id: string }>(
    `SELECT transaction_id, partition_id FROM queen.pop_messages('partition', $1, $2, NULL, NULL, $3, $4, 1, $5::uuid, 300, false, NULL, NULL, true, NULL, 0)`,
    [QUEUE, partition, group, batch, leaseId],
  );
  return result.rows;
}

async function ackAsRelease10(db: TestDatabase, items: Array<{ transactionId: string; partitionId: string; status: string; group: string; leaseId: string }>) {
  const result = await db.query<{ success: boolean }>(
    `SELECT success FROM queen.ack_messages($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[])`,
    [items.map((i) => i.transactionId), items.map((i) => i.partitionId), items.map((i) => i.status), items.map((i) => i.group), items.map((i) => i.leaseId), items.map(() => 'upgrade test')],
  );
  return result.rows.map((r) => r.success);
}

/** Every queen function with its definition, as PostgreSQL prints it. */
async function functionDefinitions(db: TestDatabase): Promise<Map<string, string>> {
  const result = await db.query<{ signature: string; definition: string }>(
    `SELECT p.oid::regprocedure::text AS signature, pg_get_functiondef(p.oid) AS definition
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'queen'`,
  );
  return new Map(result.rows.map((r) => [r.signature, r.definition]));
}

/** Pops the queue until it is empty (wildcard, batch 100, no wait) and acks everything; returns the transactionIds in delivery order. */
async function drainAndAck(api: Client, group: string | null): Promise<string[]> {
  const seen: string[] = [];
  const groupQuery = group === null ? '' : `&consumerGroup=${group}`;
  for (let round = 0; round < 20; round++) {
    const res = await api.get(`/api/v1/pop/queue/${QUEUE}?batch=100&wait=false${groupQuery}`);
    if (res.status === 204) return seen;
    assert.equal(res.status, 200, res.text);
    const messages = res.json.messages as Array<{ transactionId: string; partitionId: string; leaseId: string }>;
    seen.push(...messages.map((m) => m.transactionId));
    const acks = await api.post('/api/v1/ack/batch', {
      acknowledgments: messages.map((m) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed', ...(group === null ? {} : { consumerGroup: group }) })),
    });
    assert.equal(acks.status, 200, acks.text);
  }
  throw new Error('the queue did not drain in 20 pops');
}

/** The SQL API v1 functions with access rules (docs/sql-api.md "Roles"), none of which release 1.0 had. */
const SQL_API: ReadonlyArray<[signature: string, access: string]> = [
  ['queen.produce(jsonb)', 'producer'],
  ['queen.produce_one(text, jsonb, text, text, boolean)', 'producer'],
  ['queen.produce_full(text, jsonb, text, text, text, text, timestamptz, boolean)', 'producer'],
  ['queen.produce_notify(text, jsonb, text, text)', 'producer'],
  ['queen.consume(jsonb)', 'consumer'],
  ['queen.consume_one(text, text, integer, text, integer, boolean, text)', 'consumer'],
  ['queen.commit(jsonb)', 'consumer'],
  ['queen.commit_one(text, uuid, text, text, text, text)', 'consumer'],
  ['queen.nack(text, uuid, text, text, text)', 'consumer'],
  ['queen.reject(text, uuid, text, text, text)', 'consumer'],
  ['queen.renew(jsonb)', 'consumer'],
  ['queen.renew_one(text, integer)', 'consumer'],
  ['queen.transaction(jsonb)', 'consumer'],
  ['queen.forward(text, uuid, text, text, text, jsonb, text, text)', 'consumer'],
  ['queen.depth(text, text)', 'consumer, admin'],
  ['queen.lag(text, text)', 'consumer, admin'],
  ['queen.has_messages(text, text, text)', 'consumer, admin'],
  ['queen.configure(text, integer, integer, boolean)', 'admin'],
  ['queen.seek(text, text, boolean, timestamptz)', 'admin'],
  ['queen.delete_consumer_group(text, text, boolean)', 'admin'],
];

describe('upgrade from release 1.0', () => {
  let db: TestDatabase;
  let fresh: TestDatabase;
  let broker: BrokerProcess;
  let api: Client;
  let leased: Array<{ transaction_id: string; partition_id: string }>;
  const leaseId = '0198f2d3-1b2c-7a00-8c11-5e6f708192a3';
  let report: Awaited<ReturnType<typeof migrate>>;
  let sqlApiBefore: string[];

  before(async () => {
    db = await createDatabase();
    fresh = await createDatabase();
    await migrateAsRelease10(db);
    const existing = await db.query<{ s: string }>('SELECT s FROM unnest($1::text[]) s WHERE to_regprocedure(s) IS NOT NULL', [SQL_API.map(([signature]) => signature)]);
    sqlApiBefore = existing.rows.map((r) => r.s);

    // The data of a working 1.0 installation, written through 1.0's functions.
    const items = PARTITIONS.flatMap((p) => Array.from({ length: PER_PARTITION }, (_, i) => ({ partition: p, id: txn(p, i) })));
    await db.query(
      `SELECT * FROM queen.push_messages($1::text[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[])`,
      [items.map(() => QUEUE), items.map((i) => i.partition), items.map(() => crypto.randomUUID()), items.map((i) => i.id), items.map(() => null), items.map((i) => JSON.stringify({ id: i.id })), items.map(() => null)],
    );
    // Queue mode: a leased batch of 4 on p0, never acked before the upgrade.
    leased = await popAsRelease10(db, '__QUEUE_MODE__', 'p0', 4, leaseId);
    assert.equal(leased.length, 4);
    // Group billing: p1 read and acked up to m3; m4 sent to the DLQ.
    const billing = await popAsRelease10(db, 'billing', 'p1', 5, '0198f2d3-1b2c-7a00-8c11-5e6f708192a4');
    assert.deepEqual(billing.map((r) => r.transaction_id), [0, 1, 2, 3, 4].map((i) => txn('p1', i)));
    const acked = await ackAsRelease10(db, billing.map((r, i) => ({ transactionId: r.transaction_id, partitionId: r.partition_id, status: i < 4 ? 'completed' : 'dlq', group: 'billing', leaseId: '0198f2d3-1b2c-7a00-8c11-5e6f708192a4' })));
    assert.deepEqual(acked, [true, true, true, true, true]);

    const pool = new pg.Pool({ ...serverConnection(db.name), max: 2 } as pg.PoolConfig);
    try {
      report = await migrate(pool);
    } finally {
      await pool.end();
    }
    const freshPool = new pg.Pool({ ...serverConnection(fresh.name), max: 2 } as pg.PoolConfig);
    try {
      await migrate(freshPool);
    } finally {
      await freshPool.end();
    }
    broker = await startBroker(db);
    api = client(broker.url);
  });

  after(async () => {
    await broker?.stop();
    await db?.close();
    await fresh?.close();
  });

  test('the upgrade applies only the migrations released after 1.0, records every checksum, and installs every function file', async () => {
    const released = fs.readdirSync(RELEASE_1_0).map((file) => file.replace(/\.gz$/, ''));
    assert.deepEqual(report.migrations, readMigrations().map((m) => m.name).filter((name) => !released.includes(name)));
    assert.deepEqual(report.functions, readFunctions().map((f) => f.name));
    const ledger = await db.query<{ name: string; checksum: string }>('SELECT name, checksum FROM queen.migrations ORDER BY version');
    assert.deepEqual(ledger.rows, readMigrations().map((m) => ({ name: m.name, checksum: m.checksum })));
  });

  test("a 1.0 group's lag counts the partitions it never touched; a stats refresh samples the pending history (0017)", async () => {
    const groups = await api.get('/api/v1/consumer-groups');
    const billing = groups.json.find((g: { name: string; queueName: string }) => g.name === 'billing' && g.queueName === QUEUE);
    // billing read p1 up to m4: p1's rest and all of p0 and p2 are unconsumed for it.
    assert.deepEqual([billing.members, billing.totalLag], [1, 3 * PER_PARTITION - 5]);
    const refresh = await api.post('/api/v1/stats/refresh', {});
    assert.equal(refresh.status, 200, refresh.text);
    const sampled = await db.query<{ pending: string; total: string }>('SELECT pending, total FROM queen.pending_history');
    // Queue mode is known on the queue: its lease holds 4 of p0 (processing); the rest is pending.
    assert.deepEqual(sampled.rows.map((r) => [Number(r.pending), Number(r.total)]), [[3 * PER_PARTITION - 4, 3 * PER_PARTITION]]);
  });

  test('every function is exactly the one a fresh database gets (no stale body, no leftover overload)', async () => {
    const upgraded = await functionDefinitions(db);
    const reference = await functionDefinitions(fresh);
    assert.deepEqual([...upgraded.keys()].sort(), [...reference.keys()].sort());
    for (const [signature, definition] of reference) assert.equal(upgraded.get(signature), definition, signature);
  });

  test('the lease taken before the upgrade still settles its batch', async () => {
    const res = await api.post('/api/v1/ack/batch', {
      acknowledgments: leased.map((m) => ({ transactionId: m.transaction_id, partitionId: m.partition_id, leaseId, status: 'completed' })),
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.map((r: { success: boolean }) => r.success), [true, true, true, true]);
  });

  test('queue mode then gets every other message once, in partition order', async () => {
    const got = await drainAndAck(api, null);
    const expected = PARTITIONS.flatMap((p) => Array.from({ length: PER_PARTITION }, (_, i) => txn(p, i))).filter((id) => !leased.some((m) => m.transaction_id === id));
    assert.deepEqual([...got].sort(), [...expected].sort());
    for (const p of PARTITIONS) {
      const order = got.filter((id) => id.startsWith(`${p}-`));
      assert.deepEqual(order, [...order].sort((a, b) => Number(a.split('m')[1]) - Number(b.split('m')[1])));
    }
  });

  test('group billing resumes after its cursor on p1 and reads p0 and p2 from the start', async () => {
    const got = await drainAndAck(api, 'billing');
    const expected = [...Array.from({ length: 5 }, (_, i) => txn('p1', i + 5)), ...['p0', 'p2'].flatMap((p) => Array.from({ length: PER_PARTITION }, (_, i) => txn(p, i)))];
    assert.deepEqual([...got].sort(), [...expected].sort());
  });

  test('the DLQ entry written by 1.0 is listed', async () => {
    const res = await api.get(`/api/v1/dlq?queue=${QUEUE}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.messages.map((m: { transactionId: string; consumerGroup: string }) => [m.transactionId, m.consumerGroup]), [[txn('p1', 4), 'billing']]);
  });

  test('push, pop and ack work on the upgraded database; segments written by 1.0 read without trace context (0016)', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const pushed = await api.push([{ queue: QUEUE, partition: 'p1', payload: { after: true }, transactionId: 'after-upgrade', traceparent }]);
    assert.equal(pushed.status, 201, pushed.text);
    const old = await api.get(`/api/v1/messages/${leased[0]!.partition_id}/${leased[0]!.transaction_id}`);
    assert.deepEqual([old.status, old.json.traceparent, old.json.tracestate], [200, null, null]);
    const partitionId = (await db.query<{ id: string }>(`SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND p.name = 'p1'`, [QUEUE])).rows[0]!.id;
    assert.equal((await api.get(`/api/v1/messages/${partitionId}/after-upgrade`)).json.traceparent, traceparent);
    assert.deepEqual(await drainAndAck(api, null), ['after-upgrade']);
    assert.deepEqual(await drainAndAck(api, 'billing'), ['after-upgrade']);
  });

  test('no triggers are left, as on a fresh database (0019); 1.0 partitions keep their ids, a new one gets its computed id', async () => {
    const triggers = (on: TestDatabase) => on.query(
      `SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE NOT t.tgisinternal AND n.nspname IN ('queen', 'queen_streams')`).then((r) => r.rows);
    assert.deepEqual(await triggers(db), []);
    assert.deepEqual(await triggers(fresh), []);
    const ids = await db.query<{ name: string; computed: boolean }>(
      `SELECT p.name, p.id = queen.partition_uuid(q.name, p.name) AS computed
       FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 ORDER BY p.name`, [QUEUE]);
    assert.deepEqual(ids.rows, PARTITIONS.map((name) => ({ name, computed: false })));
    const pushed = await api.push([{ queue: QUEUE, partition: 'p-new', payload: {}, transactionId: 'new-partition' }]);
    assert.equal(pushed.status, 201, pushed.text);
    const computed = await db.query<{ id: string }>('SELECT queen.partition_uuid($1, $2)::text AS id', [QUEUE, 'p-new']);
    assert.equal(pushed.json[0].partition_id, computed.rows[0]!.id);
    assert.deepEqual(await drainAndAck(api, null), ['new-partition']);
    assert.deepEqual(await drainAndAck(api, 'billing'), ['new-partition']);
  });

  test('0018: the buffer holds table exists, empty (nothing was buffered across the upgrade)', async () => {
    const holds = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM queen.buffer_holds');
    assert.equal(holds.rows[0]!.n, 0);
  });

  test('0020: an upgraded database has no database move recorded, and the migration status says idle', async () => {
    const moves = await db.query<{ n: number }>('SELECT (SELECT count(*) FROM queen.database_move) + (SELECT count(*) FROM queen.database_move_marker) AS n');
    assert.equal(Number(moves.rows[0]!.n), 0);
    const status = await api.get('/api/v1/migration/status');
    assert.deepEqual([status.status, status.json.status], [200, 'idle']);
  });

  test('the SQL API exists with its grants and round-trips a message in SQL through a 1.0 queue and group', async () => {
    assert.deepEqual(sqlApiBefore, [], 'release 1.0 had none of them');
    const catalog = await db.query<{ signature: string; definer: boolean; comment: string | null; producer: boolean; consumer: boolean; admin: boolean; public: boolean }>(
      `SELECT s AS signature, p.prosecdef AS definer, obj_description(p.oid, 'pg_proc') AS comment,
              has_function_privilege('queen_producer', p.oid, 'EXECUTE') AS producer,
              has_function_privilege('queen_consumer', p.oid, 'EXECUTE') AS consumer,
              has_function_privilege('queen_admin', p.oid, 'EXECUTE') AS admin,
              EXISTS (SELECT 1 FROM aclexplode(p.proacl) a WHERE a.grantee = 0) AS public
       FROM unnest($1::text[]) s LEFT JOIN pg_proc p ON p.oid = to_regprocedure(s)`, [SQL_API.map(([signature]) => signature)]);
    for (const [i, row] of catalog.rows.entries()) {
      const access = SQL_API[i]![1];
      assert.equal(row.definer, true, `${row.signature} exists and is SECURITY DEFINER`);
      assert.equal(row.comment, `Queen SQL API v1 (access: ${access})`, row.signature);
      assert.deepEqual([row.producer, row.consumer, row.admin, row.public], ['producer', 'consumer', 'admin'].map((r) => access.includes(r)).concat(false), row.signature);
    }

    // An application role that may only produce and consume, with no privilege on any table.
    const app = new pg.Client(serverConnection(db.name));
    await app.connect();
    const role = `upgrade_app_${crypto.randomUUID().slice(0, 8)}`;
    await app.query(`CREATE ROLE ${role} NOLOGIN IN ROLE queen_producer, queen_consumer`);
    try {
      await app.query(`SET ROLE ${role}`);
      await assert.rejects(app.query('SELECT count(*) FROM queen.partitions'), /permission denied/);
      await app.query('BEGIN');
      const produced = await app.query<{ results: Array<{ status: string; transaction_id: string; queueName: string }> }>(
        'SELECT queen.produce($1::jsonb) AS results', [JSON.stringify([{ queue: QUEUE, partition: 'p2', transactionId: 'sql-after-upgrade', payload: { via: 'sql' } }])]);
      assert.deepEqual(produced.rows[0]!.results.map((r) => [r.status, r.transaction_id, r.queueName]), [['queued', 'sql-after-upgrade', QUEUE]]);
      await app.query('COMMIT');

      // Queue mode (drained over HTTP above) and group billing (its 1.0 cursor, then HTTP acks) each get it once.
      const consumed = await app.query<{ result: Array<{ success: boolean; leaseId: string; partitionId: string; messages: Array<{ transactionId: string; data: unknown }> }> }>(
        'SELECT queen.consume($1::jsonb) AS result', [JSON.stringify([{ queueName: QUEUE, batchSize: 10 }])]);
      const pop = consumed.rows[0]!.result[0]!;
      assert.deepEqual(pop.messages.map((m) => [m.transactionId, m.data]), [['sql-after-upgrade', { via: 'sql' }]]);
      const committed = await app.query<{ result: Array<{ success: boolean }> }>('SELECT queen.commit($1::jsonb) AS result',
        [JSON.stringify([{ transactionId: 'sql-after-upgrade', partitionId: pop.partitionId, leaseId: pop.leaseId }])]);
      assert.deepEqual(committed.rows[0]!.result.map((r) => r.success), [true]);

      const billing = await app.query<{ transaction_id: string; partition_id: string; lease_id: string; payload: unknown }>(
        `SELECT transaction_id, partition_id, lease_id, payload FROM queen.consume_one($1, 'billing', 10)`, [QUEUE]);
      assert.deepEqual(billing.rows.map((r) => [r.transaction_id, r.payload]), [['sql-after-upgrade', { via: 'sql' }]]);
      const one = await app.query<{ ok: boolean }>(`SELECT queen.commit_one($1, $2, $3, 'billing') AS ok`,
        [billing.rows[0]!.transaction_id, billing.rows[0]!.partition_id, billing.rows[0]!.lease_id]);
      assert.equal(one.rows[0]!.ok, true);
      const depth = await app.query<{ q: string; b: string }>(`SELECT queen.depth($1) AS q, queen.depth($1, 'billing') AS b`, [QUEUE]);
      assert.deepEqual([Number(depth.rows[0]!.q), Number(depth.rows[0]!.b)], [0, 0]);
    } finally {
      await app.query('RESET ROLE').catch(() => undefined);
      await app.query(`DROP ROLE ${role}`).catch(() => undefined);
      await app.end();
    }
    // Settled in SQL means settled for HTTP consumers too.
    assert.deepEqual(await drainAndAck(api, null), []);
    assert.deepEqual(await drainAndAck(api, 'billing'), []);
  });
});
