/**
 * Queue rows: configuration (`queen.queue_configure`), deletion (`queen.queue_delete`), the detail view
 * of `GET /api/v1/resources/queues/:queue` and the partition facts behind every message count of API.md 7.2.
 */
import type pg from 'pg';

/** A queue row as stored. */
export interface QueueRow {
  id: string;
  name: string;
  namespace: string;
  task: string;
  lease_time: number;
  retry_limit: number;
  retry_delay: number;
  max_size: number;
  ttl: number;
  priority: number;
  delayed_processing: number;
  window_buffer: number;
  min_pop_wait_time: number;
  retention_seconds: number;
  completed_retention_seconds: number;
  retention_enabled: boolean;
  encryption_enabled: boolean;
  max_wait_time_seconds: number;
  dead_letter_queue: boolean;
  dlq_after_max_retries: boolean;
  created_at: string;
}

/** Creates or fully replaces a queue's configuration; returns the row and the Default partition's id. */
export async function queueConfigure(
  db: pg.Pool,
  params: { name: string; namespace: string; task: string; options: Record<string, number | boolean> },
): Promise<{ queue: QueueRow; defaultPartitionId: string }> {
  const result = await db.query<QueueRow & { default_partition_id: string }>(
    `SELECT (c.queue).*, c.default_partition_id FROM queen.queue_configure($1, $2, $3, $4::jsonb) c`,
    [params.name, params.namespace, params.task, JSON.stringify(params.options)],
  );
  const row = result.rows[0]!;
  return { queue: row, defaultPartitionId: row.default_partition_id };
}

/** What the encryption view of a queue holds: the option now, and whether it was ever on. */
export interface QueueEncryptionFlags {
  enabled: boolean;
  /** The queue has had `encryptionEnabled` at some point, so it may hold sealed payloads. */
  used: boolean;
}

/** The encryption flags of each named queue that exists (the source of core/payload-sealing.ts's view). */
export async function queueEncryptionFlags(db: pg.Pool, params: { names: string[] }): Promise<Map<string, QueueEncryptionFlags>> {
  const result = await db.query<{ name: string; encryption_enabled: boolean; encryption_used: boolean }>({
    name: 'queen.queue_encryption_flags',
    text: 'SELECT q.name, q.encryption_enabled, q.encryption_used FROM queen.queues q WHERE q.name = ANY ($1::text[])',
    values: [params.names],
  });
  return new Map(result.rows.map((row) => [row.name, { enabled: row.encryption_enabled, used: row.encryption_used }]));
}

/** Deletes a queue and everything under it; true when it existed. */
export async function queueDelete(db: pg.Pool, params: { name: string }): Promise<boolean> {
  const result = await db.query<{ existed: boolean }>('SELECT queen.queue_delete($1) AS existed', [params.name]);
  return result.rows[0]?.existed ?? false;
}

/** Per-partition facts from which the detail counts are derived. */
export interface PartitionFacts {
  id: string;
  name: string;
  created_at: string;
  tail: string;
  /** Lowest retained offset, or null when nothing is retained. */
  first_retained: string | null;
  total: string;
  oldest_message: string | null;
  newest_message: string | null;
  dead_letters: string;
  /** Offset ranges [from, to] between the first retained offset and the tail that hold no message (deleted). */
  gaps?: Array<[number, number]>;
  cursors: Array<{ group: string; committed: number; span_end: number | null; live: boolean; retry_count: number }>;
}

/** Partition facts together with the id of the partition's queue. */
export type LocatedPartitionFacts = PartitionFacts & { queue_id: string };

/**
 * Facts of every partition of `queueIds` and of each partition of `partitionIds`, oldest partition first:
 * the one source of the message counts of API.md 7.2.
 */
export async function partitionFactsList(
  db: pg.Pool | pg.PoolClient,
  params: { queueIds: string[]; partitionIds: string[] },
): Promise<LocatedPartitionFacts[]> {
  const result = await db.query<LocatedPartitionFacts>(
    `SELECT p.queue_id, p.id, p.name, queen.format_millis(p.created_at) AS created_at, p.tail,
            seg.first_retained, coalesce(seg.total, 0) AS total,
            queen.format_millis(seg.oldest) AS oldest_message, queen.format_millis(seg.newest) AS newest_message,
            (SELECT count(*) FROM queen.dead_letters d WHERE d.partition_id = p.id) AS dead_letters,
            coalesce((SELECT json_agg(json_build_array(g.from_offset, g.to_offset))
                      FROM (SELECT lag(s.last_offset) OVER (ORDER BY s.last_offset) + 1 AS from_offset,
                                   s.first_offset - 1 AS to_offset
                            FROM queen.segments s WHERE s.partition_id = p.id
                            UNION ALL
                            SELECT max(s.last_offset) + 1, p.tail FROM queen.segments s WHERE s.partition_id = p.id) g
                      WHERE g.from_offset <= g.to_offset), '[]') AS gaps,
            coalesce((SELECT json_agg(json_build_object(
                        'group', c.consumer_group, 'committed', c.committed, 'span_end', c.lease_span_end,
                        'live', coalesce(c.lease_expires_at > now(), false), 'retry_count', c.retry_count))
                      FROM queen.cursors c WHERE c.partition_id = p.id), '[]') AS cursors
     FROM queen.partitions p
     LEFT JOIN LATERAL (
       SELECT min(s.first_offset) AS first_retained, sum(s.last_offset - s.first_offset + 1) AS total,
              min(s.created_at) AS oldest, max(s.created_at) AS newest
       FROM queen.segments s WHERE s.partition_id = p.id
     ) seg ON true
     WHERE p.queue_id = ANY ($1::uuid[]) OR p.id = ANY ($2::uuid[])
     ORDER BY p.created_at, p.id`,
    [params.queueIds, params.partitionIds],
  );
  return result.rows;
}

/** Loads a queue with its partition facts, or null when the queue does not exist. */
export async function queueDescribe(db: pg.Pool, params: { name: string }): Promise<{ queue: QueueRow; partitions: PartitionFacts[] } | null> {
  const queue = await db.query<QueueRow>(
    `SELECT q.*, queen.format_millis(q.created_at) AS created_at FROM queen.queues q WHERE q.name = $1`,
    [params.name],
  );
  const row = queue.rows[0];
  if (row === undefined) return null;
  return { queue: row, partitions: await partitionFactsList(db, { queueIds: [row.id], partitionIds: [] }) };
}
