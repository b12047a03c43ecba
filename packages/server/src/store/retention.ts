/**
 * Retention, eviction and partition cleanup (docs/api.md 9.3) and their history (docs/api.md 7.10
 * `/analytics/retention`). The deleting work is done by the SQL functions of
 * sql/functions/ (retention_apply, partitions_cleanup), one short transaction per call; this module lists the partitions worth
 * a call and reads the history.
 *
 * Candidate partitions are found with an index probe or two each (the lowest cursor, the createdAt of the
 * oldest retained segment, or of the oldest one above the lowest cursor): a partition with nothing to remove
 * is never locked.
 */
import type { Db } from './database.js';

/** The two message-removing jobs: retention (retentionSeconds, completedRetentionSeconds) and eviction (maxWaitTimeSeconds). */
export type RemovalJob = 'retention' | 'eviction';

/** What a retention history row says happened (docs/api.md 7.10). */
export type RemovalKind = 'retention' | 'completed' | 'eviction' | 'partition_cleanup';

/** One row of `GET …/analytics/retention`. */
export interface RetentionHistoryEntry {
  timestamp: string;
  queue: string;
  partition: string;
  kind: RemovalKind;
  deleted: number;
}

const CANDIDATES_SQL: Record<RemovalJob, string> = {
  // The oldest retained segment is past retentionSeconds, or past completedRetentionSeconds and passed by
  // every contacted group (a partition without cursors has a null lowest cursor: no completed candidate).
  retention: `
    SELECT p.id FROM queen.queues q
    JOIN queen.partitions p ON p.queue_id = q.id
    CROSS JOIN LATERAL (SELECT s.created_at, s.last_offset FROM queen.segments s WHERE s.partition_id = p.id
                        ORDER BY s.last_offset LIMIT 1) oldest
    CROSS JOIN LATERAL (SELECT min(c.committed) AS lowest FROM queen.cursors c WHERE c.partition_id = p.id) cursors
    WHERE q.retention_enabled
      AND ((q.retention_seconds > 0 AND oldest.created_at < now() - make_interval(secs => q.retention_seconds))
           OR (q.completed_retention_seconds > 0
               AND oldest.created_at < now() - make_interval(secs => q.completed_retention_seconds)
               AND cursors.lowest >= oldest.last_offset))
    ORDER BY q.name, p.name`,
  // The first retained segment above the lowest cursor (every segment when no group contacted the partition)
  // is past maxWaitTimeSeconds.
  eviction: `
    SELECT p.id FROM queen.queues q
    JOIN queen.partitions p ON p.queue_id = q.id
    CROSS JOIN LATERAL (SELECT min(c.committed) AS lowest FROM queen.cursors c WHERE c.partition_id = p.id) cursors
    CROSS JOIN LATERAL (SELECT s.created_at FROM queen.segments s
                        WHERE s.partition_id = p.id AND s.last_offset > coalesce(cursors.lowest, 0)
                        ORDER BY s.last_offset LIMIT 1) waiting
    WHERE q.max_wait_time_seconds > 0
      AND waiting.created_at < now() - make_interval(secs => q.max_wait_time_seconds)
    ORDER BY q.name, p.name`,
};

/** Partitions where `job` has something to remove now, in lock order (one or two index probes per partition). */
export async function removalCandidates(db: Db, params: { job: RemovalJob }): Promise<string[]> {
  const result = await db.query<{ id: string }>(CANDIDATES_SQL[params.job]);
  return result.rows.map((row) => row.id);
}

/**
 * One chunk of `job` on one partition (`queen.retention_apply`): removes whole segments, at most `budget`
 * messages (unless `strict`, at least one segment when anything qualifies, however large), and records them
 * under `cycleId`. Returns the messages removed; 0 when nothing qualifies (or, strict, nothing fits).
 */
export async function removalApply(
  db: Db,
  params: { cycleId: string; partitionId: string; job: RemovalJob; budget: number; strict: boolean },
): Promise<number> {
  const result = await db.query<{ deleted: string }>('SELECT queen.retention_apply($1, $2, $3, $4, $5) AS deleted', [
    params.cycleId, params.partitionId, params.job, params.budget, params.strict,
  ]);
  return Number(result.rows[0]?.deleted ?? 0);
}

/** Deletes up to `limit` partitions idle since `idleBefore` (`queen.partitions_cleanup`); returns how many. */
export async function partitionsCleanup(
  db: Db,
  params: { cycleId: string; idleBefore: Date; limit: number },
): Promise<number> {
  const result = await db.query<{ deleted: number }>('SELECT queen.partitions_cleanup($1, $2, $3) AS deleted', [
    params.cycleId, params.idleBefore, params.limit,
  ]);
  return result.rows[0]?.deleted ?? 0;
}

/** Records the start of a cycle of `job` unless one started within the interval (`queen.job_start`); true when it may run. */
export async function jobStart(db: Db, params: { job: string; intervalMs: number }): Promise<boolean> {
  const result = await db.query<{ started: boolean }>('SELECT queen.job_start($1, $2) AS started', [params.job, params.intervalMs]);
  return result.rows[0]?.started === true;
}

const HISTORY_WHERE = `h.recorded_at >= $1 AND h.recorded_at <= $2 AND ($3::text IS NULL OR h.queue_name = $3)`;

/** A page of the retention history in [from, to] (optionally of one queue), newest first, with the total. */
export async function retentionHistoryList(
  db: Db,
  params: { from: Date; to: Date; queue: string | null; limit: number; offset: number },
): Promise<{ history: RetentionHistoryEntry[]; total: number }> {
  const values = [params.from, params.to, params.queue];
  const page = await db.query<RetentionHistoryEntry & { deleted: string }>(
    `SELECT queen.format_millis(h.recorded_at) AS timestamp, h.queue_name AS queue, h.partition_name AS partition,
            h.kind, h.deleted
     FROM queen.retention_history h
     WHERE ${HISTORY_WHERE}
     ORDER BY h.recorded_at DESC, h.queue_name, h.partition_name, h.kind
     LIMIT $4 OFFSET $5`,
    [...values, params.limit, params.offset],
  );
  const total = await db.query<{ total: number }>(
    `SELECT count(*)::integer AS total FROM queen.retention_history h WHERE ${HISTORY_WHERE}`,
    values,
  );
  return {
    history: page.rows.map((row) => ({ ...row, deleted: Number(row.deleted) })),
    total: total.rows[0]?.total ?? 0,
  };
}
