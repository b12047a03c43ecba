/**
 * Database transactions: the runner `Store.transaction` (store/index.ts) is built on, and the two statements
 * only a transaction makes sense around.
 *
 * `POST …/transaction` (docs/api.md 7.1) runs in one: the locks of every operation in the global order
 * (`transactionLock`, `queen.transaction_lock`), then the operations through the same SQL functions the push
 * and ack routes use (`queen.push_messages`, `queen.ack_messages`), then COMMIT or ROLLBACK as the work
 * decides. Taking the locks up front means operations listed in any order cannot deadlock against each other.
 * Should a deadlock (or serialization failure: a `conflict` of `classifyDatabaseError`) still occur against
 * some other path, PostgreSQL fails one transaction; it has written nothing, so it is run again from the start
 * (`retryConflicts`).
 */
import type pg from 'pg';
import { classifyDatabaseError, type Db } from './database.js';

/** What the work of a transaction hands back: whether to commit, and its value. */
export interface TransactionDecision<T> {
  commit: boolean;
  value: T;
}

/**
 * Runs `attempt` again on a conflict (deadlock, serialization failure: it wrote nothing), `attempts` times in
 * all; any other failure, or the last conflict, is thrown.
 */
export async function retryConflicts<T>(attempts: number, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (classifyDatabaseError(error) !== 'conflict' || n >= attempts) throw error;
    }
  }
}

/**
 * Runs `work` on one pooled connection; the connection is discarded, not reused, when `work` reports it
 * broken (its second argument) or the connection failed while checked out.
 */
export async function withConnection<T>(pool: pg.Pool, work: (client: pg.PoolClient, broken: (error: Error) => void) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A connection lost while checked out emits 'error' on the client (the pool listens only to idle ones):
  // without a listener that would crash the process. The pending query rejects on its own.
  const onError = (error: Error): void => {
    broken = error;
  };
  client.on('error', onError);
  try {
    return await work(client, onError);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/**
 * Runs `work` inside one transaction on `client`, opened with `begin` (`BEGIN ...`, or `SAVEPOINT name` inside
 * an open transaction, then closed with RELEASE / ROLLBACK TO); commits or rolls back as it decides, and rolls
 * back when it throws. A rollback that fails is reported through `broken`.
 */
export async function inTransaction<T>(
  client: pg.PoolClient,
  params: { begin: string; savepoint: string | null },
  work: () => Promise<TransactionDecision<T>>,
  broken: (error: Error) => void,
): Promise<T> {
  const { savepoint } = params;
  const rollback = savepoint === null ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}`;
  await client.query(params.begin);
  try {
    const decision = await work();
    await client.query(decision.commit ? (savepoint === null ? 'COMMIT' : `RELEASE SAVEPOINT ${savepoint}`) : rollback);
    return decision.value;
  } catch (error) {
    await client.query(rollback).catch(broken);
    throw error;
  }
}

/** The partitions and (partition, group) pairs a transaction will touch, for `transactionLock`. */
export interface LockTargets {
  pushes: Array<{ queue: string; partition: string }>;
  acks: Array<{ partitionId: string; group: string }>;
}

/**
 * Takes, in the global lock order, the locks of every partition the pushes will write and every
 * (partition, group) the acks will settle (`queen.transaction_lock`); creates missing queues and partitions.
 * Inside a transaction.
 */
export async function transactionLock(db: Db, params: LockTargets): Promise<void> {
  const { pushes, acks } = params;
  await db.query('SELECT queen.transaction_lock($1::text[], $2::text[], $3::uuid[], $4::text[])', [
    pushes.map((p) => p.queue), pushes.map((p) => p.partition), acks.map((a) => a.partitionId), acks.map((a) => a.group)]);
}

const LIVE_LEASE_SQL = `SELECT c.lease_id::text AS lease_id FROM queen.cursors c
  WHERE c.partition_id = $1::uuid AND c.consumer_group = $2 AND c.lease_expires_at > now()
  FOR UPDATE`;

/** The live lease id of (partition, group), or null; locks the cursor row until the end of the transaction. */
export async function leaseLiveLock(db: Db, params: { partitionId: string; group: string }): Promise<string | null> {
  const result = await db.query<{ lease_id: string }>(LIVE_LEASE_SQL, [params.partitionId, params.group]);
  return result.rows[0]?.lease_id ?? null;
}
