-- depth on Citus: the override of sql/functions/depth.sql (its header is the contract) that Citus can plan. The
-- original is SQL-language over distributed tables with lateral look-ups and cursor_seed beside them; here PL/pgSQL
-- with custom plans: the queue's partitions and the group's cursors read in MATERIALIZED CTEs (pushed down per
-- shard), the start of an untouched partition (cursor_seed) taken on the coordinator, the messages above each
-- position summed by a join to segments on the partition id. `lag` calls this. Installed on Citus only, after the
-- original and again whenever the original is re-applied (store/citus-schema.ts).
--   Parameters, Result, Locks: the original's.
CREATE OR REPLACE FUNCTION queen.depth(p_queue text, p_consumer_group text DEFAULT '__QUEUE_MODE__') RETURNS bigint
LANGUAGE plpgsql STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
  v_group text := coalesce(nullif(p_consumer_group, ''), '__QUEUE_MODE__');
  v_depth bigint;
BEGIN
  PERFORM queen.api_name(p_queue, 'queen.depth: p_queue'),
          queen.api_name(nullif(p_consumer_group, ''), 'queen.depth: p_consumer_group', true);
  WITH parts AS MATERIALIZED (
    SELECT p.id, p.name, q.id AS queue_id FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id
    WHERE q.name = p_queue
  ), cur AS MATERIALIZED (
    SELECT c.partition_id, c.committed FROM queen.cursors c
    WHERE c.consumer_group = v_group AND c.partition_id IN (SELECT id FROM parts)
  ), positions AS MATERIALIZED (
    SELECT p.id, coalesce(c.committed, queen.cursor_seed(p.queue_id, p.id, p.name, v_group)) AS committed
    FROM parts p LEFT JOIN cur c ON c.partition_id = p.id
  ), above AS MATERIALIZED (
    SELECT sum(s.last_offset - greatest(s.first_offset, b.committed + 1) + 1) AS n
    FROM positions b JOIN queen.segments s ON s.partition_id = b.id AND s.last_offset > b.committed
  )
  SELECT coalesce((SELECT a.n FROM above a), 0)::bigint INTO v_depth;
  RETURN v_depth;
END
$$;
SELECT queen.api_grant('queen.depth(text, text)', ARRAY['consumer', 'admin']);
