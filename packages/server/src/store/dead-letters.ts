/**
 * Reading the dead-letter queue (docs/api.md 7.5): one row per DLQ event, with the message it references
 * (`queen.message_at`, sql/functions/message_at.sql), newest failure first. One
 * statement reads the page and the total, so both come from the same snapshot.
 */
import type { Db } from './database.js';

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
  /** The message's payload as stored JSON text; null if the message is gone or the payload was left out. */
  payload: string | null;
  /** Size of the stored payload in bytes; null if the message is gone. */
  payloadBytes: number | null;
  /** True when the payload exists but was left out: the page's byte budget was spent. */
  payloadOmitted: boolean;
  producerSub: string | null;
  createdAt: string | null;
  failedAt: string;
}

/**
 * One row per entry of the page (never one aggregated value: a page of large payloads packed into one
 * column outgrows what the driver can hold). A payload is carried only while the running sum of the page's
 * payload sizes, in page order, stays within `$8` bytes; the later ones are left out and flagged, so the
 * answer is bounded in bytes whatever the messages weigh (docs/configuration.md LISTING_MAX_BYTES).
 */
const LIST_SQL = `WITH hits AS MATERIALIZED (
    SELECT d.id AS entry, d.message_id, d.transaction_id, d.partition_id, d.message_offset, q.name AS queue_name,
           p.name AS partition_name, d.consumer_group, d.error_message, d.retry_count, d.failed_at
    FROM queen.dead_letters d
    JOIN queen.partitions p ON p.id = d.partition_id
    JOIN queen.queues q ON q.id = p.queue_id
    WHERE ($1::text IS NULL OR q.name = $1) AND ($2::text IS NULL OR d.consumer_group = $2)
      AND ($3::text IS NULL OR p.name = $3)
      AND ($4::timestamptz IS NULL OR d.failed_at >= $4) AND ($5::timestamptz IS NULL OR d.failed_at <= $5)
  ), page AS (
    SELECT h.*, m.payload, m.producer_sub, m.created_at, octet_length(m.payload) AS bytes,
           sum(coalesce(octet_length(m.payload), 0)) OVER (ORDER BY h.failed_at DESC, h.entry DESC
                                                            ROWS UNBOUNDED PRECEDING) AS running
    FROM (SELECT * FROM hits ORDER BY failed_at DESC, entry DESC LIMIT $6 OFFSET $7) h
    LEFT JOIN LATERAL queen.message_at(h.partition_id, h.message_offset) m ON true
  )
  SELECT (SELECT count(*) FROM hits)::integer AS total, e.*
  FROM (SELECT 1) one
  LEFT JOIN LATERAL (
    SELECT g.message_id::text AS id, g.transaction_id AS "transactionId", g.partition_id::text AS "partitionId",
           g.queue_name AS queue, g.partition_name AS partition, g.consumer_group AS "consumerGroup",
           g.error_message AS "errorMessage", g.retry_count AS "retryCount",
           CASE WHEN g.running <= $8 THEN g.payload END AS payload, g.bytes AS "payloadBytes",
           (g.payload IS NOT NULL AND g.running > $8) AS "payloadOmitted", g.producer_sub AS "producerSub",
           queen.format_millis(g.created_at) AS "createdAt", queen.format_millis(g.failed_at) AS "failedAt",
           g.failed_at AS at, g.entry
    FROM page g
  ) e ON true
  ORDER BY e.at DESC, e.entry DESC`;

/**
 * A page of DLQ entries matching the filter, newest failure first, and the number of all matching entries.
 * `maxBytes` bounds the payload bytes the page carries (see LIST_SQL).
 */
export async function deadLetterList(
  db: Db,
  params: { filter: DeadLetterFilter; limit: number; offset: number; maxBytes: number },
): Promise<{ entries: DeadLetterEntry[]; total: number }> {
  const { filter } = params;
  type Row = DeadLetterEntry & { total: number; at: Date | null; entry: string | null };
  const result = await db.query<Row>(LIST_SQL, [filter.queue, filter.consumerGroup,
    filter.partition, filter.from, filter.to, params.limit, params.offset, params.maxBytes]);
  const total = result.rows[0]?.total ?? 0;
  const entries = result.rows
    .filter((row) => row.at !== null)
    .map(({ total: _total, at: _at, entry: _entry, ...entry }) => entry);
  return { entries, total };
}
