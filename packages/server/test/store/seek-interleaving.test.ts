/**
 * Two-session interleavings of queen.cursor_seek and queen.consumer_group_delete (sql/functions/) with
 * pops, on a real PostgreSQL. Each session is a pg.Client in an explicit transaction; a test awaits the
 * point it needs (a session waiting on a lock held by the other, read from pg_blocking_pids), never a sleep.
 *
 * Claims: a seek waits for a pop's uncommitted first contact of the same (partition, group) and then moves
 * the row it created (the advisory lock queen.cursor_lock_key, no duplicate-key failure); a pop skips a
 * partition whose cursor a seek holds (docs/api.md 5.9 rule 3); a seek that waited on a group deletion contacts
 * the partition afresh at its target.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { uuidv7 } from '../../src/ids.js';
import { migrate } from '../../src/store/migrations.js';
import { createDatabase, serverConnection, uniqueQueue, type TestDatabase } from '../support/harness.js';

let db: TestDatabase;
let pool: pg.Pool;
const clients: pg.Client[] = [];

before(async () => {
  db = await createDatabase();
  pool = new pg.Pool({ ...serverConnection(db.name), max: 4, options: '-c TimeZone=UTC' } as pg.PoolConfig);
  await migrate(pool);
});
after(async () => {
  for (const c of clients) await c.end().catch(() => undefined);
  await pool?.end();
  await db?.close();
});

/** A dedicated connection and its backend pid; a statement timeout turns a hang into a failure. */
async function session(): Promise<{ client: pg.Client; pid: number }> {
  const client = new pg.Client({ ...serverConnection(db.name), options: '-c TimeZone=UTC -c statement_timeout=20000' } as pg.ClientConfig);
  await client.connect();
  client.on('error', () => undefined);
  clients.push(client);
  return { client, pid: (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid };
}

/** Resolves once the session `waiter` waits on a lock held by `holder`. */
async function blockedBy(waiter: number, holder: number): Promise<void> {
  const giveUpAt = Date.now() + 10_000;
  for (;;) {
    const { rows } = await pool.query<{ b: number[] }>('SELECT pg_blocking_pids($1) AS b', [waiter]);
    if (rows[0]!.b.includes(holder)) return;
    assert.ok(Date.now() < giveUpAt, `session ${waiter} never waited on ${holder}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A queue with messages m1..m<count> in partition P. */
async function queueWith(count: number): Promise<string> {
  const queue = uniqueQueue('seek-il');
  const ids = Array.from({ length: count }, (_, i) => `m${i + 1}`);
  await pool.query(
    'SELECT queen.push_messages($1::text[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[])',
    [ids.map(() => queue), ids.map(() => 'P'), ids.map(() => uuidv7()), ids, ids.map(() => null), ids.map((id) => JSON.stringify(id)), ids.map(() => null)],
  );
  return queue;
}

/** One single-partition pop attempt of `group` (leasing, first attempt, no subscription); its empty reason or null. */
async function popReason(on: pg.Client | pg.Pool, queue: string, group: string): Promise<string | null> {
  const { rows } = await on.query<{ empty_reason: string | null }>(
    `SELECT empty_reason FROM queen.pop_messages('partition', $1, 'P', NULL, NULL, $2, 10, 1, $3::uuid, 0, false, NULL, NULL, true, NULL, 0)`,
    [queue, group, uuidv7()],
  );
  return rows[0]?.empty_reason ?? null;
}

const seekToEnd = (on: pg.Client | pg.Pool, group: string, queue: string) =>
  on.query<{ outcome: string; partition_names: string[] }>('SELECT outcome, partition_names FROM queen.cursor_seek($1, $2, NULL, true, NULL)', [group, queue]);

async function cursor(queue: string, group: string): Promise<{ committed: number; lease_id: string | null } | undefined> {
  const { rows } = await pool.query(
    `SELECT c.committed::integer AS committed, c.lease_id FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
     JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND c.consumer_group = $2`,
    [queue, group],
  );
  return rows[0];
}

test('a seek waits for a pop creating the cursor, then moves that cursor and releases its lease', async () => {
  const queue = await queueWith(3);
  const [a, b] = [await session(), await session()];
  await a.client.query('BEGIN');
  assert.equal(await popReason(a.client, queue, 'g'), null, 'the pop claims m1..m3 on first contact');
  const seek = seekToEnd(b.client, 'g', queue);
  await blockedBy(b.pid, a.pid);
  await a.client.query('COMMIT');
  assert.deepEqual((await seek).rows, [{ outcome: 'updated', partition_names: ['P'] }]);
  assert.deepEqual(await cursor(queue, 'g'), { committed: 3, lease_id: null });
});

test('a pop skips a partition whose cursor a seek holds, without waiting', async () => {
  const queue = await queueWith(2);
  const [a, b] = [await session(), await session()];
  await b.client.query('BEGIN');
  await b.client.query('SELECT * FROM queen.cursor_seek($1, $2, NULL, false, $3::timestamptz)', ['g', queue, '2000-01-01T00:00:00Z']);
  const started = Date.now();
  assert.equal(await popReason(a.client, queue, 'g'), 'leased');
  assert.ok(Date.now() - started < 5000, 'the pop did not wait for the seek');
  await b.client.query('COMMIT');
  assert.equal(await popReason(a.client, queue, 'g'), null, 'claimable once the seek committed');
});

test('a seek waiting on a group deletion contacts the partition afresh at its target', async () => {
  const queue = await queueWith(2);
  assert.equal(await popReason(pool, queue, 'gone'), null);
  const [a, b] = [await session(), await session()];
  await a.client.query('BEGIN');
  assert.deepEqual((await a.client.query('SELECT queen.consumer_group_delete($1, NULL, true) AS n', ['gone'])).rows, [{ n: 1 }]);
  const seek = seekToEnd(b.client, 'gone', queue);
  await blockedBy(b.pid, a.pid);
  await a.client.query('COMMIT');
  assert.deepEqual((await seek).rows, [{ outcome: 'updated', partition_names: ['P'] }]);
  assert.deepEqual(await cursor(queue, 'gone'), { committed: 2, lease_id: null });
});
