/**
 * The administrative reads of a Citus deployment (docs/scale-out.md sections 4 and 10): the statements of
 * status.ts, resources.ts, queues.ts, consumer-groups.ts and stats.ts that Citus cannot plan as written, in a form it can.
 * The store calls these instead when the database is a Citus coordinator (`Store.routeOnCitus`); the answers are
 * the same rows.
 *
 * The one rule: every read of a distributed table (partitions, cursors, segments, dead_letters) is a MATERIALIZED
 * CTE that filters and aggregates by partition id, which Citus pushes down to each shard and collects on the
 * coordinator; the statement around them reads only those results and reference tables (queues, subscriptions),
 * so it runs on the coordinator as plain PostgreSQL, correlated subqueries, lateral joins and calls of functions
 * that read distributed tables (`cursor_seed`) included. The single-PostgreSQL forms are kept as they are: there
 * the correlated subqueries are index probes per row and the CTEs would only add materialization.
 */
import type { GroupCursorFacts } from './consumer-groups.js';
import type { Db } from './database.js';
import type { LocatedPartitionFacts } from './queues.js';
import type { PartitionListing, QueueListing } from './resources.js';
import type { QueueFilter, QueueSummaryRow } from './status.js';

/** `resources.queueList` on Citus: the partition counts aggregated per queue first. */
export async function queueList(
  db: Db,
  params: { namespace: string | null; task: string | null; limit: number | null; offset: number },
): Promise<QueueListing[]> {
  const result = await db.query<QueueListing>(
    `WITH counts AS MATERIALIZED (SELECT p.queue_id, count(*)::integer AS n FROM queen.partitions p GROUP BY p.queue_id)
     SELECT q.id, q.name, q.namespace, q.task, queen.format_millis(q.created_at) AS "createdAt", coalesce(c.n, 0) AS partitions
     FROM queen.queues q LEFT JOIN counts c ON c.queue_id = q.id
     WHERE ($1::text IS NULL OR q.namespace = $1) AND ($2::text IS NULL OR q.task = $2)
     ORDER BY q.created_at DESC, q.id DESC
     LIMIT $3 OFFSET $4`,
    [params.namespace, params.task, params.limit, params.offset],
  );
  return result.rows;
}

/** `status.queueSummaryList` on Citus: partition counts and consumed totals aggregated per queue first. */
export async function queueSummaryList(
  db: Db,
  params: { filter: QueueFilter; limit: number | null; offset: number },
): Promise<QueueSummaryRow[]> {
  const { filter } = params;
  const result = await db.query<QueueSummaryRow>(
    `WITH counts AS MATERIALIZED (SELECT p.queue_id, count(*)::integer AS n FROM queen.partitions p GROUP BY p.queue_id),
     consumed AS MATERIALIZED (
       SELECT p.queue_id, sum(c.total_consumed) AS n FROM queen.partitions p JOIN queen.cursors c ON c.partition_id = p.id
       GROUP BY p.queue_id)
     SELECT q.id, q.name, q.namespace, q.task, queen.format_millis(q.created_at) AS "createdAt",
            coalesce(n.n, 0) AS partitions, coalesce(c.n, 0)::float8 AS "totalConsumed"
     FROM queen.queues q LEFT JOIN counts n ON n.queue_id = q.id LEFT JOIN consumed c ON c.queue_id = q.id
     WHERE ($1::text IS NULL OR q.name = $1) AND ($2::text IS NULL OR q.namespace = $2) AND ($3::text IS NULL OR q.task = $3)
     ORDER BY q.created_at DESC, q.id DESC
     LIMIT $4 OFFSET $5`,
    [filter.queue, filter.namespace, filter.task, params.limit, params.offset],
  );
  return result.rows;
}

