/**
 * The PostgreSQL a benchmark ran against: its version and the settings that matter for a write-heavy
 * queue, read over a direct connection with the `pg` package (the HTTP API has no SQL route).
 *
 * Design: the tool knows the database when it started the broker on an embedded PostgreSQL (the port it
 * chose, user/password postgres, as the broker's embedded mode uses) or when the environment names one
 * (DATABASE_URL, or PG_HOST/PG_PORT/PG_USER/PG_PASSWORD/PG_DB with the broker's defaults). Otherwise (--url
 * without those variables) there is nothing to ask and the report says so. Failures are returned, not
 * thrown: a missing database description must never fail a benchmark.
 */
import pg from 'pg';

/** Settings read with SHOW, in report order. */
export const PG_SETTINGS = [
  'synchronous_commit', 'fsync', 'full_page_writes', 'wal_level', 'shared_buffers', 'wal_buffers', 'max_wal_size',
  'checkpoint_timeout', 'work_mem', 'max_connections',
] as const;

/** Where to connect. */
export type DatabaseTarget =
  | { connectionString: string; label: string }
  | { host: string; port: number; user: string; password: string; database: string; label: string };

/** What was learnt, or why nothing was. */
export type DatabaseInfo =
  | { ok: true; source: string; version: string; settings: Record<string, string> }
  | { ok: false; source: string; error: string };

/** The database named by the environment (DATABASE_URL or PG_*), or undefined. */
export function environmentDatabase(env: NodeJS.ProcessEnv = process.env): DatabaseTarget | undefined {
  const url = env['DATABASE_URL'];
  if (url !== undefined && url !== '') return { connectionString: url, label: 'DATABASE_URL' };
  const host = env['PG_HOST'];
  if (host === undefined || host === '') return undefined;
  const port = Number(env['PG_PORT'] ?? '5432');
  return {
    host, port: Number.isInteger(port) ? port : 5432, user: env['PG_USER'] || 'postgres',
    password: env['PG_PASSWORD'] || 'postgres', database: env['PG_DB'] || 'postgres',
    label: `PG_HOST=${host}:${Number.isInteger(port) ? port : 5432}`,
  };
}

/** The embedded PostgreSQL a broker started by this tool runs on `port`. */
export function embeddedDatabase(port: number): DatabaseTarget {
  return {
    host: 'localhost', port, user: 'postgres', password: 'postgres', database: 'postgres',
    label: `embedded PostgreSQL started by the broker (localhost:${port})`,
  };
}

/** Connects, reads `SELECT version()` and the SHOW settings, disconnects. Never throws. */
export async function readDatabaseInfo(target: DatabaseTarget): Promise<DatabaseInfo> {
  const { label, ...config } = target;
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 5000, statement_timeout: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const version = await client.query<{ version: string }>('SELECT version()');
    const settings: Record<string, string> = {};
    for (const name of PG_SETTINGS) {
      const result = await client.query<Record<string, string>>(`SHOW ${name}`);
      settings[name] = result.rows[0]?.[name] ?? '?';
    }
    return { ok: true, source: label, version: version.rows[0]?.version ?? '?', settings };
  } catch (error) {
    return { ok: false, source: label, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The postmaster of `target` when it runs on this host (a backend's parent pid, from /proc), for the CPU of an
 * external PostgreSQL; null when it cannot be known (another host, another pid namespace). Never throws.
 */
export async function localPostmaster(target: DatabaseTarget, parentPid: (pid: number) => number | null): Promise<number | null> {
  const { label: _label, ...config } = target;
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = rows[0]?.pid;
    return backend === undefined ? null : parentPid(backend);
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}
