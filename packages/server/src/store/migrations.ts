/**
 * Versioned schema migrations: the numbered `.sql` files of `sql/migrations`, applied in order at start-up,
 * each in its own transaction, recorded in `queen.migrations`. A session-level advisory lock serialises
 * brokers that start at the same time: the second one waits, then finds nothing left to apply.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/** Where the migration files live (packages/server/sql, reached from both src/ and dist/). */
export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sql/migrations');

/** A migration file: its version (the leading number) and its SQL. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads the migration files in version order. */
export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((file) => /^\d{4}_.+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), name: file, sql: fs.readFileSync(path.join(dir, file), 'utf8') }));
}

const LOCK_KEY = 0x51_75_65_65; // "Quee"

/** Applies every migration not yet recorded. Returns the names of those it applied. */
export async function migrate(pool: pg.Pool, migrations: Migration[] = readMigrations()): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`
      CREATE SCHEMA IF NOT EXISTS queen;
      CREATE TABLE IF NOT EXISTS queen.migrations (
        version    integer     PRIMARY KEY,
        name       text        NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM queen.migrations')).rows.map((r) => r.version));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO queen.migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(migration.name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    client.release();
  }
  return applied;
}