/** `resources.partitionList` on Citus: the page first, then its partitions' group counts. */
export async function partitionList(
  db: Db,
  params: { queue: string | null; namespace: string | null; task: string | null; limit: number; offset: number },
): Promise<{ total: number; partitions: PartitionListing[] }> {
  const result = await db.query<Omit<PartitionListing, 'id'> & { id: string | null; total: number }>(
    `WITH matching AS MATERIALIZED (
       SELECT p.id, p.name, q.name AS queue_name, q.namespace, q.task, p.created_at, p.last_push_at
       FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
       WHERE ($1::text IS NULL OR q.name = $1) AND ($2::text IS NULL OR q.namespace = $2)
         AND ($3::text IS NULL OR q.task = $3)
     ), page AS MATERIALIZED (SELECT * FROM matching ORDER BY queue_name, name LIMIT $4 OFFSET $5),
     groups AS MATERIALIZED (
       SELECT c.partition_id, count(*)::integer AS n, max(c.last_activity_at) AS last_activity
       FROM queen.cursors c WHERE c.partition_id IN (SELECT id FROM page) GROUP BY c.partition_id)
     SELECT (SELECT count(*) FROM matching)::integer AS total, page.id, page.name, page.queue_name AS queue, page.namespace,
            page.task, queen.format_millis(page.created_at) AS "createdAt",
            queen.format_millis(greatest(page.last_push_at, groups.last_activity)) AS "lastActivity",
            coalesce(groups.n, 0) AS "consumerGroups"
     FROM (SELECT 1) one
     LEFT JOIN (page LEFT JOIN groups ON groups.partition_id = page.id) ON true
     ORDER BY page.queue_name, page.name`,
    [params.queue, params.namespace, params.task, params.limit, params.offset],
  );
  const total = result.rows[0]?.total ?? 0;
  const partitions = result.rows.flatMap(({ total: _total, id, ...listing }) => (id === null ? [] : [{ id, ...listing }]));
  return { total, partitions };
}

/** `queues.partitionFactsList` on Citus: each table's facts per partition first, assembled on the coordinator. */
export async function partitionFactsList(
  db: Db,
  params: { queueIds: string[]; partitionIds: string[] },
): Promise<LocatedPartitionFacts[]> {
  const result = await db.query<LocatedPartitionFacts>(
    `WITH parts AS MATERIALIZED (
       SELECT p.id, p.queue_id, p.name, p.created_at, p.tail FROM queen.partitions p
       WHERE p.queue_id = ANY ($1::uuid[]) OR p.id = ANY ($2::uuid[])),
     cur AS MATERIALIZED (
       SELECT c.partition_id, c.consumer_group, c.committed, c.lease_span_end, c.lease_expires_at, c.retry_count
       FROM queen.cursors c WHERE c.partition_id IN (SELECT id FROM parts)),
     queue_groups AS MATERIALIZED (
       SELECT DISTINCT p.queue_id, c.consumer_group AS grp
       FROM queen.partitions p JOIN queen.cursors c ON c.partition_id = p.id
       WHERE p.queue_id IN (SELECT queue_id FROM parts)),
     seg AS MATERIALIZED (
       SELECT s.partition_id, min(s.first_offset) AS first_retained, sum(s.last_offset - s.first_offset + 1) AS total,
              min(s.created_at) AS oldest, max(s.created_at) AS newest, max(s.last_offset) AS last
       FROM queen.segments s WHERE s.partition_id IN (SELECT id FROM parts) GROUP BY s.partition_id),
     holes AS MATERIALIZED (
       SELECT h.partition_id, h.from_offset, h.to_offset FROM (
         SELECT s.partition_id, lag(s.last_offset) OVER (PARTITION BY s.partition_id ORDER BY s.last_offset) + 1 AS from_offset,
                s.first_offset - 1 AS to_offset
         FROM queen.segments s WHERE s.partition_id IN (SELECT id FROM parts)) h
       WHERE h.from_offset <= h.to_offset),
     dead AS MATERIALIZED (
       SELECT d.partition_id, count(*) AS n FROM queen.dead_letters d WHERE d.partition_id IN (SELECT id FROM parts)
       GROUP BY d.partition_id),
     known AS (
       SELECT queue_id, grp FROM queue_groups
       UNION
       SELECT s.queue_id, s.consumer_group FROM queen.subscriptions s WHERE s.queue_id IN (SELECT queue_id FROM parts)),
     untouched AS (
       SELECT p.id AS partition_id,
              jsonb_agg(jsonb_build_object(
                'group', k.grp, 'committed', queen.cursor_seed(p.queue_id, p.id, p.name, k.grp), 'spanEnd', null,
                'live', false, 'retryCount', 0, 'contacted', false)) AS pairs
       FROM parts p JOIN known k ON k.queue_id = p.queue_id
       WHERE NOT EXISTS (SELECT 1 FROM cur c WHERE c.partition_id = p.id AND c.consumer_group = k.grp)
       GROUP BY p.id)
     SELECT p.queue_id AS "queueId", p.id, p.name, queen.format_millis(p.created_at) AS "createdAt", p.tail,
            seg.first_retained AS "firstRetained", coalesce(seg.total, 0) AS total,
            queen.format_millis(seg.oldest) AS "oldestMessage", queen.format_millis(seg.newest) AS "newestMessage",
            coalesce(dead.n, 0) AS "deadLetters",
            coalesce((SELECT json_agg(json_build_array(g.from_offset, g.to_offset) ORDER BY g.from_offset)
                      FROM (SELECT h.from_offset, h.to_offset FROM holes h WHERE h.partition_id = p.id
                            UNION ALL
                            SELECT seg.last + 1, p.tail WHERE seg.last + 1 <= p.tail) g), '[]') AS gaps,
            coalesce((SELECT jsonb_agg(jsonb_build_object(
                        'group', c.consumer_group, 'committed', c.committed, 'spanEnd', c.lease_span_end,
                        'live', coalesce(c.lease_expires_at > now(), false), 'retryCount', c.retry_count, 'contacted', true)
                        ORDER BY c.consumer_group)
                      FROM cur c WHERE c.partition_id = p.id), '[]'::jsonb)
              || coalesce(u.pairs, '[]'::jsonb) AS cursors
     FROM parts p
     LEFT JOIN untouched u ON u.partition_id = p.id
     LEFT JOIN seg ON seg.partition_id = p.id
     LEFT JOIN dead ON dead.partition_id = p.id
     ORDER BY p.created_at, p.id`,
    [params.queueIds, params.partitionIds],
  );
  return result.rows;
}

