/**
 * Reading the dead-letter queue (API.md 7.5): one row per DLQ event, with the message it references
 * (`queen.message_at`, sql/functions/message_at.sql), newest failure first. One
 * statement reads the page and the total, so both come from the same snapshot.
 */
import type pg from 'pg';

/** Filters of the DLQ listing; null means "no filter". `from`/`to` bound `failedAt` (ISO-8601). */
export interface DeadLetterFilter {
  queue: string | null;
  consumerGroup: string | null;
  partition: string | null;
  from: string | null;
  to: string | null;
}

/** One DLQ entry with its message. */
export interface DeadLetterEntry {
  id: string;
  transactionId: string;
  partitionId: string;
  queue: string;
  partition: string;
  consumerGroup: string;
  errorMessage: string | null;
  retryCount: number;
  /** The message's payload as stored JSON text; null if the message is gone. */
  payload: string | null;
  producerSub: string | null;
  createdAt: string | null;
  failedAt: string;
}

const LIST_SQL = `WITH hits AS MATERIALIZED (
    SELECT d.id AS entry, d.message_id, d.transaction_id, d.partition_id, d.message_offset, q.name AS queue_name,
           p.name AS partition_name, d.consumer_group, d.error_message, d.retry_count, d.failed_at
    FROM queen.dead_letters d
    JOIN queen.partitions p ON p.id = d.partition_id
    JOIN queen.queues q ON q.id = p.queue_id
    WHERE ($1::text IS NULL OR q.name = $1) AND ($2::text IS NULL OR d.consumer_group = $2)
      AND ($3::text IS NULL OR p.name = $3)
      AND ($4::timestamptz IS NULL OR d.failed_at >= $4) AND ($5::timestamptz IS NULL OR d.failed_at <= $5)
  )
  SELECT (SELECT count(*) FROM hits)::integer AS total,
         coalesce((
           SELECT json_agg(json_build_object(
                    'id', h.message_id, 'transactionId', h.transaction_id, 'partitionId', h.partition_id,
                    'queue', h.queue_name, 'partition', h.partition_name, 'consumerGroup', h.consumer_group,
                    'errorMessage', h.error_message, 'retryCount', h.retry_count, 'payload', m.payload,
                    'producerSub', m.producer_sub, 'createdAt', queen.format_millis(m.created_at),
                    'failedAt', queen.format_millis(h.failed_at))
                  ORDER BY h.failed_at DESC, h.entry DESC)
           FROM (SELECT * FROM hits ORDER BY failed_at DESC, entry DESC LIMIT $6 OFFSET $7) h
           LEFT JOIN LATERAL queen.message_at(h.partition_id, h.message_offset) m ON true
         ), '[]') AS entries`;

/** A page of DLQ entries matching the filter, newest failure first, and the number of all matching entries. */
export async function deadLetterList(
  db: pg.Pool,
  params: { filter: DeadLetterFilter; limit: number; offset: number },
): Promise<{ entries: DeadLetterEntry[]; total: number }> {
  const { filter } = params;
  const result = await db.query<{ total: number; entries: DeadLetterEntry[] }>(LIST_SQL, [filter.queue, filter.consumerGroup,
    filter.partition, filter.from, filter.to, params.limit, params.offset]);
  const row = result.rows[0]!;
  return { entries: row.entries, total: row.total };
}
