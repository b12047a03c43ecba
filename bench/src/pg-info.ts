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
 * The postmasters of `target` that run on this host, by node label, for PostgreSQL's CPU: its own (a backend's
 * parent pid, from /proc) and, on a Citus coordinator, each active worker listed in `pg_dist_node` that runs
 * here too (reached with the same credentials). Empty when none can be known (another host, another pid
 * namespace). Never throws.
 */
export async function localPostmasters(target: DatabaseTarget, parentPid: (pid: number) => number | null): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  const { label: _label, ...config } = target;
  const postmasterOf = async (node: pg.ClientConfig): Promise<number | null> => {
    const client = new pg.Client({ ...node, connectionTimeoutMillis: 5000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      return rows[0] === undefined ? null : parentPid(rows[0].pid);
    } catch {
      return null;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const own = await postmasterOf(config);
  if (own === null) return found;
  const workers = await citusWorkers(config);
  found.set(own, workers.length > 0 ? 'coordinator' : 'postgres');
  for (const worker of workers) {
    const pid = await postmasterOf({ ...credentialsOf(config), host: worker.host, port: worker.port });
    if (pid !== null) found.set(pid, `${worker.host}:${worker.port}`);
  }
  return found;
}

/** A target's user, password and database (the host and port differ per node). */
function credentialsOf(config: pg.ClientConfig): pg.ClientConfig {
  if (config.connectionString === undefined) return { user: config.user, password: config.password, database: config.database };
  const url = new URL(config.connectionString);
  return { user: decodeURIComponent(url.username) || 'postgres', password: decodeURIComponent(url.password), database: url.pathname.slice(1) || 'postgres' };
}

/** The active primary workers of a Citus coordinator on this host; none on plain PostgreSQL. */
async function citusWorkers(config: pg.ClientConfig): Promise<Array<{ host: string; port: number }>> {
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ host: string; port: number }>(
      `SELECT nodename AS host, nodeport AS port FROM pg_dist_node
       WHERE isactive AND noderole = 'primary' AND groupid <> 0 AND nodename IN ('127.0.0.1', 'localhost', '::1') ORDER BY nodeport`,
    );
    return rows;
  } catch {
    return []; // no pg_dist_node: not Citus
  } finally {
    await client.end().catch(() => undefined);
  }
}
