-- metrics_gauges on Citus: the override of sql/functions/metrics_gauges.sql (its header is the contract) that Citus
-- can plan. The original is one SQL-language statement whose lateral look-ups and cursor_seed calls sit beside
-- distributed tables; here each distributed table is read in a MATERIALIZED CTE (pushed down per shard), the
-- segments the original looks up by a join of those positions to segments on the partition id, grouped (the first
-- retained segment has the lowest first offset; the first above a position, the oldest time), and the rest is
-- assembled on the coordinator. Installed on Citus only, after the original and again whenever the original is re-applied
-- (store/citus-schema.ts).
--   Parameters, Result, Locks: the original's.
CREATE OR REPLACE FUNCTION queen.metrics_gauges() RETURNS jsonb
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
  v_gauges jsonb;
BEGIN
  WITH parts AS MATERIALIZED (SELECT p.id, p.queue_id, p.name, p.tail FROM queen.partitions p),
  cur AS MATERIALIZED (SELECT c.partition_id, c.consumer_group, c.committed FROM queen.cursors c),
  known AS (
    SELECT DISTINCT p.queue_id, c.consumer_group AS grp FROM cur c JOIN parts p ON p.id = c.partition_id
    UNION
    SELECT s.queue_id, s.consumer_group FROM queen.subscriptions s
  ), positions AS MATERIALIZED (
    SELECT p.id, p.queue_id, p.tail, k.grp,
           coalesce(c.committed, queen.cursor_seed(p.queue_id, p.id, p.name, k.grp)) AS committed
    FROM parts p
    JOIN known k ON k.queue_id = p.queue_id
    LEFT JOIN cur c ON c.partition_id = p.id AND c.consumer_group = k.grp
  ), reference AS MATERIALIZED (
    SELECT p.id, p.queue_id, p.tail,
           coalesce(max(po.committed) FILTER (WHERE po.grp = '__QUEUE_MODE__'), min(po.committed), 0) AS committed
    FROM parts p
    LEFT JOIN positions po ON po.id = p.id
    GROUP BY p.id, p.queue_id, p.tail
  ), reference_heads AS MATERIALIZED (
    SELECT r.id, min(s.first_offset) AS first_offset
    FROM reference r JOIN queen.segments s ON s.partition_id = r.id
    WHERE r.tail > r.committed
    GROUP BY r.id
  ), position_heads AS MATERIALIZED (
    SELECT po.id, po.grp, min(s.created_at) AS created_at
    FROM positions po JOIN queen.segments s ON s.partition_id = po.id AND s.last_offset > po.committed
    WHERE po.tail > po.committed
    GROUP BY po.id, po.grp
  ), dead AS MATERIALIZED (
    SELECT d.partition_id, count(*) AS n FROM queen.dead_letters d GROUP BY d.partition_id
  ), leases AS MATERIALIZED (
    SELECT DISTINCT c.lease_id FROM queen.cursors c WHERE c.lease_expires_at > now()
  ), pending AS (
    SELECT r.queue_id,
           sum(CASE WHEN r.tail > r.committed
                    THEN greatest(0, r.tail - greatest(r.committed, coalesce(h.first_offset, r.tail + 1) - 1))
                    ELSE 0 END) AS pending
    FROM reference r LEFT JOIN reference_heads h ON h.id = r.id
    GROUP BY r.queue_id
  ), dlq AS (
    SELECT p.queue_id, sum(d.n) AS depth FROM dead d JOIN parts p ON p.id = d.partition_id GROUP BY p.queue_id
  ), lags AS (
    SELECT q.name AS queue, po.grp AS "group", max(coalesce(extract(epoch FROM now() - h.created_at), 0)) AS seconds
    FROM positions po
    JOIN queen.queues q ON q.id = po.queue_id
    LEFT JOIN position_heads h ON h.id = po.id AND h.grp = po.grp
    GROUP BY q.name, po.grp
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
    'leasesActive', (SELECT count(*) FROM leases l WHERE l.lease_id IS NOT NULL))
  INTO v_gauges;
  RETURN v_gauges;
END
$$;
