/**
 * The Citus deployment's schema step (docs/scale-out.md section 8), run by `migrate` after the numbered
 * migrations and the function files, under the same advisory lock:
 *
 * - detection: the database is a Citus coordinator when the `citus` extension is installed and
 *   `citus_get_active_worker_nodes()` returns workers (QUEEN_CITUS=auto); `on` requires it, `off` never looks;
 * - distribution: `sql/citus/distribute.sql` once, in one transaction, when `queen.partitions` is not yet a
 *   distributed table (its own idempotence check: the conversion is recorded by Citus's catalog, not by us);
 * - the Citus functions: the files of `sql/citus/functions/`, recorded in `queen.function_files` as `citus/<file>`:
 *   the entry points, each ending with its `create_distributed_function`, and the overrides of single-PostgreSQL
 *   functions (same signature, a body Citus can plan: docs/scale-out.md section 10). Applied when their checksum
 *   changed, and all of them whenever a function file of `sql/functions/` was re-applied (which would have put
 *   the single-PostgreSQL body back over an override).
 *
 * This module and `citus-routing.ts`, `citus-claims.ts`, `citus-admin.ts` are the only TypeScript that knows the
 * deployments differ.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { sqlChecksum, type SqlFile } from './migrations.js';

/** packages/server/sql/citus, reached from both src/ and dist/. */
const CITUS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sql/citus');

/** How the broker treats the database (config QUEEN_CITUS). */
export type CitusMode = 'auto' | 'on' | 'off';

/** What the Citus step did: whether the database is treated as Citus, whether it converted it now, the entry points installed. */
export interface CitusReport {
  citus: boolean;
  convertedNow: boolean;
  functions: string[];
}

/** The Citus functions: `sql/citus/functions/*.sql`, in name order (none needs another to exist when it is created). */
export function readCitusFunctions(dir: string = path.join(CITUS_DIR, 'functions')): SqlFile[] {
  return fs.readdirSync(dir).filter((file) => file.endsWith('.sql')).sort()
    .map((file) => {
      const sql = fs.readFileSync(path.join(dir, file), 'utf8');
      return { name: `citus/${file}`, sql, checksum: sqlChecksum(sql) };
    });
}

/** Whether the database is a Citus coordinator with active workers. */
async function isCitusCoordinator(client: pg.PoolClient): Promise<boolean> {
  const found = await client.query<{ installed: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS installed`);
  if (!found.rows[0]!.installed) return false;
  const workers = await client.query<{ count: number }>('SELECT count(*)::int AS count FROM citus_get_active_worker_nodes()');
  return workers.rows[0]!.count > 0;
}

/**
 * Detects Citus (per `mode`), converts the schema once and installs the changed Citus functions (all of them when
 * `functionsReapplied`: migrate re-applied function files of sql/functions/). `inTransaction` is migrate's: one
 * transaction per step, rolled back and named on failure.
 */
export async function applyCitus(
  client: pg.PoolClient,
  mode: CitusMode,
  functionsReapplied: boolean,
  inTransaction: (what: () => string, work: () => Promise<void>) => Promise<void>,
): Promise<CitusReport> {
  if (mode === 'off') return { citus: false, convertedNow: false, functions: [] };
  const citus = await isCitusCoordinator(client);
  if (!citus) {
    if (mode === 'on') throw new Error('QUEEN_CITUS=on, but the database is not a Citus coordinator with active workers (CREATE EXTENSION citus; citus_add_node)');
    return { citus: false, convertedNow: false, functions: [] };
  }
  const converted = await client.query(`SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'queen.partitions'::regclass`);
  const convertedNow = converted.rowCount === 0;
  if (convertedNow) {
    const sql = fs.readFileSync(path.join(CITUS_DIR, 'distribute.sql'), 'utf8');
    await inTransaction(() => 'sql/citus/distribute.sql', async () => void (await client.query(sql)));
  }
  const recorded = new Map((await client.query<{ name: string; checksum: string }>(
    `SELECT name, checksum FROM queen.function_files WHERE name LIKE 'citus/%'`)).rows.map((r) => [r.name, r.checksum]));
  const changed = readCitusFunctions().filter((file) => convertedNow || functionsReapplied || recorded.get(file.name) !== file.checksum);
  for (const file of changed) {
    // One transaction each: create_distributed_function commits its metadata on every node.
    await inTransaction(() => `function file sql/${file.name}`, async () => {
      await client.query(file.sql);
      await client.query(
        `INSERT INTO queen.function_files (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`, [file.name, file.checksum]);
    });
  }
  return { citus: true, convertedNow, functions: changed.map((file) => file.name) };
}
