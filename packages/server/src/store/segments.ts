/**
 * Writes to the log: one call of `queen.push_messages` per coalesced batch (sql/functions/push_messages.sql).
 */
import type pg from 'pg';
import type { Db } from './database.js';

/** One message to append, already validated, with its ids minted. */
export interface AppendItem {
  queue: string;
  partition: string;
  messageId: string;
  transactionId: string;
  traceId: string | null;
  /** The payload as JSON text, or its sealed form (core/payload-cipher.ts); stored verbatim. */
  payload: string;
  producerSub: string | null;
  /** The W3C trace context in its stored form (core/trace-context.ts), or null. */
  traceContext: string | null;
}

/**
 * What happened to one item. `unsealed`: refused, nothing written, because the queue has encryption enabled,
 * the session holds the key and the payload arrived in plaintext (the sealing step re-submits it sealed;
 * see core/payload-sealing.ts). It never leaves the write path. `unreachable` (Citus, outside a transaction
 * only): the worker holding the item's partition could not be reached; its commit may or may not have
 * happened (the push buffers it, and the replay finds a committed copy as a duplicate).
 */
export interface AppendResult {
  status: 'queued' | 'duplicate' | 'failed' | 'unsealed' | 'unreachable';
  messageId: string | null;
  partitionId: string;
  error: string | null;
  namespace: string;
  task: string;
}

/**
 * The call and a compact answer: one row per item that was not queued (duplicate, failed, unsealed: rare), and
 * one row per partition that received queued items (the partition id and the queue's namespace and task, with
 * the number of one of its items). A queued item's message id is the one the broker minted, so the common
 * case, every item queued, costs one row per partition of the batch instead of one row per item to send, parse
 * and collect (docs/decisions.md, "The push answer is compact").
 */
const SQL = `WITH r AS MATERIALIZED (
    SELECT * FROM queen.push_messages($1::text[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::text[])
  )
  SELECT item, status, message_id AS "messageId", partition_id AS "partitionId", error,
      queue_namespace AS namespace, queue_task AS task
    FROM r WHERE status <> 'queued'
  UNION ALL
  SELECT min(item), 'queued', NULL, partition_id, NULL, queue_namespace, queue_task
    FROM r WHERE status = 'queued' GROUP BY partition_id, queue_namespace, queue_task`;

/** A result row: the result of item number `item` (1-based), or for 'queued' the partition of that item. */
interface Row extends AppendResult {
  item: number;
}

function appendQuery(items: AppendItem[]): pg.QueryConfig {
  return {
    name: 'queen.push_messages',
    text: SQL,
    values: [
      items.map((i) => i.queue),
      items.map((i) => i.partition),
      items.map((i) => i.messageId),
      items.map((i) => i.transactionId),
      items.map((i) => i.traceId),
      items.map((i) => i.payload),
      items.map((i) => i.producerSub),
      traceContexts(items),
    ],
  };
}

/** The items' trace contexts, or null when none has one: the common case sends no array of nulls. */
function traceContexts(items: AppendItem[]): Array<string | null> | null {
  return items.some((i) => i.traceContext !== null) ? items.map((i) => i.traceContext) : null;
}

const pairKey = (item: AppendItem): string => `${item.queue}\u0000${item.partition}`;

/** Every item's result, in item order, from the compact answer. */
function inItemOrder(items: AppendItem[], rows: Row[]): AppendResult[] {
  const results = new Array<AppendResult>(items.length);
  const queuedIn = new Map<string, Row>();
  for (const row of rows) {
    if (row.status === 'queued') queuedIn.set(pairKey(items[row.item - 1]!), row);
    else results[row.item - 1] = row;
  }
  for (let i = 0; i < items.length; i++) {
    if (results[i] !== undefined) continue;
    const item = items[i]!;
    const partition = queuedIn.get(pairKey(item));
    if (partition === undefined) throw new Error(`push_messages answered nothing for item ${i + 1}`);
    results[i] = { status: 'queued', messageId: item.messageId, partitionId: partition.partitionId, error: null,
      namespace: partition.namespace, task: partition.task };
  }
  return results;
}

/** Appends the items in one transaction; results come back in item order. */
export async function segmentAppend(db: Db, params: { items: AppendItem[] }): Promise<AppendResult[]> {
  const result = await db.query<Row>(appendQuery(params.items));
  return inItemOrder(params.items, result.rows);
}

/**
 * Marks the transaction as a replay of the failover buffer (docs/api.md 9.5): `queen.replay` is set for it, so
 * maxSize is not enforced (sql/functions/queue_mode_backlog.sql). `Store.segmentAppendReplay` then appends.
 */
export async function replayMode(db: Db): Promise<void> {
  await db.query(`SELECT set_config('queen.replay', 'on', true)`);
}
