/**
 * Schema migrations (src/store/migrations.ts) against a real PostgreSQL: idempotent re-runs, concurrent
 * brokers starting on a fresh database (advisory lock), and a failing migration that rolls back and names
 * its file (DESIGN.md 2, STYLE.md 4, API.md 9.8.1).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { migrate, readMigrations, type Migration } from '../../src/store/migrations.js';
import { createDatabase, serverConnection, type TestDatabase } from '../support/harness.js';

const databases: TestDatabase[] = [];
const pools: pg.Pool[] = [];

async function freshDatabase(): Promise<TestDatabase> {
  const db = await createDatabase();
  databases.push(db);
  return db;
}

function poolOn(db: TestDatabase): pg.Pool {
  const pool = new pg.Pool({ ...serverConnection(db.name), max: 2 } as pg.PoolConfig);
  pools.push(pool);
  return pool;
}

after(async () => {
  for (const pool of pools) await pool.end().catch(() => undefined);
  for (const db of databases) await db.close().catch(() => undefined);
});

async function ledger(db: TestDatabase): Promise<Array<{ version: number; name: string }>> {
  const result = await db.query<{ version: number; name: string }>('SELECT version, name FROM queen.migrations ORDER BY version');
  return result.rows;
}

/** Rejects if the promise does not settle within `ms` (a migrate that hangs on a leaked lock, say). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const files = readMigrations();
const names = files.map((m) => m.name);

describe('the migration files', () => {
  test('are numbered, in order, with distinct versions', () => {
    assert.ok(files.length >= 1);
    for (const m of files) {
      assert.match(m.name, /^\d{4}_.+\.sql$/);
      assert.equal(m.version, Number(m.name.slice(0, 4)));
    }
    const versions = files.map((m) => m.version);
    assert.deepEqual(versions, [...versions].sort((a, b) => a - b));
    assert.equal(new Set(versions).size, versions.length);
  });
});

describe('migrate', () => {
  test('applies every file once on a fresh database; a second run is a no-op returning []', async () => {
    const db = await freshDatabase();
    const pool = poolOn(db);
    assert.deepEqual(await migrate(pool), names);
    assert.deepEqual(await ledger(db), files.map((m) => ({ version: m.version, name: m.name })));

    const functions = await db.query<{ proname: string }>(
      `SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'queen' AND p.proname IN ('push_messages', 'pop_messages', 'ack_messages', 'lease_extend')
       ORDER BY p.proname`,
    );
    assert.deepEqual(functions.rows.map((r) => r.proname), ['ack_messages', 'lease_extend', 'pop_messages', 'push_messages']);

    assert.deepEqual(await migrate(pool), []);
    assert.deepEqual(await migrate(pool), []);
    assert.deepEqual(await ledger(db), files.map((m) => ({ version: m.version, name: m.name })));
  });

  test('a later file is applied on its own when the earlier ones are recorded', async () => {
    const db = await freshDatabase();
    const pool = poolOn(db);
    assert.deepEqual(await migrate(pool, files.slice(0, 1)), [names[0]]);
    assert.deepEqual(await migrate(pool), names.slice(1));
    assert.deepEqual((await ledger(db)).map((r) => r.version), files.map((m) => m.version));
  });

  test('two concurrent migrate() calls on a fresh database both succeed and apply each migration exactly once', async () => {
    const db = await freshDatabase();
    const [a, b] = await within(Promise.all([migrate(poolOn(db)), migrate(poolOn(db))]), 60_000, 'concurrent migrate');
    // The advisory lock serialises them: one applies everything, the other finds nothing left.
    assert.deepEqual([a.length, b.length].sort((x, y) => x - y), [0, names.length]);
    assert.deepEqual([...a, ...b], names);
    assert.deepEqual(await ledger(db), files.map((m) => ({ version: m.version, name: m.name })));
  });

  test('three concurrent calls on a fresh database: still exactly once each', async () => {
    const db = await freshDatabase();
    const results = await within(Promise.all([migrate(poolOn(db)), migrate(poolOn(db)), migrate(poolOn(db))]), 60_000, 'concurrent migrate');
    assert.deepEqual(results.flat(), names);
    const counts = await db.query<{ version: number; n: string }>('SELECT version, count(*) AS n FROM queen.migrations GROUP BY version ORDER BY version');
    assert.deepEqual(counts.rows, files.map((m) => ({ version: m.version, n: '1' })));
  });
});

describe('a failing migration', () => {
  const broken: Migration = {
    version: 9001,
    name: '9001_broken.sql',
    sql: `CREATE TABLE queen.should_not_exist (x integer);
          INSERT INTO queen.should_not_exist VALUES (1);
          SELEC 1;`,
  };

  test('rolls back, records nothing, and throws an error naming the file', async () => {
    const db = await freshDatabase();
    const pool = poolOn(db);
    await assert.rejects(migrate(pool, [...files, broken]), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.match(error.message, /9001_broken\.sql/);
      return true;
    });
    // The good files before it were applied and recorded; the broken one left no trace.
    assert.deepEqual(await ledger(db), files.map((m) => ({ version: m.version, name: m.name })));
    const table = await db.query<{ t: string | null }>(`SELECT to_regclass('queen.should_not_exist')::text AS t`);
    assert.equal(table.rows[0]!.t, null);
  });

  test('a failure in the first file leaves an empty ledger; the next run (another process) is not blocked by a leaked lock', async () => {
    const db = await freshDatabase();
    const first = poolOn(db);
    const firstBroken: Migration = { ...broken, version: 1, name: '0001_broken.sql' };
    await assert.rejects(migrate(first, [firstBroken]), /0001_broken\.sql/);
    assert.deepEqual(await ledger(db), []);

    // A different pool is a different session: it must get the advisory lock.
    const second = poolOn(db);
    assert.deepEqual(await within(migrate(second), 30_000, 'migrate after a failure'), names);
    // And the first pool's connection is usable again too.
    assert.deepEqual(await within(migrate(first), 30_000, 'migrate on the pool that failed'), []);
    assert.deepEqual(await ledger(db), files.map((m) => ({ version: m.version, name: m.name })));
  });

  test('files after the failing one are not applied', async () => {
    const db = await freshDatabase();
    const pool = poolOn(db);
    const later: Migration = { version: 9002, name: '9002_later.sql', sql: 'CREATE TABLE queen.later_table (x integer)' };
    await assert.rejects(migrate(pool, [...files, broken, later]), /9001_broken\.sql/);
    const table = await db.query<{ t: string | null }>(`SELECT to_regclass('queen.later_table')::text AS t`);
    assert.equal(table.rows[0]!.t, null);
    assert.equal((await ledger(db)).some((r) => r.version === 9002), false);
  });
});
