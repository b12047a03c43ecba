/**
 * One database transaction for `POST /api/v1/transaction` (API.md 7.1): a client taken from the pool, BEGIN,
 * the locks of every operation in the global order (`queen.transaction_lock`), the operations through the
 * same SQL functions the push and ack routes use (`queen.push_messages`, `queen.ack_messages`), then COMMIT
 * or ROLLBACK as the work decides.
 *
 * Taking the locks up front means operations listed in any order cannot deadlock against each other. Should
 * a deadlock still occur against some other path, PostgreSQL fails one transaction; it has written nothing,
 * so it is run again from the start (at most `DEADLOCK_ATTEMPTS` times).
 */
import type pg from 'pg';
import { cursorAck, type AckItem, type AckResult } from './cursors.js';
import { segmentAppend, type AppendItem, type AppendResult } from './segments.js';

/** What the operations of a transaction can do, all inside the same database transaction. */
export interface TransactionStore {
  /**
   * Takes, in the global lock order, the locks of every partition the pushes will write and every
   * (partition, group) the acks will settle (`queen.transaction_lock`); creates missing queues and partitions.
   */
  lock(params: { pushes: Array<{ queue: string; partition: string }>; acks: Array<{ partitionId: string; group: string }> }): Promise<void>;
  /** Appends push items (`queen.push_messages`); results in item order. */
  append(items: AppendItem[]): Promise<AppendResult[]>;
  /** Applies one ack (`queen.ack_messages`). */
  ack(item: AckItem): Promise<AckResult>;
  /** The live lease id of (partition, group), or null; locks the cursor row until the end of the transaction. */
  liveLease(params: { partitionId: string; group: string }): Promise<string | null>;
}

/** What the work hands back: whether to commit, and its value. */
export interface TransactionDecision<T> {
  commit: boolean;
  value: T;
}

const DEADLOCK_ATTEMPTS = 3;
const DEADLOCK_DETECTED = '40P01';

const LIVE_LEASE_SQL = `SELECT c.lease_id::text AS lease_id FROM queen.cursors c
  WHERE c.partition_id = $1::uuid AND c.consumer_group = $2 AND c.lease_expires_at > now()
  FOR UPDATE`;

/** The operations of a transaction on `client`, which is inside an open database transaction. */
export function transactionStoreOn(client: pg.PoolClient): TransactionStore {
  return {
    async lock({ pushes, acks }) {
      await client.query('SELECT queen.transaction_lock($1::text[], $2::text[], $3::uuid[], $4::text[])', [
        pushes.map((p) => p.queue), pushes.map((p) => p.partition), acks.map((a) => a.partitionId), acks.map((a) => a.group)]);
    },
    append: (items) => segmentAppend(client, { items }),
    ack: async (item) => (await cursorAck(client, { items: [item] }))[0]!,
    async liveLease({ partitionId, group }) {
      const result = await client.query<{ lease_id: string }>(LIVE_LEASE_SQL, [partitionId, group]);
      return result.rows[0]?.lease_id ?? null;
    },
  };
}

/**
 * Runs `work` on one pooled connection inside one database transaction opened with `begin`, then commits or
 * rolls back as it decides; a failure rolls back. A connection whose rollback fails is discarded, not reused.
 */
export async function databaseTransaction<T>(
  db: pg.Pool,
  params: { begin: string; work: (client: pg.PoolClient) => Promise<TransactionDecision<T>> },
): Promise<T> {
  const client = await db.connect();
  let broken: Error | undefined;
  // A connection lost while checked out emits 'error' on the client (the pool listens only to idle ones):
  // without a listener that would crash the process. The pending query rejects on its own.
  const onError = (error: Error): void => {
    broken = error;
  };
  client.on('error', onError);
  try {
    await client.query(params.begin);
    const decision = await params.work(client);
    await client.query(decision.commit ? 'COMMIT' : 'ROLLBACK');
    return decision.value;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/**
 * Runs the work of `POST /api/v1/transaction` in one database transaction and commits or rolls back as it
 * decides. `origin` marks the wake-up notifications as this process's own. A deadlock reruns the work from
 * the start.
 */
export async function transactionRun<T>(
  db: pg.Pool,
  params: { origin: string; work: (store: TransactionStore) => Promise<TransactionDecision<T>> },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await databaseTransaction(db, { begin: 'BEGIN', work: (client) => params.work(transactionStoreOn(client)) });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== DEADLOCK_DETECTED || attempt >= DEADLOCK_ATTEMPTS) throw error;
    }
  }
}
