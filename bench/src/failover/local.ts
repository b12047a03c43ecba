/**
 * What the failover harness reads from this machine: a node's SQL (as the `postgres` user over TCP, trusted
 * on 127.0.0.1 in the test cluster), the children of a process, and the `postgres` user's ids.
 */
import fs from 'node:fs';
import pg from 'pg';

/** Runs `sql` on 127.0.0.1:`port`; the rows, or null when it fails (with `rethrow`, throws instead). */
export async function queryRows<T>(port: number, database: string, sql: string, params: unknown[] = [], rethrow = false): Promise<T[] | null> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database, connectionTimeoutMillis: 2000, query_timeout: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query(sql, params)).rows as T[];
  } catch (error) {
    if (rethrow) throw error;
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The first column of the first row as text ('' without rows); throws when the statement fails. */
export async function queryValue(port: number, database: string, sql: string): Promise<string> {
  const rows = await queryRows<Record<string, unknown>>(port, database, sql, [], true);
  const first = rows?.[0];
  return first === undefined ? '' : String(Object.values(first)[0]);
}

/** The same, null when the statement fails. */
export async function tryQueryValue(port: number, database: string, sql: string): Promise<string | null> {
  const rows = await queryRows<Record<string, unknown>>(port, database, sql);
  return rows === null ? null : String(Object.values(rows[0] ?? {})[0] ?? '');
}

/** The pids whose parent is `parent` (from /proc). */
export function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** The `postgres` user's uid and gid (from /etc/passwd); throws when there is none. */
export function postgresUser(): { uid: number; gid: number } {
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  const fields = line?.split(':');
  if (fields === undefined || fields.length < 4) {
    throw new Error('running as root but there is no `postgres` user to run PostgreSQL as (the Debian packages create it)');
  }
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}
