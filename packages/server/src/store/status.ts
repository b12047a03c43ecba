/**
 * Read views of the status routes (docs/api.md 7.10) over the queue tables: queue summaries, live leases, the DLQ
 * summary, per-partition activity, and the database-derived Prometheus gauges. Message counts come from the
 * partition facts of store/queues.ts (`partitionFactsList`), the one source of the counts of docs/api.md 7.2,
 * and message states from the message views of store/messages.ts.
 */
import type { Db } from './database.js';

/** Which queues a view covers; a null field does not filter. */
export interface QueueFilter {
  queue: string | null;
  namespace: string | null;
  task: string | null;
}

/** A queue with its partition count and the messages its cursors consumed. */
export interface QueueSummaryRow {
  id: string;
  name: string;
  namespace: string;
  task: string;
  createdAt: string;
  partitions: number;
  totalConsumed: number;
}

/** Queues matching the filter, newest first, one page of them (`limit` null: all). */
export async function queueSummaryList(
  db: Db,
  params: { filter: QueueFilter; limit: number | null; offset: number },
): Promise<QueueSummaryRow[]> {
  const { filter } = params;
  const result = await db.query<QueueSummaryRow>(
    `SELECT q.id, q.name, q.namespace, q.task, queen.format_millis(q.created_at) AS "createdAt",
            (SELECT count(*)::integer FROM queen.partitions p WHERE p.queue_id = q.id) AS partitions,
            (SELECT coalesce(sum(c.total_consumed), 0)::float8 FROM queen.partitions p
             JOIN queen.cursors c ON c.partition_id = p.id WHERE p.queue_id = q.id) AS "totalConsumed"
     FROM queen.queues q
     WHERE ($1::text IS NULL OR q.name = $1) AND ($2::text IS NULL OR q.namespace = $2) AND ($3::text IS NULL OR q.task = $3)
     ORDER BY q.created_at DESC, q.id DESC
     LIMIT $4 OFFSET $5`,
    [filter.queue, filter.namespace, filter.task, params.limit, params.offset],
  );
  return result.rows;
}

/** Live leases of the queues matching the filter. `totalBatchSize`: messages still unsettled in them. */
export interface LeaseSummaryRow {
  active: number;
  partitionsWithLeases: number;
  totalBatchSize: number;
}

/** Summarises the live leases over the queues matching the filter. */
export async function leaseSummary(db: Db, params: { filter: QueueFilter }): Promise<LeaseSummaryRow> {
  const { filter } = params;
  const result = await db.query<LeaseSummaryRow>(
    `SELECT count(DISTINCT c.lease_id)::integer AS active, count(DISTINCT c.partition_id)::integer AS "partitionsWithLeases",
            coalesce(sum(greatest(c.lease_span_end - c.committed, 0)), 0)::float8 AS "totalBatchSize"
     FROM queen.cursors c
     JOIN queen.partitions p ON p.id = c.partition_id
     JOIN queen.queues q ON q.id = p.queue_id
     WHERE c.lease_expires_at > now()
       AND ($1::text IS NULL OR q.name = $1) AND ($2::text IS NULL OR q.namespace = $2) AND ($3::text IS NULL OR q.task = $3)`,
    [filter.queue, filter.namespace, filter.task],
  );
  return result.rows[0]!;
}

/** DLQ entries of the queues matching the filter: count, partitions, the five most frequent errors. */
export interface DeadLetterSummaryRow {
  totalMessages: number;
  affectedPartitions: number;
  topErrors: Array<{ error: string | null; count: number }>;
}

