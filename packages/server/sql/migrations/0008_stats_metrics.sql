-- 0008_stats_metrics: broker heartbeats, per-minute operation counters, system samples, and the two
-- read functions of the monitoring surface (Prometheus gauges, PostgreSQL statistics).
--
-- Nothing here is on a hot path. Counters are accumulated in process memory and written by each broker's
-- stats service at most once per STATS_INTERVAL_MS (one call of stats_flush); heartbeats once every 5 s.
-- Rows are keyed by server_id and never updated by another process, so these writes never contend.

-- One row per broker process incarnation (API.md 9.2 rule 4). A restarted process replaces the row of its
-- predecessor (same server_id, or same hostname and port) and carries its counters over.
--   stopped_at: set by a clean shutdown; a stopped process is neither alive nor dead.
--   parked_by_queue: {"<queue>": n} of the last heartbeat (discovery pops under "*discovery*").
CREATE TABLE queen.server_heartbeats (
  server_id         text        PRIMARY KEY,
  hostname          text        NOT NULL,
  pid               integer     NOT NULL,
  port              integer     NOT NULL,
  started_at        timestamptz NOT NULL,
  last_heartbeat_at timestamptz NOT NULL,
  stopped_at        timestamptz,
  parked_pops       integer     NOT NULL DEFAULT 0,
  parked_by_queue   jsonb       NOT NULL DEFAULT '{}',
  heartbeats        bigint      NOT NULL DEFAULT 0,
  restarts          integer     NOT NULL DEFAULT 0
);

-- Per-minute operation counters of one broker process for one queue (queue_name '' holds what belongs to
-- no queue: transactions, failed requests). ack_messages: ack items applied, any status; ack_completed:
-- messages processed (completed acks, autoAck deliveries); ack_failed: applied failed and retry acks.
-- Lag is the pop time minus the segment createdAt of each popped message: its count is pop_messages.
CREATE TABLE queen.stats_counters (
  bucket        timestamptz NOT NULL,
  server_id     text        NOT NULL,
  queue_name    text        NOT NULL,
  hostname      text        NOT NULL,
  push_requests bigint      NOT NULL DEFAULT 0,
  push_messages bigint      NOT NULL DEFAULT 0,
  pop_requests  bigint      NOT NULL DEFAULT 0,
  pop_messages  bigint      NOT NULL DEFAULT 0,
  ack_requests  bigint      NOT NULL DEFAULT 0,
  ack_messages  bigint      NOT NULL DEFAULT 0,
  ack_completed bigint      NOT NULL DEFAULT 0,
  ack_failed    bigint      NOT NULL DEFAULT 0,
  transactions  bigint      NOT NULL DEFAULT 0,
  dlq_moved     bigint      NOT NULL DEFAULT 0,
  errors        bigint      NOT NULL DEFAULT 0,
  db_errors     bigint      NOT NULL DEFAULT 0,
  lag_sum_ms    bigint      NOT NULL DEFAULT 0,
  lag_max_ms    bigint      NOT NULL DEFAULT 0,
  PRIMARY KEY (bucket, server_id, queue_name)
);

-- One sample of a broker process's resources per flush.
CREATE TABLE queen.system_metrics (
  sampled_at         timestamptz      NOT NULL,
  server_id          text             NOT NULL,
  hostname           text             NOT NULL,
  port               integer          NOT NULL,
  cpu_user_percent   double precision NOT NULL,
  cpu_system_percent double precision NOT NULL,
  rss                bigint           NOT NULL,
  heap_used          bigint           NOT NULL,
  pool_size          integer          NOT NULL,
  pool_idle          integer          NOT NULL,
  pool_active        integer          NOT NULL,
  pool_waiting       integer          NOT NULL,
  event_loop_lag_ms  double precision NOT NULL,
  parked_pops        integer          NOT NULL,
  inflight_requests  integer          NOT NULL,
  PRIMARY KEY (sampled_at, server_id)
);

-- server_heartbeat: records one heartbeat of a process and returns the cluster's health (GET /health).
--   The first beat of an incarnation (no row with this server_id and p_started_at) replaces its
--   predecessors, the row of the same server_id or of another one on the same hostname and port (a process
--   restarted with a pid-derived id), counting one restart each and keeping their counters.
--   Result: servers tracked (not stopped), alive (a beat within p_alive_seconds), dead (the others),
--   heartbeats received and restarts detected (over every row).
--   Locks: the process's own row.
CREATE OR REPLACE FUNCTION queen.server_heartbeat(p_server_id text, p_hostname text, p_pid integer, p_port integer,
                                                  p_started_at timestamptz, p_parked integer,
                                                  p_parked_by_queue jsonb, p_alive_seconds double precision)