/** `consumerGroups.groupCursorList` on Citus: cursors and partitions of the scope first, lag per pair by a join. */
export async function groupCursorList(db: Db, params: { group: string | null; queue?: string | null }): Promise<GroupCursorFacts[]> {
  const result = await db.query<GroupCursorFacts>(
    `WITH scope AS MATERIALIZED (SELECT q.id, q.name FROM queen.queues q WHERE $2::text IS NULL OR q.name = $2),
     parts AS MATERIALIZED (SELECT p.id, p.queue_id, p.name FROM queen.partitions p WHERE p.queue_id IN (SELECT id FROM scope)),
     cur AS MATERIALIZED (
       SELECT c.partition_id, c.consumer_group, c.committed, c.lease_expires_at, c.lease_id, c.total_consumed,
              c.last_consumed_at, c.last_activity_at
       FROM queen.cursors c WHERE ($1::text IS NULL OR c.consumer_group = $1) AND c.partition_id IN (SELECT id FROM parts)),
     known AS (
       SELECT DISTINCT p.queue_id, c.consumer_group AS grp FROM cur c JOIN parts p ON p.id = c.partition_id
       UNION
       SELECT s.queue_id, s.consumer_group FROM queen.subscriptions s
       WHERE ($1::text IS NULL OR s.consumer_group = $1) AND s.queue_id IN (SELECT id FROM scope)),
     pairs AS MATERIALIZED (
       SELECT c.partition_id, c.consumer_group AS grp, c.committed, true AS contacted,
              CASE WHEN c.lease_expires_at > now() THEN c.lease_id END AS live_lease_id,
              c.total_consumed, c.last_consumed_at, c.last_activity_at
       FROM cur c
       UNION ALL
       SELECT p.id, k.grp, queen.cursor_seed(p.queue_id, p.id, p.name, k.grp), false, NULL, 0, NULL, NULL
       FROM known k JOIN parts p ON p.queue_id = k.queue_id
       WHERE NOT EXISTS (SELECT 1 FROM cur c WHERE c.partition_id = p.id AND c.consumer_group = k.grp)),
     above AS MATERIALIZED (
       SELECT c.partition_id, c.grp, sum(s.last_offset - greatest(s.first_offset, c.committed + 1) + 1) AS offset_lag,
              min(s.created_at) AS head_created_at
       FROM pairs c JOIN queen.segments s ON s.partition_id = c.partition_id AND s.last_offset > c.committed
       GROUP BY c.partition_id, c.grp)
     SELECT c.grp AS "group", q.name AS queue, p.id AS "partitionId", p.name AS "partitionName", c.contacted,
            coalesce(a.offset_lag, 0) AS "offsetLag", queen.format_millis(a.head_created_at) AS "headCreatedAt",
            floor(extract(epoch FROM now() - a.head_created_at))::integer AS "headAgeSeconds",
            c.live_lease_id AS "liveLeaseId",
            c.total_consumed AS "totalConsumed", queen.format_millis(c.last_consumed_at) AS "lastConsumedAt",
            floor(extract(epoch FROM now() - c.last_activity_at))::integer AS "idleSeconds"
     FROM pairs c
     JOIN parts p ON p.id = c.partition_id
     JOIN scope q ON q.id = p.queue_id
     LEFT JOIN above a ON a.partition_id = c.partition_id AND a.grp = c.grp
     ORDER BY q.name, p.name, c.grp`,
    [params.group, params.queue ?? null],
  );
  return result.rows;
}
