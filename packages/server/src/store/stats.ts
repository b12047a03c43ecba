/**
 * Per-minute counters (`queen.stats_counters`) and system samples (`queen.system_metrics`): the flush of one
 * process, the purge of old rows, and the bucketed reads of the status and analytics routes.
 *
 * Buckets are aligned on the Unix epoch (so 1440-minute buckets start at 00:00 UTC); callers pass the start
 * of the first bucket. Counter series hold every bucket in which a broker was counting (one without counter rows
 * had no traffic: zeros), and none before the first broker or while none ran (gaps, not zeros); per-queue and
 * sample series hold only buckets that have rows.
 */
import type { Db } from './database.js';

/**
 * The counters of one queue in one minute. `ackMessages`: ack items applied, whatever their status;
 * `ackCompleted`: messages settled as processed (`completed` acks and autoAck deliveries); `ackFailed`:
 * applied `failed` and `retry` acks; `lagSumMs`/`lagMaxMs` cover the `popMessages` messages.
 */
export interface OpCounters {
  pushRequests: number;
  pushMessages: number;
  popRequests: number;
  popMessages: number;
  ackRequests: number;
  ackMessages: number;
  ackCompleted: number;
  ackFailed: number;
  transactions: number;
  dlqMoved: number;
  errors: number;
  dbErrors: number;
  lagSumMs: number;
  lagMaxMs: number;
}

/** The counters of one queue in one minute, as drained: `bucket` is the minute's start (ISO-8601). */
export interface OpsRow extends OpCounters {
  bucket: string;
  queue: string;
}

/** One sample, as stored in `queen.system_metrics`. CPU percentages are of one core. */
export interface SystemSample {
  cpuUserPercent: number;
  cpuSystemPercent: number;
  rss: number;
  heapUsed: number;
  poolSize: number;
  poolIdle: number;
  poolActive: number;
  poolWaiting: number;
  eventLoopLagMs: number;
  parkedPops: number;
  inflightRequests: number;
}

/** Which counters a read covers; a null field does not filter. */
export interface CounterFilter {
  queue: string | null;
  namespace: string | null;
  task: string | null;
  hostname: string | null;
  serverId: string | null;
}

/** Buckets of `bucketMinutes` from `start` (aligned) to `to`. */
export interface Buckets {
  start: Date;
  to: Date;
  bucketMinutes: number;
}

/** The counters of one bucket (`bucket`: its start, milliseconds ISO-8601). */
export type CounterPoint = OpCounters & { bucket: string };

/** The counters of one queue in one bucket. */
export type QueueCounterPoint = CounterPoint & { queue: string };

/** Adds one process's drained counters and stores its system sample: one statement. */
export async function statsFlush(
  db: Db,
  params: { serverId: string; hostname: string; port: number; rows: readonly OpsRow[]; sample: SystemSample | null },
): Promise<void> {
  const rows = params.rows.map((row) => ({ ...row, lagSumMs: Math.round(row.lagSumMs), lagMaxMs: Math.round(row.lagMaxMs) }));
  await db.query('SELECT queen.stats_flush($1, $2, $3, $4::jsonb, $5::jsonb)', [
    params.serverId, params.hostname, params.port, JSON.stringify(rows), params.sample === null ? null : JSON.stringify(params.sample),
  ]);
}

/** The batch purge of the retention history (queen.retention_history, purged with the metrics: docs/api.md 9.3). */
export const RETENTION_HISTORY_PURGE =
  'DELETE FROM queen.retention_history WHERE ctid = ANY (ARRAY(SELECT ctid FROM queen.retention_history WHERE recorded_at < $1 LIMIT $2))';

const PURGES = [
  'DELETE FROM queen.stats_counters WHERE ctid = ANY (ARRAY(SELECT ctid FROM queen.stats_counters WHERE bucket < $1 LIMIT $2))',
  'DELETE FROM queen.system_metrics WHERE ctid = ANY (ARRAY(SELECT ctid FROM queen.system_metrics WHERE sampled_at < $1 LIMIT $2))',
  'DELETE FROM queen.server_heartbeats WHERE ctid = ANY (ARRAY(SELECT ctid FROM queen.server_heartbeats WHERE last_heartbeat_at < $1 LIMIT $2))',
  'DELETE FROM queen.pending_history WHERE ctid = ANY (ARRAY(SELECT ctid FROM queen.pending_history WHERE minute < $1 LIMIT $2))',
];

/** Whether the installation's pending count was already sampled in the current minute (database clock). */
export async function pendingSampled(db: Db): Promise<boolean> {
  const result = await db.query<{ sampled: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM queen.pending_history WHERE minute = date_trunc('minute', now())) AS sampled",
  );
  return result.rows[0]?.sampled ?? false;
}

