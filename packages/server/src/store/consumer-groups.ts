/**
 * Consumer-group administration (docs/api.md 7.7): what every (partition, group) cursor looks like, the
 * subscription records, and the state changes of sql/functions/ (`queen.consumer_group_delete`,
 * `queen.subscription_retime`, `queen.cursor_seek`), which hold the locking and wake-up rules.
 *
 * Ages are computed on the database clock (the same clock that stamped the segments), in whole seconds.
 */
import type { Db } from './database.js';

/**
 * One (partition, group) pair of a group known on the partition's queue (a cursor on any of its partitions,
 * or a subscription record), with what its lag is computed from. A pair the group has not touched yet
 * (`contacted` false) is measured from the offset the group will start from (`queen.cursor_seed`).
 */
export interface GroupCursorFacts {
  group: string;
  queue: string;
  partitionId: string;
  partitionName: string;
  /** False while the group has not touched the partition. */
  contacted: boolean;
  /** Retained messages above the cursor (exact: gaps left by deleted messages are not counted). */
  offsetLag: string;
  /** createdAt of the head (the first retained message above the cursor), or null when caught up. */
  headCreatedAt: string | null;
  /** Whole seconds since headCreatedAt; null when caught up. */
  headAgeSeconds: number | null;
  /** The lease id while a lease is live, else null. */
  liveLeaseId: string | null;
  totalConsumed: string;
  lastConsumedAt: string | null;
  /** Whole seconds since the pair's last recorded activity (claim, ack, first contact); null when untouched. */
  idleSeconds: number | null;
}

/** Every pair of every known group, or only those of one group or one queue; ordered by queue, partition, group. */
export async function groupCursorList(db: Db, params: { group: string | null; queue?: string | null }): Promise<GroupCursorFacts[]> {
  const result = await db.query<GroupCursorFacts>(
    `WITH scope AS (SELECT q.id, q.name FROM queen.queues q WHERE $2::text IS NULL OR q.name = $2),
     known AS (
       SELECT DISTINCT p.queue_id, c.consumer_group AS grp
       FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
       WHERE ($1::text IS NULL OR c.consumer_group = $1) AND p.queue_id IN (SELECT id FROM scope)
       UNION
       SELECT s.queue_id, s.consumer_group FROM queen.subscriptions s
       WHERE ($1::text IS NULL OR s.consumer_group = $1) AND s.queue_id IN (SELECT id FROM scope)
     ),
     pairs AS (
       SELECT c.partition_id, c.consumer_group AS grp, c.committed, true AS contacted,
              CASE WHEN c.lease_expires_at > now() THEN c.lease_id END AS live_lease_id,
              c.total_consumed, c.last_consumed_at, c.last_activity_at
       FROM queen.cursors c
       WHERE $1::text IS NULL OR c.consumer_group = $1
       UNION ALL
       SELECT p.id, k.grp, queen.cursor_seed(p.queue_id, p.id, p.name, k.grp), false, NULL, 0, NULL, NULL
       FROM known k JOIN queen.partitions p ON p.queue_id = k.queue_id
       WHERE NOT EXISTS (SELECT 1 FROM queen.cursors c WHERE c.partition_id = p.id AND c.consumer_group = k.grp)
     )
     SELECT c.grp AS "group", q.name AS queue, p.id AS "partitionId", p.name AS "partitionName", c.contacted,
            above.offset_lag AS "offsetLag", queen.format_millis(above.head_created_at) AS "headCreatedAt",
            floor(extract(epoch FROM now() - above.head_created_at))::integer AS "headAgeSeconds",
            c.live_lease_id AS "liveLeaseId",
            c.total_consumed AS "totalConsumed", queen.format_millis(c.last_consumed_at) AS "lastConsumedAt",
            floor(extract(epoch FROM now() - c.last_activity_at))::integer AS "idleSeconds"
     FROM pairs c
     JOIN queen.partitions p ON p.id = c.partition_id
     JOIN scope q ON q.id = p.queue_id
     CROSS JOIN LATERAL (
       SELECT coalesce(sum(s.last_offset - greatest(s.first_offset, c.committed + 1) + 1), 0) AS offset_lag,
              min(s.created_at) AS head_created_at
       FROM queen.segments s WHERE s.partition_id = p.id AND s.last_offset > c.committed
     ) above
     ORDER BY q.name, p.name, c.grp`,
    [params.group, params.queue ?? null],
  );
  return result.rows;
}

