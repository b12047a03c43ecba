/**
 * Reading messages for the admin views (docs/api.md 7.4): the listing, the detail, and the consumer-group facts
 * their status is derived from (`queen.cursor_facts`, `queen.queue_consumer_mode`, `queen.message_find` of
 * sql/functions/). Offsets are bigints in PostgreSQL and plain numbers
 * here (they stay far below 2^53).
 */
import type { Db } from './database.js';

/** One contacted (partition, group), as the message views need it. */
export interface CursorFacts {
  group: string;
  committed: number;
  /** First retained offset above `committed`, or null when the group has consumed everything retained. */
  head: number | null;
  /** Span end of the live lease, or null when no lease is live. */
  liveSpanEnd: number | null;
  /** Expiry of the live lease (milliseconds, Z), or null. */
  leaseExpiresAt: string | null;
  /** Span end of the last claim, kept after expiry until the next claim; null once released. */
  recordedSpanEnd: number | null;
  retryCount: number;
  claimsSinceAdvance: number;
}

/** One DLQ entry of a message. */
export interface DeadLetterFacts {
  group: string;
  errorMessage: string | null;
  retryCount: number;
  failedAt: string;
}

/** Filters of the message listing; null means "no filter". */
export interface MessageFilter {
  queue: string | null;
  partition: string | null;
  namespace: string | null;
  task: string | null;
  /** ISO-8601 bounds on the segment time; defaults: the last hour. */
  from: string | null;
  to: string | null;
}

/** One listed message (no payload). */
export interface ListedMessage {
  id: string;
  transactionId: string;
  partitionId: string;
  partition: string;
  queue: string;
  namespace: string;
  task: string;
  priority: number;
  traceId: string | null;
  producerSub: string | null;
  /** The W3C trace context in its stored form (core/trace-context.ts), or null. */
  traceContext: string | null;
  createdAt: string;
  offset: number;
  /** Groups with a DLQ entry for this message. */
  deadLetterGroups: string[];
  /** The segment time as PostgreSQL renders it (microseconds, UTC): the listing's keyset position. */
  at: string;
  /**
   * With a preview asked for: the stored text's first `previewChars` characters (a sealed payload whole, so
   * that it can be opened), else null.
   */
  payloadHead: string | null;
  /** With a preview asked for: the stored text's size in bytes, else null. */
  payloadBytes: number | null;
}

/** Everything the message detail shows. */
export interface MessageFacts extends Omit<ListedMessage, 'deadLetterGroups' | 'priority' | 'at'> {
  /** The stored JSON text. */
  payload: string;
  queueConfig: { leaseTime: number; retryLimit: number; retryDelay: number; ttl: number; priority: number };
  cursors: CursorFacts[];
  /** Oldest first. */
  deadLetters: DeadLetterFacts[];
  hasQueueMode: boolean;
  busGroupsCount: number;
}


const LIST_SQL = `SELECT m.id::text AS id, m.txn AS "transactionId", p.id::text AS "partitionId", p.name AS partition,
    q.name AS queue, q.namespace, q.task, q.priority, m.trace::text AS "traceId", m.sub AS "producerSub",
    m.context AS "traceContext", queen.format_millis(s.created_at) AS "createdAt", (s.first_offset + m.n - 1)::float8 AS "offset",
    s.created_at::text AS at,
    ARRAY(SELECT DISTINCT d.consumer_group FROM queen.dead_letters d
          WHERE d.partition_id = p.id AND d.message_offset = s.first_offset + m.n - 1) AS "deadLetterGroups",
    CASE WHEN $12 > 0 THEN CASE WHEN starts_with(s.payloads[m.n], $13) THEN s.payloads[m.n] ELSE left(s.payloads[m.n], $12) END END
      AS "payloadHead",
    CASE WHEN $12 > 0 THEN octet_length(s.payloads[m.n]) END AS "payloadBytes"
  FROM queen.queues q
  JOIN queen.partitions p ON p.queue_id = q.id
  JOIN queen.segments s ON s.partition_id = p.id
  CROSS JOIN LATERAL unnest(s.message_ids, s.transaction_ids, s.trace_ids, s.producer_subs, s.trace_contexts)
    WITH ORDINALITY AS m (id, txn, trace, sub, context, n)
  WHERE ($1::text IS NULL OR q.name = $1) AND ($2::text IS NULL OR p.name = $2)
    AND ($3::text IS NULL OR q.namespace = $3) AND ($4::text IS NULL OR q.task = $4)
    AND s.created_at >= coalesce($5::timestamptz, now() - interval '1 hour')
    AND s.created_at <= coalesce($6::timestamptz, now())
    AND ($9::timestamptz IS NULL OR (s.created_at <= $9
         AND (s.created_at, p.id, s.first_offset + m.n - 1) < ($9::timestamptz, $10::uuid, $11::bigint)))
  ORDER BY s.created_at DESC, p.id DESC, s.first_offset + m.n - 1 DESC
  LIMIT $7 OFFSET $8`;

