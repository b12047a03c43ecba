/**
 * Trace events (docs/api.md 7.6), in `queen.traces` (sql/migrations/0007_consumer_groups_resources_traces.sql). An event belongs to the message that
 * held its (partition, transactionId) when it was recorded: every read joins the message currently retained
 * under that key (`queen.message_find`) and keeps only the events pinned to it, so the events of a removed
 * message are never shown, whichever path removed it. Event data and message payloads are stored as JSON
 * text and parsed here, not cast to `json` in SQL: PostgreSQL's parser rejects the lone-surrogate escapes
 * that JSON.stringify may write.
 *
 * The listings answer a page and the total in one statement (one snapshot): the page is joined laterally
 * to a single row, so the total comes back even when the page is empty. They are bounded in bytes: event
 * data are carried, in page order, while their running size stays within `maxBytes` (LISTING_MAX_BYTES),
 * and so are message payloads (a budget of their own); the later ones are left out and flagged.
 */
import type { Db } from './database.js';

/** A trace event as recorded (`createdAt`: milliseconds ISO-8601). */
export interface TraceEvent {
  id: string;
  eventType: string;
  /** The event data; null when it was left out (`dataOmitted`). */
  data: unknown;
  /** Size of the stored data in bytes. */
  dataBytes: number;
  /** True when the data was left out: the page's byte budget was spent. */
  dataOmitted: boolean;
  consumerGroup: string;
  workerId: string;
  createdAt: string;
  traceNames: string[];
}

/**
 * The budget columns of a trace listing: the running sums, in page order, of the event data sizes and of
 * the message payload sizes (each is held to the budget on its own).
 */
const BUDGETED = (order: string, payload: string): string => `
  octet_length(n.data) AS "dataBytes",
  sum(octet_length(n.data)) OVER (ORDER BY ${order} ROWS UNBOUNDED PRECEDING) AS data_running,
  sum(coalesce(octet_length(${payload}), 0)) OVER (ORDER BY ${order} ROWS UNBOUNDED PRECEDING) AS running`;

/** Parses a stored data text, or null when it was left out. */
const parsedData = (data: string | null): unknown => (data === null ? null : (JSON.parse(data) as unknown));

