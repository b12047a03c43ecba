/**
 * Administrative writes on messages (docs/api.md 7.3, 7.4): delete, requeue from the DLQ, move to the DLQ, and
 * queue clear. Each is one call of its function in sql/functions/, which
 * documents the locks it takes and the notifications it sends.
 */
import type { Db } from './database.js';

/** The queue a write touched, for waking its parked pops. */
export interface TouchedQueue {
  queue: string;
  namespace: string;
  task: string;
}

/** Outcome of a requeue. */
export type RequeueResult =
  | { outcome: 'requeued'; dlqEntriesRemoved: number; touched: TouchedQueue }
  | { outcome: 'failed'; error: string }
  | { outcome: 'not_found' | 'not_in_dlq' };

/** Outcome of a move to the DLQ. */
export type DeadLetterResult =
  | { outcome: 'moved'; leaseReleased: boolean; touched: TouchedQueue }
  | { outcome: 'not_found' | 'consumed' | 'not_head' };

/** Outcome of a queue clear. */
export type ClearResult =
  | { outcome: 'cleared'; deletedMessages: number; touched: TouchedQueue }
  | { outcome: 'queue_not_found' | 'partition_not_found' };

/** Deletes one message (its offset stays); true when it existed. */
export async function messageDelete(db: Db, params: { partitionId: string; transactionId: string }): Promise<boolean> {
  const result = await db.query<{ deleted: boolean }>('SELECT queen.message_delete($1::uuid, $2) AS deleted', [params.partitionId, params.transactionId]);
  return result.rows[0]?.deleted ?? false;
}

/** Pushes a copy of a dead-lettered message (new ids given) and removes its DLQ entries, atomically. */
export async function messageRequeue(
  db: Db,
  params: { partitionId: string; transactionId: string; messageId: string; newTransactionId: string },
): Promise<RequeueResult> {
  const result = await db.query<{ outcome: string; dlq_entries_removed: number; error: string | null; queue_name: string; queue_namespace: string; queue_task: string }>(
    `SELECT outcome, dlq_entries_removed, error, queue_name, queue_namespace, queue_task
       FROM queen.message_requeue($1::uuid, $2, $3::uuid, $4)`,
    [params.partitionId, params.transactionId, params.messageId, params.newTransactionId],
  );
  const row = result.rows[0]!;
  switch (row.outcome) {
    case 'requeued':
      return { outcome: 'requeued', dlqEntriesRemoved: row.dlq_entries_removed, touched: { queue: row.queue_name, namespace: row.queue_namespace, task: row.queue_task } };
    case 'failed':
      return { outcome: 'failed', error: row.error ?? 'Push failed' };
    default:
      return { outcome: row.outcome as 'not_found' | 'not_in_dlq' };
  }
}

/** Moves a group's head message to the DLQ. */
export async function messageDeadLetter(
  db: Db,
  params: { origin: string; partitionId: string; transactionId: string; group: string; error: string | null },
): Promise<DeadLetterResult> {
  const result = await db.query<{ outcome: string; lease_released: boolean; queue_name: string; queue_namespace: string; queue_task: string }>(
    `SELECT outcome, lease_released, queue_name, queue_namespace, queue_task
       FROM queen.message_dead_letter($1, $2::uuid, $3, $4, $5)`,
    [params.origin, params.partitionId, params.transactionId, params.group, params.error],
  );
  const row = result.rows[0]!;
  if (row.outcome !== 'moved') return { outcome: row.outcome as 'not_found' | 'consumed' | 'not_head' };
  return { outcome: 'moved', leaseReleased: row.lease_released, touched: { queue: row.queue_name, namespace: row.queue_namespace, task: row.queue_task } };
}

/** Deletes every retained message of a queue, or of one of its partitions (`partition` null: all). */
export async function queueClear(db: Db, params: { origin: string; queue: string; partition: string | null }): Promise<ClearResult> {
  const result = await db.query<{ outcome: string; deleted_messages: string; queue_namespace: string; queue_task: string }>(
    'SELECT outcome, deleted_messages, queue_namespace, queue_task FROM queen.queue_clear($1, $2, $3)',
    [params.origin, params.queue, params.partition],
  );
  const row = result.rows[0]!;
  if (row.outcome !== 'cleared') return { outcome: row.outcome as 'queue_not_found' | 'partition_not_found' };
  return { outcome: 'cleared', deletedMessages: Number(row.deleted_messages), touched: { queue: params.queue, namespace: row.queue_namespace, task: row.queue_task } };
}