/** Summarises the DLQ entries over the queues matching the filter. */
export async function deadLetterSummary(db: Db, params: { filter: QueueFilter }): Promise<DeadLetterSummaryRow> {
  const { filter } = params;
  const result = await db.query<DeadLetterSummaryRow>(
    `WITH entries AS (
       SELECT d.partition_id, d.error_message
       FROM queen.dead_letters d
       JOIN queen.partitions p ON p.id = d.partition_id
       JOIN queen.queues q ON q.id = p.queue_id
       WHERE ($1::text IS NULL OR q.name = $1) AND ($2::text IS NULL OR q.namespace = $2) AND ($3::text IS NULL OR q.task = $3)
     ), errors AS (
       SELECT e.error_message AS error, count(*)::integer AS count FROM entries e
       GROUP BY e.error_message ORDER BY count(*) DESC, e.error_message LIMIT 5
     )
     SELECT (SELECT count(*)::integer FROM entries) AS "totalMessages",
            (SELECT count(DISTINCT partition_id)::integer FROM entries) AS "affectedPartitions",
            coalesce((SELECT json_agg(json_build_object('error', error, 'count', count) ORDER BY count DESC, error) FROM errors), '[]') AS "topErrors"`,
    [filter.queue, filter.namespace, filter.task],
  );
  return result.rows[0]!;
}

/** What the queue detail shows of a partition besides its message counts. */
export interface PartitionActivityRow {
  id: string;
  lastActivity: string | null;
  pushedLastHour: number;
  /** Lowest offset among the messages pushed within the last hour, or null when there are none. */
  firstRecentOffset: number | null;
  totalConsumed: number;
  batchesConsumed: number;
  /** Mean over the contacted groups of the head's age in seconds (0 when caught up); null when none. */
  avgLagSeconds: number | null;
}

/** Recent pushes, cursor counters and consumer lag of every partition of a queue. */
export async function partitionActivityList(db: Db, params: { queueId: string }): Promise<PartitionActivityRow[]> {
  const result = await db.query<PartitionActivityRow>(
    `SELECT p.id,
            queen.format_millis(greatest(p.last_push_at, cur.last_activity)) AS "lastActivity",
            coalesce(recent.messages, 0)::float8 AS "pushedLastHour", recent.first_offset::float8 AS "firstRecentOffset",
            coalesce(cur.total_consumed, 0)::float8 AS "totalConsumed", coalesce(cur.batches_consumed, 0)::float8 AS "batchesConsumed",
            round(lag.seconds::numeric, 3)::float8 AS "avgLagSeconds"
     FROM queen.partitions p
     LEFT JOIN LATERAL (
       SELECT sum(s.last_offset - s.first_offset + 1) AS messages, min(s.first_offset) AS first_offset
       FROM queen.segments s WHERE s.partition_id = p.id AND s.created_at > now() - interval '1 hour'
     ) recent ON true
     LEFT JOIN LATERAL (
       SELECT max(c.last_activity_at) AS last_activity, sum(c.total_consumed) AS total_consumed,
              sum(c.batches_consumed) AS batches_consumed
       FROM queen.cursors c WHERE c.partition_id = p.id
     ) cur ON true
     LEFT JOIN LATERAL (
       SELECT avg(coalesce(extract(epoch FROM now() - head.created_at), 0)) AS seconds
       FROM queen.cursors c
       LEFT JOIN LATERAL (
         SELECT s.created_at FROM queen.segments s
         WHERE s.partition_id = c.partition_id AND s.last_offset > c.committed
         ORDER BY s.last_offset LIMIT 1
       ) head ON true
       WHERE c.partition_id = p.id
     ) lag ON true
     WHERE p.queue_id = $1`,
    [params.queueId],
  );
  return result.rows;
}

/** The database-derived gauges of `GET /metrics/prometheus` (see `queen.metrics_gauges`). */
export interface DatabaseGauges {
  queues: Array<{ queue: string; pending: number; dlqDepth: number }>;
  lags: Array<{ queue: string; group: string; seconds: number }>;
  leasesActive: number;
}

/** Reads the database-derived gauges in one statement. */
export async function metricsGauges(db: Db): Promise<DatabaseGauges> {
  const result = await db.query<{ gauges: DatabaseGauges }>('SELECT queen.metrics_gauges() AS gauges');
  return result.rows[0]!.gauges;
}