/** Where a page starts: after this message of the order (segment time as rendered by PostgreSQL, partition, offset). */
export interface MessagePosition {
  at: string;
  partitionId: string;
  offset: number;
}

/**
 * A page of messages matching the filter, newest first (segment time, then partition, then offset): the
 * first `limit` after skipping `offset`, or, given `after`, the first `limit` past that position (keyset).
 * `preview` (optional): the characters of each payload to return and the prefix of sealed payloads, which
 * come back whole.
 */
export async function messageList(
  db: Db,
  params: { filter: MessageFilter; limit: number; offset: number; after?: MessagePosition | null; preview?: { chars: number; sealedPrefix: string } },
): Promise<ListedMessage[]> {
  const { filter, after } = params;
  const result = await db.query<ListedMessage>(LIST_SQL, [filter.queue, filter.partition, filter.namespace, filter.task,
    filter.from, filter.to, params.limit, params.offset, after?.at ?? null, after?.partitionId ?? null, after?.offset ?? null,
    params.preview?.chars ?? 0, params.preview?.sealedPrefix ?? '']);
  return result.rows;
}

const CURSOR_FACTS_SQL = `SELECT partition_id::text AS partition_id, consumer_group AS "group", committed::float8 AS committed,
    head::float8 AS head, live_span_end::float8 AS "liveSpanEnd", lease_expires_at AS "leaseExpiresAt",
    recorded_span_end::float8 AS "recordedSpanEnd", retry_count AS "retryCount",
    claims_since_advance AS "claimsSinceAdvance"
  FROM queen.cursor_facts($1::uuid[])`;

/** The contacted groups of each partition, by partition id (partitions nobody contacted are absent). */
export async function cursorFactsFind(db: Db, params: { partitionIds: string[] }): Promise<Map<string, CursorFacts[]>> {
  const result = await db.query<CursorFacts & { partition_id: string }>(CURSOR_FACTS_SQL, [params.partitionIds]);
  const byPartition = new Map<string, CursorFacts[]>();
  for (const { partition_id: partitionId, ...facts } of result.rows) {
    const list = byPartition.get(partitionId) ?? [];
    list.push(facts);
    byPartition.set(partitionId, list);
  }
  return byPartition;
}

/** Whether queue mode contacted any partition of the queue, and how many named groups did. */
export async function queueConsumerMode(db: Db, params: { queue: string }): Promise<{ hasQueueMode: boolean; busGroupsCount: number }> {
  const result = await db.query<{ has_queue_mode: boolean; bus_groups_count: number }>(
    'SELECT has_queue_mode, bus_groups_count FROM queen.queue_consumer_mode($1)',
    [params.queue],
  );
  const row = result.rows[0];
  return { hasQueueMode: row?.has_queue_mode ?? false, busGroupsCount: row?.bus_groups_count ?? 0 };
}

const DETAIL_SQL = `SELECT m.message_id::text AS id, $2::text AS "transactionId", p.id::text AS "partitionId",
    p.name AS partition, q.name AS queue, q.namespace, q.task, m.message_offset::float8 AS "offset",
    m.trace_id::text AS "traceId", m.producer_sub AS "producerSub", m.trace_context AS "traceContext",
    queen.format_millis(m.created_at) AS "createdAt",
    m.payload,
    json_build_object('leaseTime', q.lease_time, 'retryLimit', q.retry_limit, 'retryDelay', q.retry_delay,
                      'ttl', q.ttl, 'priority', q.priority) AS "queueConfig",
    coalesce((SELECT json_agg(json_build_object('group', d.consumer_group, 'errorMessage', d.error_message,
                                                'retryCount', d.retry_count, 'failedAt', queen.format_millis(d.failed_at))
                              ORDER BY d.failed_at, d.id)
              FROM queen.dead_letters d
              WHERE d.partition_id = p.id AND d.message_offset = m.message_offset), '[]') AS "deadLetters"
  FROM queen.message_find($1::uuid, $2::text) m
  JOIN queen.partitions p ON p.id = $1::uuid
  JOIN queen.queues q ON q.id = p.queue_id`;

/**
 * The message with this transactionId in this partition, with its groups and DLQ entries; null when missing.
 * Three reads that must agree: run it inside a snapshot (`Store.messageDescribe` does).
 */
export async function messageDescribe(db: Db, params: { partitionId: string; transactionId: string }): Promise<MessageFacts | null> {
  const found = await db.query<Omit<MessageFacts, 'cursors' | 'hasQueueMode' | 'busGroupsCount'>>(DETAIL_SQL, [params.partitionId, params.transactionId]);
  const message = found.rows[0];
  if (message === undefined) return null;
  const cursors = await cursorFactsFind(db, { partitionIds: [message.partitionId] });
  const mode = await queueConsumerMode(db, { queue: message.queue });
  return { ...message, cursors: cursors.get(message.partitionId) ?? [], ...mode };
}