RETURNS TABLE (servers_tracked bigint, servers_alive bigint, servers_dead bigint, heartbeats_received bigint,
               restarts_detected bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_restarts bigint;
  v_heartbeats bigint;
BEGIN
  UPDATE queen.server_heartbeats
  SET last_heartbeat_at = now(), parked_pops = p_parked, parked_by_queue = p_parked_by_queue,
      heartbeats = heartbeats + 1
  WHERE server_id = p_server_id AND started_at = p_started_at;
  IF NOT FOUND THEN
    WITH predecessor AS (
      DELETE FROM queen.server_heartbeats h
      WHERE h.server_id = p_server_id OR (h.hostname = p_hostname AND h.port = p_port)
      RETURNING h.restarts, h.heartbeats
    )
    SELECT count(*) + coalesce(sum(restarts), 0), coalesce(sum(heartbeats), 0)
    INTO v_restarts, v_heartbeats FROM predecessor;
    INSERT INTO queen.server_heartbeats (server_id, hostname, pid, port, started_at, last_heartbeat_at,
                                         parked_pops, parked_by_queue, heartbeats, restarts)
    VALUES (p_server_id, p_hostname, p_pid, p_port, p_started_at, now(), p_parked, p_parked_by_queue,
            v_heartbeats + 1, v_restarts);
  END IF;

  RETURN QUERY
  SELECT count(*) FILTER (WHERE h.stopped_at IS NULL),
         count(*) FILTER (WHERE h.stopped_at IS NULL AND h.last_heartbeat_at > now() - make_interval(secs => p_alive_seconds)),
         count(*) FILTER (WHERE h.stopped_at IS NULL AND h.last_heartbeat_at <= now() - make_interval(secs => p_alive_seconds)),
         coalesce(sum(h.heartbeats), 0)::bigint,
         coalesce(sum(h.restarts), 0)::bigint
  FROM queen.server_heartbeats h;
END
$$;

-- stats_flush: adds one process's accumulated counters and stores its system sample, in one round trip.
--   p_counters: [{bucket, queue, pushRequests, pushMessages, popRequests, popMessages, ackRequests,
--   ackMessages, ackCompleted, ackFailed, transactions, dlqMoved, errors, dbErrors, lagSumMs, lagMaxMs}],
--   at most one element per (bucket, queue). Counters already stored for a (bucket, server, queue) are added
--   to; the lag maximum is kept.
--   p_sample: {cpuUserPercent, cpuSystemPercent, rss, heapUsed, poolSize, poolIdle, poolActive, poolWaiting,
--   eventLoopLagMs, parkedPops, inflightRequests}, or null.
--   Locks: the process's own counter rows.
CREATE OR REPLACE FUNCTION queen.stats_flush(p_server_id text, p_hostname text, p_port integer,
                                             p_counters jsonb, p_sample jsonb) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO queen.stats_counters AS c (
    bucket, server_id, queue_name, hostname, push_requests, push_messages, pop_requests, pop_messages,
    ack_requests, ack_messages, ack_completed, ack_failed, transactions, dlq_moved, errors, db_errors,
    lag_sum_ms, lag_max_ms)
  SELECT x."bucket", p_server_id, x."queue", p_hostname, x."pushRequests", x."pushMessages", x."popRequests",
         x."popMessages", x."ackRequests", x."ackMessages", x."ackCompleted", x."ackFailed", x."transactions",
         x."dlqMoved", x."errors", x."dbErrors", x."lagSumMs", x."lagMaxMs"
  FROM jsonb_to_recordset(p_counters) AS x(
    "bucket" timestamptz, "queue" text, "pushRequests" bigint, "pushMessages" bigint, "popRequests" bigint,
    "popMessages" bigint, "ackRequests" bigint, "ackMessages" bigint, "ackCompleted" bigint, "ackFailed" bigint,
    "transactions" bigint, "dlqMoved" bigint, "errors" bigint, "dbErrors" bigint, "lagSumMs" bigint,
    "lagMaxMs" bigint)
  ON CONFLICT (bucket, server_id, queue_name) DO UPDATE SET
    push_requests = c.push_requests + EXCLUDED.push_requests,
    push_messages = c.push_messages + EXCLUDED.push_messages,
    pop_requests  = c.pop_requests + EXCLUDED.pop_requests,
    pop_messages  = c.pop_messages + EXCLUDED.pop_messages,
    ack_requests  = c.ack_requests + EXCLUDED.ack_requests,
    ack_messages  = c.ack_messages + EXCLUDED.ack_messages,
    ack_completed = c.ack_completed + EXCLUDED.ack_completed,
    ack_failed    = c.ack_failed + EXCLUDED.ack_failed,
    transactions  = c.transactions + EXCLUDED.transactions,
    dlq_moved     = c.dlq_moved + EXCLUDED.dlq_moved,
    errors        = c.errors + EXCLUDED.errors,
    db_errors     = c.db_errors + EXCLUDED.db_errors,
    lag_sum_ms    = c.lag_sum_ms + EXCLUDED.lag_sum_ms,
    lag_max_ms    = greatest(c.lag_max_ms, EXCLUDED.lag_max_ms);

  INSERT INTO queen.system_metrics (
    sampled_at, server_id, hostname, port, cpu_user_percent, cpu_system_percent, rss, heap_used, pool_size,
    pool_idle, pool_active, pool_waiting, event_loop_lag_ms, parked_pops, inflight_requests)
  SELECT now(), p_server_id, p_hostname, p_port, s."cpuUserPercent", s."cpuSystemPercent", s."rss", s."heapUsed",
         s."poolSize", s."poolIdle", s."poolActive", s."poolWaiting", s."eventLoopLagMs", s."parkedPops",
         s."inflightRequests"
  FROM jsonb_to_record(p_sample) AS s(
    "cpuUserPercent" double precision, "cpuSystemPercent" double precision, "rss" bigint, "heapUsed" bigint,
    "poolSize" integer, "poolIdle" integer, "poolActive" integer, "poolWaiting" integer,
    "eventLoopLagMs" double precision, "parkedPops" integer, "inflightRequests" integer)
  WHERE p_sample IS NOT NULL
  ON CONFLICT (sampled_at, server_id) DO NOTHING;
$$;

-- stats_counters_in: the counter rows with bucket in [p_from, p_to] that match the filters of the status and
-- analytics routes (a null filter matches everything). Namespace and task are those of the queue named by
-- the row, so rows of no queue ('') and of deleted queues only match when neither is given. Inlined by the
-- planner: callers aggregate over it with the bucket range on the primary key.
CREATE OR REPLACE FUNCTION queen.stats_counters_in(p_from timestamptz, p_to timestamptz, p_queue text,
                                                   p_namespace text, p_task text, p_hostname text,
                                                   p_server_id text)
RETURNS SETOF queen.stats_counters
LANGUAGE sql STABLE AS $$
  SELECT c.* FROM queen.stats_counters c
  WHERE c.bucket >= p_from AND c.bucket <= p_to
    AND (p_queue IS NULL OR c.queue_name = p_queue)
    AND (p_hostname IS NULL OR c.hostname = p_hostname)
    AND (p_server_id IS NULL OR c.server_id = p_server_id)
    AND ((p_namespace IS NULL AND p_task IS NULL) OR EXISTS (
      SELECT 1 FROM queen.queues q
      WHERE q.name = c.queue_name AND (p_namespace IS NULL OR q.namespace = p_namespace)
        AND (p_task IS NULL OR q.task = p_task)))
$$;

-- metrics_gauges: the database-derived gauges of GET /metrics/prometheus, in one statement.
--   queues: [{queue, pending, dlqDepth}] for every queue. pending = retained messages above the partition's
--     reference cursor (API.md 7.2: queue mode's, else the lowest named group's, else 0), that is 7.2's
--     pending + processing; reads one segment index entry per partition with a backlog.
--   lags: [{queue, group, seconds}] per contacted (queue, group): the largest age over its partitions of the
--     oldest retained message above the cursor (0 when caught up); one index entry per backlogged cursor.
--   leasesActive: distinct live lease ids.
CREATE OR REPLACE FUNCTION queen.metrics_gauges() RETURNS jsonb
LANGUAGE sql STABLE AS $$
  WITH reference AS (
    SELECT p.id, p.queue_id, p.tail,
           coalesce(max(c.committed) FILTER (WHERE c.consumer_group = '__QUEUE_MODE__'), min(c.committed), 0) AS committed
    FROM queen.partitions p
    LEFT JOIN queen.cursors c ON c.partition_id = p.id
    GROUP BY p.id
  ), pending AS (
    SELECT r.queue_id,
           sum(CASE WHEN r.tail > r.committed
                    THEN greatest(0, r.tail - greatest(r.committed, coalesce(head.first_offset, r.tail + 1) - 1))
                    ELSE 0 END) AS pending
    FROM reference r
    LEFT JOIN LATERAL (
      SELECT s.first_offset FROM queen.segments s
      WHERE s.partition_id = r.id AND r.tail > r.committed
      ORDER BY s.last_offset LIMIT 1
    ) head ON true
    GROUP BY r.queue_id
  ), dlq AS (
    SELECT p.queue_id, count(*) AS depth
    FROM queen.dead_letters d JOIN queen.partitions p ON p.id = d.partition_id
    GROUP BY p.queue_id
  ), lags AS (
    SELECT q.name AS queue, c.consumer_group AS "group",
           max(coalesce(extract(epoch FROM now() - head.created_at), 0)) AS seconds
    FROM queen.cursors c
    JOIN queen.partitions p ON p.id = c.partition_id
    JOIN queen.queues q ON q.id = p.queue_id
    LEFT JOIN LATERAL (
      SELECT s.created_at FROM queen.segments s
      WHERE s.partition_id = c.partition_id AND s.last_offset > c.committed AND p.tail > c.committed
      ORDER BY s.last_offset LIMIT 1
    ) head ON true
    GROUP BY q.name, c.consumer_group
  )
  SELECT jsonb_build_object(
    'queues', coalesce((
      SELECT jsonb_agg(jsonb_build_object('queue', q.name, 'pending', coalesce(pe.pending, 0),
                                          'dlqDepth', coalesce(d.depth, 0)))
      FROM queen.queues q
      LEFT JOIN pending pe ON pe.queue_id = q.id
      LEFT JOIN dlq d ON d.queue_id = q.id), '[]'::jsonb),
    'lags', coalesce((SELECT jsonb_agg(jsonb_build_object('queue', l.queue, 'group', l."group", 'seconds', l.seconds))
                      FROM lags l), '[]'::jsonb),
    'leasesActive', (SELECT count(DISTINCT c.lease_id) FROM queen.cursors c WHERE c.lease_expires_at > now()))
$$;

-- postgres_stats: GET /api/v1/analytics/postgres-stats, from PostgreSQL's statistics views restricted to
-- schema queen (activity: this database's other sessions), as json (keys in the order of API.md 7.10).
-- Ratios are hits / (hits + reads), null before any access. bufferUsage needs the pg_buffercache
-- extension and is [] without it.
CREATE OR REPLACE FUNCTION queen.postgres_stats() RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_buffer_usage json := '[]';
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_buffercache') THEN
    EXECUTE $q$
      SELECT coalesce(json_agg(json_build_object(
               'relation', u.relation, 'buffers', u.buffers,
               'bytes', u.buffers * current_setting('block_size')::bigint,
               'percentOfSharedBuffers', round(100.0 * u.buffers / nullif(s.total, 0), 2)) ORDER BY u.buffers DESC), '[]')
      FROM (SELECT c.relname AS relation, count(*) AS buffers
            FROM pg_buffercache b
            JOIN pg_class c ON pg_relation_filenode(c.oid) = b.relfilenode
            JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'queen'
            WHERE b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
            GROUP BY c.relname) u,
           (SELECT count(*) AS total FROM pg_buffercache) s
    $q$ INTO v_buffer_usage;
  END IF;

  RETURN json_build_object(
    'timestamp', queen.format_millis(now()),
    'database', (
      SELECT json_build_object(
        'name', d.datname, 'sizeBytes', pg_database_size(d.datid), 'size', pg_size_pretty(pg_database_size(d.datid)),
        'connections', d.numbackends, 'maxConnections', current_setting('max_connections')::integer,
        'transactionsCommitted', d.xact_commit, 'transactionsRolledBack', d.xact_rollback,
        'deadlocks', d.deadlocks, 'tempBytes', d.temp_bytes, 'serverVersion', current_setting('server_version'))
      FROM pg_stat_database d WHERE d.datname = current_database()),
    'databaseCache', (
      SELECT json_build_object('blocksHit', d.blks_hit, 'blocksRead', d.blks_read,
                                'hitRatio', round(d.blks_hit::numeric / nullif(d.blks_hit + d.blks_read, 0), 4))
      FROM pg_stat_database d WHERE d.datname = current_database()),
    'tableCache', coalesce((
      SELECT json_agg(json_build_object(
               'table', t.relname, 'blocksHit', coalesce(t.heap_blks_hit, 0), 'blocksRead', coalesce(t.heap_blks_read, 0),
               'hitRatio', round(t.heap_blks_hit::numeric / nullif(t.heap_blks_hit + t.heap_blks_read, 0), 4))
             ORDER BY t.relname)
      FROM pg_statio_user_tables t WHERE t.schemaname = 'queen'), '[]'),
    'indexCache', coalesce((
      SELECT json_agg(json_build_object(
               'index', i.indexrelname, 'table', i.relname, 'blocksHit', coalesce(i.idx_blks_hit, 0),
               'blocksRead', coalesce(i.idx_blks_read, 0),
               'hitRatio', round(i.idx_blks_hit::numeric / nullif(i.idx_blks_hit + i.idx_blks_read, 0), 4))
             ORDER BY i.relname, i.indexrelname)
      FROM pg_statio_user_indexes i WHERE i.schemaname = 'queen'), '[]'),
    'cacheSummary', (
      SELECT json_build_object(
        'tableHitRatio', round(sum(t.heap_blks_hit)::numeric / nullif(sum(t.heap_blks_hit) + sum(t.heap_blks_read), 0), 4),
        'indexHitRatio', round(sum(t.idx_blks_hit)::numeric / nullif(sum(t.idx_blks_hit) + sum(t.idx_blks_read), 0), 4),
        'tablesTracked', count(*))
      FROM pg_statio_user_tables t WHERE t.schemaname = 'queen'),
    'deadTuples', coalesce((
      SELECT json_agg(json_build_object(
               'table', t.relname, 'liveTuples', t.n_live_tup, 'deadTuples', t.n_dead_tup,
               'deadRatio', round(t.n_dead_tup::numeric / nullif(t.n_live_tup + t.n_dead_tup, 0), 4),
               'lastVacuum', queen.format_millis(t.last_vacuum), 'lastAutovacuum', queen.format_millis(t.last_autovacuum))
             ORDER BY t.n_dead_tup DESC, t.relname)
      FROM pg_stat_user_tables t WHERE t.schemaname = 'queen'), '[]'),
    'hotUpdates', coalesce((
      SELECT json_agg(json_build_object(
               'table', t.relname, 'updates', t.n_tup_upd, 'hotUpdates', t.n_tup_hot_upd,
               'hotRatio', round(t.n_tup_hot_upd::numeric / nullif(t.n_tup_upd, 0), 4))
             ORDER BY t.n_tup_upd DESC, t.relname)
      FROM pg_stat_user_tables t WHERE t.schemaname = 'queen'), '[]'),
    'activeQueries', coalesce((
      SELECT json_agg(json_build_object(
               'pid', a.pid, 'applicationName', a.application_name, 'state', a.state,
               'waitEventType', a.wait_event_type, 'waitEvent', a.wait_event,
               'durationMs', round((extract(epoch FROM now() - a.query_start) * 1000)::numeric, 1),
               'query', left(a.query, 500))
             ORDER BY a.query_start)
      FROM pg_stat_activity a
      WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'
        AND a.state IS DISTINCT FROM 'idle'), '[]'),
    'autovacuumStatus', coalesce((
      SELECT json_agg(json_build_object(
               'table', t.relname, 'lastAutovacuum', queen.format_millis(t.last_autovacuum),
               'lastAutoanalyze', queen.format_millis(t.last_autoanalyze), 'autovacuumCount', t.autovacuum_count,
               'autoanalyzeCount', t.autoanalyze_count, 'modificationsSinceAnalyze', t.n_mod_since_analyze,
               'running', EXISTS (SELECT 1 FROM pg_stat_progress_vacuum v WHERE v.relid = t.relid))
             ORDER BY t.relname)
      FROM pg_stat_user_tables t WHERE t.schemaname = 'queen'), '[]'),
    'bufferConfig', json_build_object(
      'sharedBuffers', current_setting('shared_buffers'),
      'sharedBuffersBytes', pg_size_bytes(current_setting('shared_buffers')),
      'effectiveCacheSize', current_setting('effective_cache_size'),
      'workMem', current_setting('work_mem'),
      'maintenanceWorkMem', current_setting('maintenance_work_mem'),
      'pgBuffercacheInstalled', EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_buffercache')),
    'bufferUsage', v_buffer_usage,
    'tableSizes', coalesce((
      SELECT json_agg(json_build_object(
               'table', c.relname, 'totalBytes', pg_total_relation_size(c.oid),
               'tableBytes', pg_relation_size(c.oid), 'indexBytes', pg_indexes_size(c.oid),
               'toastBytes', pg_total_relation_size(c.oid) - pg_relation_size(c.oid) - pg_indexes_size(c.oid),
               'totalSize', pg_size_pretty(pg_total_relation_size(c.oid)), 'rowEstimate', greatest(c.reltuples, 0)::bigint)
             ORDER BY pg_total_relation_size(c.oid) DESC, c.relname)
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'queen' AND c.relkind IN ('r', 'p')), '[]'));
END
$$;
