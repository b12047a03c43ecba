/**
 * Schema migrations (src/store/migrations.ts) against a real PostgreSQL: idempotent re-runs, concurrent
 * brokers starting on a fresh database (advisory lock), and a failing migration that rolls back and names
 * its file (docs/architecture.md, CONTRIBUTING.md, docs/api.md 9.8.1).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { migrate as migrateSchema, readFunctions, readMigrations, sqlChecksum, type Migration, type SqlFile } from '../../src/store/migrations.js';
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

/** The migrations one migrate() call applied (the function files are checked by their own tests below). */
async function migrate(pool: pg.Pool, migrations?: Migration[], functions?: SqlFile[]): Promise<string[]> {
  return (await migrateSchema(pool, migrations, functions)).migrations;
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
    assert.deepEqual(await migrate(pool, files.slice(0, 1), []), [names[0]]);
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
    checksum: 'broken',
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
    const later: Migration = { version: 9002, name: '9002_later.sql', sql: 'CREATE TABLE queen.later_table (x integer)', checksum: 'later' };
    await assert.rejects(migrate(pool, [...files, broken, later]), /9001_broken\.sql/);
    const table = await db.query<{ t: string | null }>(`SELECT to_regclass('queen.later_table')::text AS t`);
    assert.equal(table.rows[0]!.t, null);
    assert.equal((await ledger(db)).some((r) => r.version === 9002), false);
  });
});

const functionFiles = readFunctions();
const SQL_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sql');

describe('the function files', () => {
  test('ORDER lists every file of sql/functions exactly once', () => {
    const onDisk = fs.readdirSync(path.join(SQL_ROOT, 'functions')).filter((f) => f.endsWith('.sql')).sort();
    assert.deepEqual(functionFiles.map((f) => f.name).sort(), onDisk);
    assert.ok(onDisk.length >= 40);
  });

  test('each function is created by exactly one file under sql/, the file named after it, and no migration creates one', () => {
    const creators = new Map<string, string[]>();
    const sqlFiles = [
      ...readMigrations().map((m) => ({ where: `migrations/${m.name}`, sql: m.sql })),
      ...functionFiles.map((f) => ({ where: `functions/${f.name}`, sql: f.sql })),
    ];
    for (const file of sqlFiles) {
      for (const match of file.sql.matchAll(/CREATE (?:OR REPLACE )?FUNCTION queen\.(\w+)/g)) {
        creators.set(match[1]!, [...(creators.get(match[1]!) ?? []), file.where]);
      }
    }
    for (const [fn, where] of creators) assert.deepEqual(where, [`functions/${fn}.sql`], `queen.${fn} is created in ${where.join(', ')}`);
    assert.equal(creators.size, functionFiles.length);
  });

  test('each file opens with its contract: a summary naming the function, then Parameters, Result and Locks', () => {
    for (const file of functionFiles) {
      const header = file.sql.slice(0, file.sql.indexOf('CREATE OR REPLACE FUNCTION'));
      const fn = file.name.replace(/\.sql$/, '');
      assert.match(header, new RegExp(`^-- ${fn}: `), `${file.name} opens with "-- ${fn}: ..."`);
      for (const field of ['Parameters', 'Result', 'Locks']) assert.match(header, new RegExp(`--\\s+${field}`), `${file.name} states its ${field}`);
      assert.doesNotMatch(file.sql, /\b00\d\d_\w+\.sql|\(0\d{3}\)/, `${file.name} points at a migration`);
    }
  });
});

