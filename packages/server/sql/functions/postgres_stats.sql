-- postgres_stats: GET /api/v1/analytics/postgres-stats, from PostgreSQL's statistics views restricted to
-- schema queen (activity: this database's other sessions), as json (keys in the order of docs/api.md 7.10).
-- Ratios are hits / (hits + reads), null before any access. bufferUsage needs the pg_buffercache
-- extension and is [] without it.
--   Parameters: none.
--   Result: one json object.
--   Locks: none (statistics views only).
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
