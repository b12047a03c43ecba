/**
 * Roles and grants of the SQL API (docs/sql-api.md, "Roles"): the API functions run with the rights of
 * their owner, so an application role needs no privilege on any table; queen_producer may only produce,
 * queen_consumer only consume (and forward with produce rights), queen_admin only administer; PUBLIC
 * nothing. Each session here becomes a fresh role with SET SESSION AUTHORIZATION, as a login would.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import type pg from 'pg';
import { uniqueQueue } from '../support/harness.js';
import { useSqlSessions } from '../support/hot-path.js';

const sql = useSqlSessions();
const created: string[] = [];

after(async () => {
  for (const role of created) await sql.pool.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
});

/** A session logged in as a new role that is a member of `memberOf` (queen_producer, ...). */
async function sessionAs(...memberOf: string[]): Promise<pg.Client> {
  const role = `queen_test_${randomUUID().slice(0, 8)}`;
  created.push(role);
  await sql.pool.query(`CREATE ROLE ${role} NOLOGIN`);
  for (const group of memberOf) await sql.pool.query(`GRANT ${group} TO ${role}`);
  const { client } = await sql.session();
  await client.query(`SET SESSION AUTHORIZATION ${role}`);
  return client;
}

/** The SQLSTATE a statement fails with. */
async function code(client: pg.Client, text: string, values: unknown[] = []): Promise<string> {
  try {
    await client.query(text, values);
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'none';
}

test('the three roles exist and every API function is granted to exactly its roles', async () => {
  const roles = await sql.pool.query<{ rolname: string }>(`SELECT rolname FROM pg_roles WHERE rolname IN ('queen_producer', 'queen_consumer', 'queen_admin') ORDER BY 1`);
  assert.deepEqual(roles.rows.map((r) => r.rolname), ['queen_admin', 'queen_consumer', 'queen_producer']);
  const publicly = await sql.pool.query(`SELECT p.oid::regprocedure::text AS f FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'queen' AND p.prosecdef AND has_function_privilege('public', p.oid, 'EXECUTE')`);
  assert.deepEqual(publicly.rows, [], 'no SECURITY DEFINER function is executable by PUBLIC');
  const granted = await sql.pool.query<{ n: number }>('SELECT queen.api_regrant() AS n');
  assert.ok(granted.rows[0]!.n >= 20, `api_regrant re-granted ${granted.rows[0]!.n} functions`);
});

test('a producer produces without any table privilege, and can do nothing else', async () => {
  const queue = uniqueQueue('roleprod');
  const producer = await sessionAs('queen_producer');
  const id = (await producer.query(`SELECT queen.produce_one($1, '{"n":1}') AS id`, [queue])).rows[0].id;
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.equal((await producer.query(`SELECT queen.produce($1) AS r`, [JSON.stringify([{ queue, payload: 2 }])])).rows[0].r[0].status, 'queued');
  assert.equal(await code(producer, 'SELECT * FROM queen.consume_one($1)', [queue]), '42501');
  assert.equal(await code(producer, `SELECT queen.commit('[]')`), '42501');
  assert.equal(await code(producer, 'SELECT queen.configure($1)', [queue]), '42501');
  assert.equal(await code(producer, 'SELECT count(*) FROM queen.segments'), '42501');
  assert.equal(await code(producer, `SELECT * FROM queen.push_messages('{q}', '{Default}', ARRAY[gen_random_uuid()], '{t}', '{NULL}', '{1}', '{NULL}')`), '42501',
    'the private functions run with the caller\'s rights');
  const stored = await sql.pool.query('SELECT queen.depth($1) AS n', [queue]);
  assert.equal(stored.rows[0].n, '2');
});

test('a consumer consumes and commits; it may not produce, not even through transaction or forward', async () => {
  const queue = uniqueQueue('rolecons');
  await sql.pool.query(`SELECT queen.produce_one($1, '{"n":1}', 'Default', 'm1')`, [queue]);
  const consumer = await sessionAs('queen_consumer');
  const [m] = (await consumer.query('SELECT * FROM queen.consume_one($1)', [queue])).rows;
  assert.equal(m.transaction_id, 'm1');
  assert.equal(await code(consumer, `SELECT queen.produce_one($1, '{}')`, [queue]), '42501');
  const push = JSON.stringify([{ type: 'push', items: [{ queue, payload: 1 }] }]);
  assert.equal(await code(consumer, 'SELECT queen.transaction($1)', [push]), '42501');
  assert.equal(await code(consumer, 'SELECT queen.forward($1, $2, $3, NULL, $4, $5)', [m.transaction_id, m.partition_id, m.lease_id, queue, '{}']), '42501');
  const acked = await consumer.query('SELECT queen.transaction($1) AS t', [JSON.stringify([{ type: 'ack', transactionId: m.transaction_id, partitionId: m.partition_id, leaseId: m.lease_id }])]);
  assert.equal(acked.rows[0].t.success, true, 'acks alone need no produce right');
  assert.equal((await consumer.query('SELECT queen.depth($1) AS n', [queue])).rows[0].n, '0');
  assert.equal(await code(consumer, `SELECT queen.seek('g', $1, true)`, [queue]), '42501');

  const worker = await sessionAs('queen_consumer', 'queen_producer');
  await sql.pool.query(`SELECT queen.produce_one($1, '{"n":2}', 'Default', 'm2')`, [queue]);
  const [n] = (await worker.query('SELECT * FROM queen.consume_one($1)', [queue])).rows;
  const next = await worker.query(`SELECT queen.forward($1, $2, $3, NULL, $4, '{"n":3}') AS id`, [n.transaction_id, n.partition_id, n.lease_id, uniqueQueue('rolenext')]);
  assert.match(next.rows[0].id, /^[0-9a-f-]{36}$/, 'a member of both roles forwards');
});

test('an admin administers; a role with no Queen role cannot reach the schema', async () => {
  const queue = uniqueQueue('roleadm');
  const admin = await sessionAs('queen_admin');
  assert.equal((await admin.query('SELECT queen.configure($1, 10) AS ok', [queue])).rows[0].ok, true);
  assert.equal((await admin.query(`SELECT queen.seek('g', $1, true) AS ok`, [queue])).rows[0].ok, true);
  assert.equal((await admin.query('SELECT queen.depth($1) AS n', [queue])).rows[0].n, '0');
  assert.equal(await code(admin, `SELECT queen.produce_one($1, '{}')`, [queue]), '42501');
  const nobody = await sessionAs();
  assert.equal(await code(nobody, `SELECT queen.produce_one($1, '{}')`, [queue]), '42501');
  assert.equal(await code(nobody, `SELECT queen.uuid_generate_v7()`), '42501');
});
