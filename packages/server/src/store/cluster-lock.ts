/**
 * Once-per-cluster cycles of background services (docs/api.md 9.2 rule 3).
 *
 * A cycle takes a session advisory lock with `pg_try_advisory_lock` on a connection of its own: the process
 * that gets it runs the cycle, the others skip it at once (never wait). The work runs on that connection
 * under the cycle's statement timeout and may commit as many statements as it likes (batches of deletes
 * each commit on their own). The lock is released when the work ends; if the connection breaks, PostgreSQL
 * releases it with the session, and the connection is discarded rather than returned to the pool.
 */
import type pg from 'pg';

/** The result of a cycle: its value, or `acquired: false` when another process holds the lock. */
export type ClusterCycle<T> = { acquired: true; value: T } | { acquired: false };

/** Runs `work` if this process gets the advisory lock `key`; statements time out after `statementTimeoutMs`. */
export async function withClusterLock<T>(
  db: pg.Pool,
  params: { key: number; statementTimeoutMs: number },
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<ClusterCycle<T>> {
  const client = await db.connect();
  let broken: Error | undefined;
  try {
    const locked = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [params.key]);
    if (locked.rows[0]?.locked !== true) return { acquired: false };
    try {
      await client.query(`SELECT set_config('statement_timeout', $1, false)`, [String(params.statementTimeoutMs)]);
      return { acquired: true, value: await work(client) };
    } finally {
      await client.query('RESET statement_timeout');
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [params.key]);
    }
  } catch (error) {
    broken = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(broken);
  }
}