/** Records the installation's pending and total messages for the current minute (the first sample of a minute stays). */
export async function pendingRecord(db: Db, params: { pending: number; total: number }): Promise<void> {
  await db.query(
    "INSERT INTO queen.pending_history (minute, pending, total) VALUES (date_trunc('minute', now()), $1, $2) ON CONFLICT (minute) DO NOTHING",
    [params.pending, params.total],
  );
}

/** One bucket of the pending history: the latest sample inside it. */
export interface PendingPoint {
  bucket: string;
  pending: number;
}

/** The pending history over the range, one point per bucket that holds a sample (the bucket's latest). */
export async function pendingSeries(db: Db, params: { buckets: Buckets }): Promise<PendingPoint[]> {
  const result = await db.query<{ bucket: string; pending: string }>(
    `SELECT DISTINCT ON (date_bin($3::interval, h.minute, timestamptz 'epoch'))
            queen.format_millis(date_bin($3::interval, h.minute, timestamptz 'epoch')) AS bucket, h.pending
     FROM queen.pending_history h
     WHERE h.minute >= $1 AND h.minute <= $2
     ORDER BY date_bin($3::interval, h.minute, timestamptz 'epoch'), h.minute DESC`,
    [params.buckets.start, params.buckets.to, `${params.buckets.bucketMinutes} minutes`],
  );
  return result.rows.map((row) => ({ bucket: row.bucket, pending: Number(row.pending) }));
}

/**
 * Deletes counters, samples, process rows, retention and pending history older than `before`, `batchSize` rows per statement (each
 * commits on its own, so a long purge never holds locks for long). Returns the number of rows deleted.
 */
export async function statsPurge(
  db: Db,
  params: { before: Date; batchSize: number },
  /** The retention history's purge: `RETENTION_HISTORY_PURGE`, or its Citus form (citus-admin.ts). */
  retentionHistoryPurge: string = RETENTION_HISTORY_PURGE,
): Promise<number> {
  let deleted = 0;
  for (const statement of [...PURGES, retentionHistoryPurge]) {
    for (;;) {
      const result = await db.query(statement, [params.before, params.batchSize]);
      deleted += result.rowCount ?? 0;
      if ((result.rowCount ?? 0) < params.batchSize) break;
    }
  }
  return deleted;
}

const SUMS = `sum(c.push_requests) AS push_requests, sum(c.push_messages) AS push_messages,
  sum(c.pop_requests) AS pop_requests, sum(c.pop_messages) AS pop_messages, sum(c.ack_requests) AS ack_requests,
  sum(c.ack_messages) AS ack_messages, sum(c.ack_completed) AS ack_completed, sum(c.ack_failed) AS ack_failed, sum(c.transactions) AS transactions,
  sum(c.dlq_moved) AS dlq_moved, sum(c.errors) AS errors, sum(c.db_errors) AS db_errors,
  sum(c.lag_sum_ms) AS lag_sum_ms, max(c.lag_max_ms) AS lag_max_ms`;

const COUNTERS_IN = `queen.stats_counters_in($1, $2, $4, $5, $6, $7, $8) c`;

// A bucket is recorded when a broker (of the filter's hostname / server id) counted in it: it flushed counters or a
// system sample (every STATS_INTERVAL_MS while it runs). Buckets before the first broker, or while none ran, are
// absent (gaps), not zeros.
const SERIES_SQL = `
  WITH totals AS (
    SELECT date_bin($3::interval, c.bucket, timestamptz 'epoch') AS starts_at, ${SUMS}
    FROM ${COUNTERS_IN} GROUP BY 1
  ),
  recorded AS (
    SELECT DISTINCT date_bin($3::interval, m.sampled_at, timestamptz 'epoch') AS starts_at
    FROM queen.system_metrics m
    WHERE m.sampled_at >= $1 AND m.sampled_at < $2::timestamptz + $3::interval
      AND ($7::text IS NULL OR m.hostname = $7) AND ($8::text IS NULL OR m.server_id = $8)
  )
  SELECT queen.format_millis(s.starts_at) AS bucket, t.*
  FROM generate_series($1::timestamptz, $2::timestamptz, $3::interval) AS s(starts_at)
  LEFT JOIN totals t ON t.starts_at = s.starts_at
  WHERE t.starts_at IS NOT NULL OR s.starts_at IN (SELECT starts_at FROM recorded)
  ORDER BY s.starts_at`;

