/**
 * The schema at start-up: the numbered migrations of `sql/migrations` (tables, indexes, types, data moves),
 * then the function files of `sql/functions` (sql/functions/README.md).
 *
 * - A migration is applied once, in its own transaction, and recorded in `queen.migrations` with its SHA-256.
 *   A recorded migration whose file changed since stops the start-up naming the file: released migrations are
 *   append-only. Rows recorded before checksums existed (release 1.0) take the file's checksum once.
 * - The function files are re-applied, in the order of `sql/functions/ORDER` and in one transaction, whenever
 *   their checksum differs from the one recorded in `queen.function_files` (all of them on a fresh database).
 * - A session-level advisory lock serialises brokers that start at the same time: the second one waits, then
 *   finds nothing left to apply.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { applyCitus, type CitusMode } from './citus-schema.js';

const SQL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sql');
/** Where the migration files live (packages/server/sql, reached from both src/ and dist/). */
export const MIGRATIONS_DIR = path.join(SQL_DIR, 'migrations');
/** Where the function files and their ORDER list live. */
export const FUNCTIONS_DIR = path.join(SQL_DIR, 'functions');

/** A SQL file: its name, its text and the SHA-256 of that text (line endings normalised). */
export interface SqlFile {
  name: string;
  sql: string;
  checksum: string;
}

/** A migration file: a SQL file with its version (the leading number). */
export interface Migration extends SqlFile {
  version: number;
}

/**
 * What one migrate() call applied: migration file names in version order, function file names in ORDER (then
 * the Citus entry points, `citus/<file>`), and whether the database is treated as Citus (citus-schema.ts).
 */
export interface MigrationReport {
  migrations: string[];
  functions: string[];
  citus: boolean;
}

/** The checksum recorded for a SQL text: SHA-256 hex over the text with CRLF read as LF (a checkout's line endings never count as a change). */
export function sqlChecksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

function sqlFile(dir: string, name: string): SqlFile {
  const sql = fs.readFileSync(path.join(dir, name), 'utf8');
  return { name, sql, checksum: sqlChecksum(sql) };
}

/** Reads the migration files in version order. */
export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((file) => /^\d{4}_.+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), ...sqlFile(dir, file) }));
}

/** Reads the function files in the order of `ORDER`; throws when ORDER and the folder disagree. */
export function readFunctions(dir: string = FUNCTIONS_DIR): SqlFile[] {
  const order = fs.readFileSync(path.join(dir, 'ORDER'), 'utf8').split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  const files = fs.readdirSync(dir).filter((file) => file.endsWith('.sql'));
  const repeated = order.filter((name, i) => order.indexOf(name) !== i);
  const unlisted = files.filter((file) => !order.includes(file));
  const missing = order.filter((name) => !files.includes(name));
  if (repeated.length + unlisted.length + missing.length > 0) {
    throw new Error(`sql/functions/ORDER disagrees with the folder: unlisted [${unlisted.join(', ')}], missing [${missing.join(', ')}], repeated [${repeated.join(', ')}]`);
  }
  return order.map((name) => sqlFile(dir, name));
}

const LOCK_KEY = 0x51_75_65_65; // "Quee"

const LEDGERS = `
  CREATE SCHEMA IF NOT EXISTS queen;
  CREATE TABLE IF NOT EXISTS queen.migrations (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  );
  ALTER TABLE queen.migrations ADD COLUMN IF NOT EXISTS checksum text;
  CREATE TABLE IF NOT EXISTS queen.function_files (
    name       text        PRIMARY KEY,
    checksum   text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`;

/**
 * Brings the database to the schema of these files (see the module note); then, unless `citus` is `off`, the
 * Citus step (citus-schema.ts). The broker passes QUEEN_CITUS; tests that convert by hand keep the default.
 */
export async function migrate(
  pool: pg.Pool,
  migrations: Migration[] = readMigrations(),
  functions: SqlFile[] = readFunctions(),
  citus: CitusMode = 'off',
): Promise<MigrationReport> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(LEDGERS);
    const applied = { migrations: await applyMigrations(client, migrations), functions: await applyFunctions(client, functions) };
    const cluster = await applyCitus(client, citus, applied.functions, (what, work) => inTransaction(client, what, work));
    return { ...applied, functions: [...applied.functions, ...cluster.functions], citus: cluster.citus };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    client.release();
  }
}

async function applyMigrations(client: pg.PoolClient, migrations: Migration[]): Promise<string[]> {
  const recorded = new Map(
    (await client.query<{ version: number; name: string; checksum: string | null }>('SELECT version, name, checksum FROM queen.migrations')).rows.map((r) => [r.version, r]),
  );
  // Check every recorded file before applying anything: a changed release must not be built upon.
  for (const migration of migrations) {
    const row = recorded.get(migration.version);
    if (row === undefined || row.checksum === null || row.checksum === migration.checksum) continue;
    throw new Error(
      `migration ${migration.name} was changed after it was applied (recorded sha256 ${row.checksum.slice(0, 12)}, file ${migration.checksum.slice(0, 12)}): ` +
        'released migrations are append-only; restore the file and put the change in a new numbered migration (or, for a function, in sql/functions/)',
    );
  }
  // A database a newer release migrated: this broker would put its older functions back over the newer ones.
  const newest = Math.max(0, ...migrations.map((m) => m.version));
  const newer = [...recorded.values()].filter((row) => row.version > newest);
  if (migrations.length > 0 && newer.length > 0) {
    throw new Error(`the database has migration ${newer.map((r) => r.name).join(', ')}, newer than this broker release: start a broker of that release`);
  }
  await client.query(
    'UPDATE queen.migrations m SET checksum = f.checksum FROM unnest($1::int[], $2::text[]) AS f (version, checksum) WHERE m.version = f.version AND m.checksum IS NULL',
    [migrations.map((m) => m.version), migrations.map((m) => m.checksum)],
  );
  const applied: string[] = [];
  for (const migration of migrations) {
    if (recorded.has(migration.version)) continue;
    await inTransaction(client, () => `migration ${migration.name}`, async () => {
      await client.query(migration.sql);
      await client.query('INSERT INTO queen.migrations (version, name, checksum) VALUES ($1, $2, $3)', [migration.version, migration.name, migration.checksum]);
    });
    applied.push(migration.name);
  }
  return applied;
}

async function applyFunctions(client: pg.PoolClient, functions: SqlFile[]): Promise<string[]> {
  const recorded = new Map((await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM queen.function_files')).rows.map((r) => [r.name, r.checksum]));
  const changed = functions.filter((file) => recorded.get(file.name) !== file.checksum);
  if (changed.length === 0) return [];
  let current = '';
  await inTransaction(client, () => `function file ${current}`, async () => {
    for (const file of changed) {
      current = file.name;
      await client.query(file.sql);
      await client.query(
        `INSERT INTO queen.function_files (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [file.name, file.checksum],
      );
    }
  });
  return changed.map((file) => file.name);
}

/** Runs `work` in one transaction; a failure rolls it back and is rethrown naming what failed. */
async function inTransaction(client: pg.PoolClient, what: () => string, work: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new Error(`${what()} failed: ${(error as Error).message}`, { cause: error });
  }
}
