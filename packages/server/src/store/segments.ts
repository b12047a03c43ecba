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
}

/**
 * What happened to one item. `unsealed`: refused, nothing written, because the queue has encryption enabled,
 * the session holds the key and the payload arrived in plaintext (the sealing step re-submits it sealed;
 * see core/payload-sealing.ts). It never leaves the write path.
 */
export interface AppendResult {
  status: 'queued' | 'duplicate' | 'failed' | 'unsealed';
  messageId: string | null;
  partitionId: string;
  error: string | null;
  namespace: string;
  task: string;
}

const SQL = `SELECT item, status, message_id AS "messageId", partition_id AS "partitionId", error,
    queue_namespace AS namespace, queue_task AS task
  FROM queen.push_messages($1::text[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[])`;

/** A result row of `queen.push_messages`: the result of item number `item` (1-based). */
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
    ],
  };
}

function inItemOrder(rows: Row[], count: number): AppendResult[] {
  const ordered = new Array<AppendResult>(count);
  for (const row of rows) ordered[row.item - 1] = row;
  return ordered;
}

/** Appends the items in one transaction; results come back in item order. */
export async function segmentAppend(db: Db, params: { items: AppendItem[] }): Promise<AppendResult[]> {
  const result = await db.query<Row>(appendQuery(params.items));
  return inItemOrder(result.rows, params.items.length);
}

/**
 * Appends replayed items (docs/api.md 9.5): like `segmentAppend`, with `queen.replay` set for the transaction so
 * that maxSize is not enforced (sql/functions/queue_mode_backlog.sql). Runs inside a transaction
 * (`Store.segmentAppendReplay` opens one): replay batches are paced anyway.
 */
export async function segmentAppendReplay(db: Db, params: { items: AppendItem[] }): Promise<AppendResult[]> {
  await db.query(`SELECT set_config('queen.replay', 'on', true)`);
  return segmentAppend(db, params);
}