describe('migrate: function files', () => {
  const probe = (version: number): SqlFile => {
    const sql = `-- zz_probe: a test function.\nCREATE OR REPLACE FUNCTION queen.zz_probe() RETURNS integer LANGUAGE sql AS $$ SELECT ${version} $$;`;
    return { name: 'zz_probe.sql', sql, checksum: sqlChecksum(sql) };
  };
  const probeValue = async (db: TestDatabase) => (await db.query<{ v: number }>('SELECT queen.zz_probe() AS v')).rows[0]!.v;

  test('a fresh database gets every function file, recorded with its checksum; a second run re-applies none', async () => {
    const db = await freshDatabase();
    const pool = poolOn(db);
    const first = await migrateSchema(pool);
    assert.deepEqual(first.functions, functionFiles.map((f) => f.name));
    // Byte order on both sides: locale collations disagree on '_' against '.' (commit_one.sql, commit.sql).
    const recorded = await db.query<{ name: string; checksum: string }>('SELECT name, checksum FROM queen.function_files ORDER BY name COLLATE "C"');
    assert.deepEqual(recorded.rows, functionFiles.map((f) => ({ name: f.name, checksum: f.checksum })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
    assert.deepEqual(await migrateSchema(pool), { migrations: [], functions: [], citus: false });
    // QUEEN_CITUS on one PostgreSQL: auto serves it as one, on stops the start-up saying why.
    assert.deepEqual(await migrateSchema(pool, files, functionFiles, 'auto'), { migrations: [], functions: [], citus: false });
    await assert.rejects(migrateSchema(pool, files, functionFiles, 'on'), /QUEEN_CITUS=on, but the database is not a Citus coordinator/);
    const checksums = await db.query<{ name: string; checksum: string }>('SELECT name, checksum FROM queen.migrations ORDER BY version');
    assert.deepEqual(checksums.rows, files.map((m) => ({ name: m.name, checksum: m.checksum })));
  });

  test('a changed file is re-applied alone, and the database runs the new body', async () => {
    const db = await freshDatabase();
    const pool = poolOn(db);
    await migrateSchema(pool, files, [...functionFiles, probe(1)]);
    assert.equal(await probeValue(db), 1);
    assert.deepEqual(await migrateSchema(pool, files, [...functionFiles, probe(2)]), { migrations: [], functions: ['zz_probe.sql'], citus: false });
    assert.equal(await probeValue(db), 2);
  });

  test('a failing file rolls back every function change of that start-up and names the file', async () => {
    const db = await freshDatabase();
    const pool = poolOn(db);
    await migrateSchema(pool, files, [...functionFiles, probe(1)]);
    const broken: SqlFile = { name: 'zz_broken.sql', sql: 'CREATE OR REPLACE FUNCTION queen.zz_broken() RETURNS integer LANGUAGE sql AS $$ SELEC 1 $$;', checksum: 'x' };
    await assert.rejects(migrateSchema(pool, files, [...functionFiles, probe(2), broken]), /function file zz_broken\.sql failed/);
    assert.equal(await probeValue(db), 1);
    const recorded = await db.query<{ checksum: string }>(`SELECT checksum FROM queen.function_files WHERE name = 'zz_probe.sql'`);
    assert.equal(recorded.rows[0]!.checksum, probe(1).checksum);
  });
});

describe('migrate: checksums of applied migrations', () => {
  test('a migration changed after it was applied stops the start-up naming the file, before anything else is applied', async () => {
    const db = await freshDatabase();
    const pool = poolOn(db);
    await migrateSchema(pool);
    const edited = files.map((m) => (m.version === 3 ? { ...m, sql: `${m.sql}\n-- edited`, checksum: sqlChecksum(`${m.sql}\n-- edited`) } : m));
    const later: Migration = { version: 9002, name: '9002_later.sql', sql: 'CREATE TABLE queen.later_table (x integer)', checksum: 'later' };
    await assert.rejects(migrateSchema(pool, [...edited, later]), (error: unknown) => {
      assert.match((error as Error).message, /^migration 0003_push\.sql was changed after it was applied/);
      return true;
    });
    const table = await db.query<{ t: string | null }>(`SELECT to_regclass('queen.later_table')::text AS t`);
    assert.equal(table.rows[0]!.t, null);
  });

  test('rows recorded before checksums existed take the file checksum once; a later edit is then caught', async () => {
    const db = await freshDatabase();
    const pool = poolOn(db);
    await migrateSchema(pool);
    await db.query('UPDATE queen.migrations SET checksum = NULL');
    assert.deepEqual(await migrateSchema(pool), { migrations: [], functions: [], citus: false });
    const rows = await db.query<{ checksum: string | null }>('SELECT checksum FROM queen.migrations ORDER BY version');
    assert.deepEqual(rows.rows.map((r) => r.checksum), files.map((m) => m.checksum));
    const edited = files.map((m) => (m.version === 1 ? { ...m, checksum: 'different' } : m));
    await assert.rejects(migrateSchema(pool, edited), /migration 0001_tables\.sql was changed after it was applied/);
  });

  test('a database migrated by a newer release refuses this one (it would put older functions back)', async () => {
    const db = await freshDatabase();
    const pool = poolOn(db);
    await migrateSchema(pool);
    await db.query(`INSERT INTO queen.migrations (version, name, checksum) VALUES (9999, '9999_future.sql', 'f')`);
    await assert.rejects(migrateSchema(pool), /the database has migration 9999_future\.sql, newer than this broker release/);
  });
});