/** One durable subscription record (docs/api.md 5.7). `partitionName` '' is the queue-wide scope. */
export interface GroupSubscription {
  group: string;
  queue: string;
  partitionName: string;
  mode: 'new' | 'timestamp';
  subscribedFrom: string;
  createdAt: string;
  /** Whole seconds since the record was written (by a pop of the group). */
  idleSeconds: number;
}

/** Every subscription record, or only those of one group. */
export async function subscriptionList(db: Db, params: { group: string | null }): Promise<GroupSubscription[]> {
  const result = await db.query<GroupSubscription>(
    `SELECT s.consumer_group AS "group", q.name AS queue, s.partition_name AS "partitionName", s.mode,
            queen.format_millis(s.subscribed_from) AS "subscribedFrom", queen.format_millis(s.created_at) AS "createdAt",
            floor(extract(epoch FROM now() - s.created_at))::integer AS "idleSeconds"
     FROM queen.subscriptions s JOIN queen.queues q ON q.id = s.queue_id
     WHERE $1::text IS NULL OR s.consumer_group = $1
     ORDER BY q.name, s.consumer_group, s.partition_name`,
    [params.group],
  );
  return result.rows;
}

/** Deletes a group's cursors on every queue (`queue` null) or one queue; returns the rows deleted. */
export async function groupDelete(db: Db, params: { group: string; queue: string | null; deleteMetadata: boolean }): Promise<number> {
  const result = await db.query<{ deleted: number }>('SELECT queen.consumer_group_delete($1, $2, $3) AS deleted', [
    params.group,
    params.queue,
    params.deleteMetadata,
  ]);
  return result.rows[0]?.deleted ?? 0;
}

/** Gives every subscription record of a group the timestamp `from` (null: now) and mode `timestamp`. */
export async function subscriptionRetime(
  db: Db,
  params: { group: string; from: string | null },
): Promise<{ rowsUpdated: number; newTimestamp: string }> {
  const result = await db.query<{ rows_updated: number; new_timestamp: string }>(
    'SELECT rows_updated, new_timestamp FROM queen.subscription_retime($1, $2::timestamptz)',
    [params.group, params.from],
  );
  const row = result.rows[0]!;
  return { rowsUpdated: row.rows_updated, newTimestamp: row.new_timestamp };
}

/** Where a seek moves the cursors: the tail, or just after the newest segment created at or before `at`. */
export type SeekTarget = { kind: 'end' } | { kind: 'timestamp'; at: string };

/** The outcome of a seek: the partitions moved and the normalised target, or what was missing. */
export type SeekOutcome =
  | {
      kind: 'updated';
      partitions: Array<{ name: string; cursorMovedTo: string | null }>;
      /** The target timestamp in milliseconds with a Z; null for a seek to the end. */
      targetAt: string | null;
    }
  | { kind: 'queue_not_found' }
  | { kind: 'partition_not_found' };

interface SeekRow {
  outcome: 'updated' | 'queue_not_found' | 'partition_not_found';
  partition_names: string[];
  cursors_moved_to: Array<string | null>;
  target_at: string | null;
}

/** Seeks a group's cursors on every partition of a queue (`partition` null) or on one partition. */
export async function cursorSeek(
  db: Db,
  params: { group: string; queue: string; partition: string | null; target: SeekTarget },
): Promise<SeekOutcome> {
  const { target } = params;
  const result = await db.query<SeekRow>(
    `SELECT outcome, partition_names, cursors_moved_to, target_at
     FROM queen.cursor_seek($1, $2, $3, $4, $5::timestamptz)`,
    [params.group, params.queue, params.partition, target.kind === 'end', target.kind === 'timestamp' ? target.at : null],
  );
  const row = result.rows[0]!;
  if (row.outcome !== 'updated') return { kind: row.outcome };
  return {
    kind: 'updated',
    partitions: row.partition_names.map((name, i) => ({ name, cursorMovedTo: row.cursors_moved_to[i] ?? null })),
    targetAt: row.target_at,
  };
}