const QUEUE_SERIES_SQL = `
  SELECT queen.format_millis(date_bin($3::interval, c.bucket, timestamptz 'epoch')) AS bucket, c.queue_name AS queue, ${SUMS}
  FROM ${COUNTERS_IN}
  WHERE c.queue_name <> ''
  GROUP BY date_bin($3::interval, c.bucket, timestamptz 'epoch'), c.queue_name
  ORDER BY 1, 2`;

type SumsRow = Record<string, string | null>;

function counters(row: SumsRow): OpCounters {
  const n = (column: string): number => Number(row[column] ?? 0);
  return {
    pushRequests: n('push_requests'), pushMessages: n('push_messages'), popRequests: n('pop_requests'),
    popMessages: n('pop_messages'), ackRequests: n('ack_requests'), ackMessages: n('ack_messages'),
    ackCompleted: n('ack_completed'), ackFailed: n('ack_failed'), transactions: n('transactions'), dlqMoved: n('dlq_moved'), errors: n('errors'),
    dbErrors: n('db_errors'), lagSumMs: n('lag_sum_ms'), lagMaxMs: n('lag_max_ms'),
  };
}

function values(buckets: Buckets, filter: CounterFilter): unknown[] {
  return [buckets.start, buckets.to, `${buckets.bucketMinutes} minutes`, filter.queue, filter.namespace, filter.task,
    filter.hostname, filter.serverId];
}

/**
 * Counters summed per bucket over the filter, one point per recorded bucket of the range (zeros included while a
 * broker was counting; no point before the first broker or while none ran).
 */
export async function counterSeries(db: Db, params: { buckets: Buckets; filter: CounterFilter }): Promise<CounterPoint[]> {
  const result = await db.query<SumsRow>(SERIES_SQL, values(params.buckets, params.filter));
  return result.rows.map((row) => ({ bucket: row.bucket!, ...counters(row) }));
}

/** Counters summed per (bucket, queue) over the filter, for the buckets and queues that have any. */
export async function counterQueueSeries(db: Db, params: { buckets: Buckets; filter: CounterFilter }): Promise<QueueCounterPoint[]> {
  const result = await db.query<SumsRow>(QUEUE_SERIES_SQL, values(params.buckets, params.filter));
  return result.rows.map((row) => ({ bucket: row.bucket!, queue: row.queue!, ...counters(row) }));
}

/** System samples of one process aggregated over one bucket: averages, except the worst event-loop lag. */
export interface SystemPoint extends SystemSample {
  serverId: string;
  hostname: string;
  port: number;
  bucket: string;
  sampleCount: number;
}

/** System samples per (process, bucket) over the range, optionally for one hostname or one server id. */
export async function systemSeries(
  db: Db,
  params: { buckets: Buckets; hostname: string | null; serverId: string | null },
): Promise<SystemPoint[]> {
  const result = await db.query<SystemPoint>(
    `SELECT m.server_id AS "serverId", m.hostname, max(m.port) AS port,
            queen.format_millis(date_bin($3::interval, m.sampled_at, timestamptz 'epoch')) AS bucket,
            count(*)::float8 AS "sampleCount",
            round(avg(m.cpu_user_percent)::numeric, 2)::float8 AS "cpuUserPercent",
            round(avg(m.cpu_system_percent)::numeric, 2)::float8 AS "cpuSystemPercent",
            round(avg(m.rss))::float8 AS rss, round(avg(m.heap_used))::float8 AS "heapUsed",
            round(avg(m.pool_size)::numeric, 2)::float8 AS "poolSize", round(avg(m.pool_idle)::numeric, 2)::float8 AS "poolIdle",
            round(avg(m.pool_active)::numeric, 2)::float8 AS "poolActive",
            round(avg(m.pool_waiting)::numeric, 2)::float8 AS "poolWaiting",
            round(max(m.event_loop_lag_ms)::numeric, 2)::float8 AS "eventLoopLagMs",
            round(avg(m.parked_pops)::numeric, 2)::float8 AS "parkedPops",
            round(avg(m.inflight_requests)::numeric, 2)::float8 AS "inflightRequests"
     FROM queen.system_metrics m
     WHERE m.sampled_at >= $1 AND m.sampled_at <= $2
       AND ($4::text IS NULL OR m.hostname = $4) AND ($5::text IS NULL OR m.server_id = $5)
     GROUP BY m.server_id, m.hostname, date_bin($3::interval, m.sampled_at, timestamptz 'epoch')
     ORDER BY m.server_id, 4`,
    [params.buckets.start, params.buckets.to, `${params.buckets.bucketMinutes} minutes`, params.hostname, params.serverId],
  );
  return result.rows;
}
