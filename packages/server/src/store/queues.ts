/**
 * Queue rows: configuration (`queen.queue_configure`), deletion (`queen.queue_delete`), the detail view
 * of `GET …/resources/queues/:queue` and the partition facts behind every message count of docs/api.md 7.2.
 */
import type { Db } from './database.js';

/** A queue row as stored, under camelCase names (`createdAt`: milliseconds ISO-8601). */
export interface QueueRow {
  id: string;
  name: string;
  namespace: string;
  task: string;
  leaseTime: number;
  retryLimit: number;
  retryDelay: number;
  maxSize: number;
  ttl: number;
  priority: number;
  delayedProcessing: number;
  windowBuffer: number;
  minPopWaitTime: number;
  retentionSeconds: number;
  completedRetentionSeconds: number;
  retentionEnabled: boolean;
  encryptionEnabled: boolean;
  maxWaitTimeSeconds: number;
  deadLetterQueue: boolean;
  dlqAfterMaxRetries: boolean;
  createdAt: string;
}

/** The select list of a QueueRow read from `q` (a table alias or a parenthesised composite such as `(c.queue)`). */
const queueColumns = (q: string): string => `${q}.id, ${q}.name, ${q}.namespace, ${q}.task,
  ${q}.lease_time AS "leaseTime", ${q}.retry_limit AS "retryLimit", ${q}.retry_delay AS "retryDelay",
  ${q}.max_size AS "maxSize", ${q}.ttl, ${q}.priority, ${q}.delayed_processing AS "delayedProcessing",
  ${q}.window_buffer AS "windowBuffer", ${q}.min_pop_wait_time AS "minPopWaitTime",
  ${q}.retention_seconds AS "retentionSeconds", ${q}.completed_retention_seconds AS "completedRetentionSeconds",
  ${q}.retention_enabled AS "retentionEnabled", ${q}.encryption_enabled AS "encryptionEnabled",
  ${q}.max_wait_time_seconds AS "maxWaitTimeSeconds", ${q}.dead_letter_queue AS "deadLetterQueue",
  ${q}.dlq_after_max_retries AS "dlqAfterMaxRetries", queen.format_millis(${q}.created_at) AS "createdAt"`;

/** Creates or fully replaces a queue's configuration; returns the row and the Default partition's id. */
export async function queueConfigure(
  db: Db,
  params: { name: string; namespace: string; task: string; options: Record<string, number | boolean> },
): Promise<{ queue: QueueRow; defaultPartitionId: string }> {
  const result = await db.query<QueueRow & { defaultPartitionId: string }>(
    `SELECT ${queueColumns('(c.queue)')}, c.default_partition_id AS "defaultPartitionId"
     FROM queen.queue_configure($1, $2, $3, $4::jsonb) c`,
    [params.name, params.namespace, params.task, JSON.stringify(params.options)],
  );
  const { defaultPartitionId, ...queue } = result.rows[0]!;
  return { queue, defaultPartitionId };
}

/** What the encryption view of a queue holds: the option now, and whether it was ever on. */
export interface QueueEncryptionFlags {
  enabled: boolean;
  /** The queue has had `encryptionEnabled` at some point, so it may hold sealed payloads. */
  used: boolean;
}

/** The encryption flags of each named queue that exists (the source of core/payload-sealing.ts's view). */
export async function queueEncryptionFlags(db: Db, params: { names: string[] }): Promise<Map<string, QueueEncryptionFlags>> {
  const result = await db.query<{ name: string; encryption_enabled: boolean; encryption_used: boolean }>({
    name: 'queen.queue_encryption_flags',
    text: 'SELECT q.name, q.encryption_enabled, q.encryption_used FROM queen.queues q WHERE q.name = ANY ($1::text[])',
    values: [params.names],
  });
  return new Map(result.rows.map((row) => [row.name, { enabled: row.encryption_enabled, used: row.encryption_used }]));
}

/**
 * Deletes a queue and everything under it; true when it existed. The deletion runs without the statement
 * timeout (lock waits still time out): its work grows with the queue, and a queue of 100 000 partitions,
 * which takes seconds alone, ran past DB_STATEMENT_TIMEOUT under load, failed its request and stayed behind.
 * Inside a transaction (`Store.queueDelete` opens one): the timeout is lifted for it alone.
 */
export async function queueDelete(db: Db, params: { name: string }): Promise<boolean> {
  await db.query('SET LOCAL statement_timeout = 0');
  const result = await db.query<{ existed: boolean }>('SELECT queen.queue_delete($1) AS existed', [params.name]);
  return result.rows[0]?.existed ?? false;
}

/** Per-partition facts from which the detail counts are derived (timestamps milliseconds ISO-8601). */
export interface PartitionFacts {
  id: string;
  name: string;
  createdAt: string;
  tail: string;
  /** Lowest retained offset, or null when nothing is retained. */
  firstRetained: string | null;
  total: string;
  oldestMessage: string | null;
  newestMessage: string | null;
  deadLetters: string;
  /** Offset ranges [from, to] between the first retained offset and the tail that hold no message (deleted). */
  gaps?: Array<[number, number]>;
  /**
   * Every group known on the partition's queue (a cursor on any of its partitions, or a subscription record):
   * `contacted` false for a group that has not touched this partition yet, whose `committed` is then where it
   * will start (`queen.cursor_seed`: its subscription's start, or 0).
   */
  cursors: Array<{ group: string; committed: number; spanEnd: number | null; live: boolean; retryCount: number; contacted: boolean }>;
}

