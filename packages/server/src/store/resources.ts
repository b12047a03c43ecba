/**
 * The listings of docs/api.md 7.2: queues, partitions and the ingest/consumption sample of the overview. Message
 * counts come from `partitionFactsList` (store/queues.ts) and are derived in core/queue-stats.ts.
 */
import type { Db } from './database.js';

/** A queue as the listings show it. */
export interface QueueListing {
  id: string;
  name: string;
  namespace: string;
  task: string;
  createdAt: string;
  partitions: number;
}

/** Queues, newest first, optionally of one namespace and/or task; `limit` null: all of them. */
export async function queueList(
  db: Db,
  params: { namespace: string | null; task: string | null; limit: number | null; offset: number },
): Promise<QueueListing[]> {
  const result = await db.query<QueueListing>(
    `SELECT q.id, q.name, q.namespace, q.task, queen.format_millis(q.created_at) AS "createdAt",
            (SELECT count(*) FROM queen.partitions p WHERE p.queue_id = q.id)::integer AS partitions
     FROM queen.queues q
     WHERE ($1::text IS NULL OR q.namespace = $1) AND ($2::text IS NULL OR q.task = $2)
     ORDER BY q.created_at DESC, q.id DESC
     LIMIT $3 OFFSET $4`,
    [params.namespace, params.task, params.limit, params.offset],
  );
  return result.rows;
}

/** A partition as the listing shows it. */
export interface PartitionListing {
  id: string;
  name: string;
  queue: string;
  namespace: string;
  task: string;
  createdAt: string;
  /** The newest of its last push and its groups' last activity, or null. */
  lastActivity: string | null;
  /** Groups (queue mode included) that contacted it. */
  consumerGroups: number;
}

/**
 * Partitions by queue name then partition name, optionally of one queue, namespace and/or task: one page
 * and how many match, in one statement (the page is joined laterally to one row, so the total comes back
 * even when the page is empty).
 */
export async function partitionList(
  db: Db,
  params: { queue: string | null; namespace: string | null; task: string | null; limit: number; offset: number },
): Promise<{ total: number; partitions: PartitionListing[] }> {
  // The one row of an empty page has null listing columns.
  const result = await db.query<Omit<PartitionListing, 'id'> & { id: string | null; total: number }>(
    `WITH matching AS (
       SELECT p.id, p.name, q.name AS queue_name, q.namespace, q.task, p.created_at, p.last_push_at
       FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
       WHERE ($1::text IS NULL OR q.name = $1) AND ($2::text IS NULL OR q.namespace = $2)
         AND ($3::text IS NULL OR q.task = $3)
     )
     SELECT (SELECT count(*) FROM matching)::integer AS total, page.id, page.name, page.queue_name AS queue, page.namespace,
            page.task, queen.format_millis(page.created_at) AS "createdAt",
            queen.format_millis(greatest(page.last_push_at, groups.last_activity)) AS "lastActivity",
            coalesce(groups.n, 0) AS "consumerGroups"
     FROM (SELECT 1) one
     LEFT JOIN LATERAL (SELECT * FROM matching ORDER BY queue_name, name LIMIT $4 OFFSET $5) page ON true
     LEFT JOIN LATERAL (
       SELECT count(*)::integer AS n, max(c.last_activity_at) AS last_activity
       FROM queen.cursors c WHERE c.partition_id = page.id
     ) groups ON true
     ORDER BY page.queue_name, page.name`,
    [params.queue, params.namespace, params.task, params.limit, params.offset],
  );
  const total = result.rows[0]?.total ?? 0;
  const partitions = result.rows.flatMap(({ total: _total, id, ...listing }) => (id === null ? [] : [{ id, ...listing }]));
  return { total, partitions };
}

/** What the last minute looked like, on the database clock. */
export interface ActivitySample {
  /** The database's now, in milliseconds with a Z. */
  timestamp: string;
  windowSeconds: number;
  /** Messages written by segments created within the window. */
  ingested: number;
  /**
   * Per contacted (partition, group): the messages ingested within the window that the group has already
   * settled. Exact while consumers keep up; a lower bound while a group drains an older backlog (the broker
   * keeps no history of cursor movements).
   */
  processed: number;
}

const WINDOW_SECONDS = 60;

/** Messages ingested and settled within the last minute. */
export async function activitySample(db: Db): Promise<ActivitySample> {
  const result = await db.query<{ timestamp: string; ingested: number; processed: number }>(
    `WITH recent AS (
       SELECT s.partition_id, s.first_offset, s.last_offset
       FROM queen.partitions p
       JOIN queen.segments s ON s.partition_id = p.id AND s.created_at > now() - make_interval(secs => $1)
       WHERE p.last_push_at > now() - make_interval(secs => $1)
     )
     SELECT queen.format_millis(now()) AS timestamp,
            coalesce((SELECT sum(r.last_offset - r.first_offset + 1) FROM recent r), 0)::float8 AS ingested,
            coalesce((SELECT sum(greatest(0, least(r.last_offset, c.committed) - r.first_offset + 1))
                      FROM recent r JOIN queen.cursors c ON c.partition_id = r.partition_id), 0)::float8 AS processed`,
    [WINDOW_SECONDS],
  );
  const row = result.rows[0]!;
  return { timestamp: row.timestamp, windowSeconds: WINDOW_SECONDS, ingested: row.ingested, processed: row.processed };
}

/** A stored name the name rule refuses (`queen.name_problem`), kept from before the rule. */
export interface RefusedName {
  kind: 'queue' | 'namespace' | 'task' | 'partition' | 'consumer group' | 'stream query';
  name: string;
  /** The queue it belongs to (a partition's, a group's, a namespace's or task's); null for a queue or a stream query. */
  queue: string | null;
  /** The partition's id, for a partition; otherwise null. */
  id: string | null;
}

/**
 * Up to `limit` stored names the name rule refuses (docs/api.md 1.10): created before the rule, or written
 * into the tables by hand. Reads every queue, partition, cursor and subscription row once (start-up only).
 */
export async function refusedNameList(db: Db, params: { limit: number }): Promise<RefusedName[]> {
  const result = await db.query<RefusedName>(
    `SELECT 'queue' AS kind, q.name, NULL::text AS queue, NULL::text AS id
     FROM queen.queues q WHERE queen.name_problem(q.name) IS NOT NULL
     UNION ALL
     SELECT 'namespace', q.namespace, q.name, NULL FROM queen.queues q
     WHERE q.namespace <> '' AND queen.name_problem(q.namespace) IS NOT NULL
     UNION ALL
     SELECT 'task', q.task, q.name, NULL FROM queen.queues q WHERE q.task <> '' AND queen.name_problem(q.task) IS NOT NULL
     UNION ALL
     SELECT 'partition', p.name, q.name, p.id::text
     FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE queen.name_problem(p.name) IS NOT NULL
     UNION ALL
     SELECT 'consumer group', g.consumer_group, q.name, NULL
     FROM (SELECT p.queue_id, c.consumer_group FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
           WHERE queen.name_problem(c.consumer_group) IS NOT NULL
           UNION
           SELECT s.queue_id, s.consumer_group FROM queen.subscriptions s WHERE queen.name_problem(s.consumer_group) IS NOT NULL) g
     JOIN queen.queues q ON q.id = g.queue_id
     UNION ALL
     SELECT 'stream query', s.name, NULL, NULL FROM queen_streams.queries s WHERE queen.name_problem(s.name) IS NOT NULL
     LIMIT $1`,
    [params.limit],
  );
  return result.rows;
}