/** Records an event for the retained message (partition, transactionId); false when there is none. */
export async function traceRecord(
  db: Db,
  params: { id: string; partitionId: string; transactionId: string; group: string; eventType: string; data: string; names: string[]; workerId: string },
): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO queen.traces (id, partition_id, transaction_id, message_id, consumer_group, event_type, data,
                               trace_names, worker_id)
     SELECT $1::uuid, $2::uuid, $3, m.message_id, $4, $5, $6, $7::text[], $8
     FROM queen.message_find($2::uuid, $3) m`,
    [params.id, params.partitionId, params.transactionId, params.group, params.eventType, params.data, params.names, params.workerId],
  );
  return result.rowCount === 1;
}

/** The events of one message, oldest first; their data carried while its running size stays within `maxBytes`. */
export async function traceListForMessage(
  db: Db,
  params: { partitionId: string; transactionId: string; maxBytes: number },
): Promise<TraceEvent[]> {
  type Row = Omit<TraceEvent, 'data'> & { data: string | null };
  // The message first, in a statement of its own: on Citus a statement naming the partition runs whole on its
  // shard, where message_find (which reads the distributed segments) cannot run.
  const found = await db.query<{ messageId: string }>('SELECT m.message_id AS "messageId" FROM queen.message_find($1::uuid, $2) m',
    [params.partitionId, params.transactionId]);
  if (found.rows[0] === undefined) return [];
  const result = await db.query<Row>(
    `SELECT e.id, e.event_type AS "eventType", CASE WHEN e.data_running <= $3 THEN e.data END AS data,
            e."dataBytes", e.data_running > $3 AS "dataOmitted", e.consumer_group AS "consumerGroup",
            e.worker_id AS "workerId", queen.format_millis(e.created_at) AS "createdAt", e.trace_names AS "traceNames"
     FROM (
       SELECT n.*, ${BUDGETED('n.created_at, n.id', 'NULL::text')}
       FROM queen.traces n
       WHERE n.partition_id = $1::uuid AND n.transaction_id = $2 AND n.message_id = $4::uuid
     ) e
     ORDER BY e.created_at, e.id`,
    [params.partitionId, params.transactionId, params.maxBytes, found.rows[0].messageId],
  );
  return result.rows.map((row) => ({ ...row, data: parsedData(row.data) }));
}

/** An event found by name, with its message. */
export interface NamedTraceEvent extends TraceEvent {
  transactionId: string;
  partitionId: string;
  queueName: string;
  partitionName: string;
  /** The message's payload; null when it was left out (`messagePayloadOmitted`). */
  messagePayload: unknown;
  messagePayloadBytes: number;
  messagePayloadOmitted: boolean;
}

/**
 * Events carrying `name`, newest first, one page of them and how many there are. `readPayload` turns a
 * stored payload into its wire value (it opens sealed payloads, docs/api.md 9.6).
 */
export async function traceListByName(
  db: Db,
  params: { name: string; limit: number; offset: number; maxBytes: number; readPayload: (stored: string) => unknown },
): Promise<{ total: number; traces: NamedTraceEvent[] }> {
  type Row = Omit<NamedTraceEvent, 'data' | 'messagePayload'> & { total: number; at: Date; data: string | null; messagePayload: string | null };
  const result = await db.query<Row>(
    `WITH carrying AS MATERIALIZED (
       SELECT t.*, q.name AS queue_name, p.name AS partition_name
       FROM queen.traces t
       JOIN queen.partitions p ON p.id = t.partition_id
       JOIN queen.queues q ON q.id = p.queue_id
       WHERE t.trace_names @> ARRAY[$1::text]
     ), named AS (
       SELECT t.*, m.payload
       FROM carrying t
       CROSS JOIN LATERAL queen.message_find(t.partition_id, t.transaction_id) m
       WHERE m.message_id = t.message_id
     ), page AS (
       SELECT n.*, ${BUDGETED('n.created_at DESC, n.id DESC', 'n.payload')}
       FROM (SELECT * FROM named ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3) n
     )
     SELECT (SELECT count(*) FROM named)::integer AS total, page.*
     FROM (SELECT 1) one
     LEFT JOIN LATERAL (
       SELECT n.id, n.transaction_id AS "transactionId", n.partition_id AS "partitionId", n.event_type AS "eventType",
              CASE WHEN n.data_running <= $4 THEN n.data END AS data, n."dataBytes", n.data_running > $4 AS "dataOmitted",
              n.consumer_group AS "consumerGroup", n.worker_id AS "workerId",
              queen.format_millis(n.created_at) AS "createdAt", n.queue_name AS "queueName", n.partition_name AS "partitionName",
              CASE WHEN n.running <= $4 THEN n.payload END AS "messagePayload",
              octet_length(n.payload) AS "messagePayloadBytes", n.running > $4 AS "messagePayloadOmitted",
              n.trace_names AS "traceNames", n.created_at AS at
       FROM page n
     ) page ON true
     ORDER BY page.at DESC, page.id DESC`,
    [params.name, params.limit, params.offset, params.maxBytes],
  );
  const total = result.rows[0]?.total ?? 0;
  const traces = result.rows
    .filter((row) => row.id !== null)
    .map(({ total: _total, at: _at, data, messagePayload, ...event }) => ({
      ...event,
      data: parsedData(data),
      messagePayload: messagePayload === null ? null : params.readPayload(messagePayload),
    }));
  return { total, traces };
}

/** One trace name: events carrying it, distinct messages, newest event. */
export interface TraceNameSummary {
  traceName: string;
  traceCount: number;
  messageCount: number;
  lastSeen: string;
}

/** The trace names in use, most recently seen first, one page of them and how many there are. */
export async function traceNameList(db: Db, params: { limit: number; offset: number }): Promise<{ total: number; names: TraceNameSummary[] }> {
  const result = await db.query<TraceNameSummary & { total: number }>(
    `WITH named AS MATERIALIZED (
       SELECT t.partition_id, t.transaction_id, t.message_id, t.trace_names, t.created_at
       FROM queen.traces t
       WHERE cardinality(t.trace_names) > 0
     ), live AS (
       SELECT t.partition_id, t.transaction_id, t.trace_names, t.created_at
       FROM named t
       WHERE EXISTS (SELECT 1 FROM queen.message_find(t.partition_id, t.transaction_id) m
                     WHERE m.message_id = t.message_id)
     ), names AS (
       SELECT n.trace_name, count(*)::integer AS trace_count,
              count(DISTINCT (l.partition_id, l.transaction_id))::integer AS message_count, max(l.created_at) AS at
       FROM live l CROSS JOIN LATERAL unnest(l.trace_names) AS n (trace_name)
       GROUP BY n.trace_name
     )
     SELECT (SELECT count(*) FROM names)::integer AS total, page.trace_name AS "traceName",
            page.trace_count AS "traceCount", page.message_count AS "messageCount", queen.format_millis(page.at) AS "lastSeen"
     FROM (SELECT 1) one
     LEFT JOIN LATERAL (SELECT * FROM names ORDER BY at DESC, trace_name LIMIT $1 OFFSET $2) page ON true
     ORDER BY page.at DESC, page.trace_name`,
    [params.limit, params.offset],
  );
  const total = result.rows[0]?.total ?? 0;
  const names = result.rows
    .filter((row) => row.traceName !== null)
    .map(({ traceName, traceCount, messageCount, lastSeen }) => ({ traceName, traceCount, messageCount, lastSeen }));
  return { total, names };
}