/** Partition facts together with the id of the partition's queue. */
export type LocatedPartitionFacts = PartitionFacts & { queueId: string };

/**
 * Facts of every partition of `queueIds` and of each partition of `partitionIds`, oldest partition first:
 * the one source of the message counts of docs/api.md 7.2.
 */
export async function partitionFactsList(
  db: Db,
  params: { queueIds: string[]; partitionIds: string[] },
): Promise<LocatedPartitionFacts[]> {
  const result = await db.query<LocatedPartitionFacts>(
    `WITH parts AS (SELECT p.* FROM queen.partitions p WHERE p.queue_id = ANY ($1::uuid[]) OR p.id = ANY ($2::uuid[])),
     known AS (
       SELECT DISTINCT q.queue_id, c.consumer_group AS grp
       FROM (SELECT DISTINCT queue_id FROM parts) q JOIN queen.partitions p ON p.queue_id = q.queue_id
       JOIN queen.cursors c ON c.partition_id = p.id
       UNION
       SELECT s.queue_id, s.consumer_group FROM queen.subscriptions s WHERE s.queue_id IN (SELECT queue_id FROM parts)
     ),
     -- Per partition, the known groups that have not touched it, at the offset each will start from (one pass,
     -- joined below: a subquery per partition would re-read the groups of its queue for every partition).
     untouched AS (
       SELECT p.id AS partition_id,
              jsonb_agg(jsonb_build_object(
                'group', k.grp, 'committed', queen.cursor_seed(p.queue_id, p.id, p.name, k.grp), 'spanEnd', null,
                'live', false, 'retryCount', 0, 'contacted', false)) AS pairs
       FROM parts p JOIN known k ON k.queue_id = p.queue_id
       WHERE NOT EXISTS (SELECT 1 FROM queen.cursors c WHERE c.partition_id = p.id AND c.consumer_group = k.grp)
       GROUP BY p.id
     )
     SELECT p.queue_id AS "queueId", p.id, p.name, queen.format_millis(p.created_at) AS "createdAt", p.tail,
            seg.first_retained AS "firstRetained", coalesce(seg.total, 0) AS total,
            queen.format_millis(seg.oldest) AS "oldestMessage", queen.format_millis(seg.newest) AS "newestMessage",
            (SELECT count(*) FROM queen.dead_letters d WHERE d.partition_id = p.id) AS "deadLetters",
            coalesce((SELECT json_agg(json_build_array(g.from_offset, g.to_offset))
                      FROM (SELECT lag(s.last_offset) OVER (ORDER BY s.last_offset) + 1 AS from_offset,
                                   s.first_offset - 1 AS to_offset
                            FROM queen.segments s WHERE s.partition_id = p.id
                            UNION ALL
                            SELECT max(s.last_offset) + 1, p.tail FROM queen.segments s WHERE s.partition_id = p.id) g
                      WHERE g.from_offset <= g.to_offset), '[]') AS gaps,
            coalesce((SELECT jsonb_agg(jsonb_build_object(
                        'group', c.consumer_group, 'committed', c.committed, 'spanEnd', c.lease_span_end,
                        'live', coalesce(c.lease_expires_at > now(), false), 'retryCount', c.retry_count, 'contacted', true))
                      FROM queen.cursors c WHERE c.partition_id = p.id), '[]'::jsonb)
              || coalesce(u.pairs, '[]'::jsonb) AS cursors
     FROM parts p
     LEFT JOIN untouched u ON u.partition_id = p.id
     LEFT JOIN LATERAL (
       SELECT min(s.first_offset) AS first_retained, sum(s.last_offset - s.first_offset + 1) AS total,
              min(s.created_at) AS oldest, max(s.created_at) AS newest
       FROM queen.segments s WHERE s.partition_id = p.id
     ) seg ON true
     ORDER BY p.created_at, p.id`,
    [params.queueIds, params.partitionIds],
  );
  return result.rows;
}

/** Loads a queue with its partition facts, or null when the queue does not exist. */
export async function queueDescribe(
  db: Db,
  params: { name: string },
  /** The facts' source: `partitionFactsList`, or its Citus form (citus-admin.ts). */
  facts: typeof partitionFactsList = partitionFactsList,
): Promise<{ queue: QueueRow; partitions: PartitionFacts[] } | null> {
  const queue = await db.query<QueueRow>(
    `SELECT ${queueColumns('q')} FROM queen.queues q WHERE q.name = $1`,
    [params.name],
  );
  const row = queue.rows[0];
  if (row === undefined) return null;
  return { queue: row, partitions: await facts(db, { queueIds: [row.id], partitionIds: [] }) };
}
