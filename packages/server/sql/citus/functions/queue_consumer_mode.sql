-- queue_consumer_mode on Citus: the override of sql/functions/queue_consumer_mode.sql (its header is the
-- contract) that Citus can plan: PL/pgSQL with custom plans (Citus refuses a SQL-language function over a
-- distributed table); the groups are read per shard, their distinct names counted on the coordinator.
-- Installed on Citus only, after the original and again whenever the original is re-applied
-- (store/citus-schema.ts).
--   Parameters: p_queue text.
--   Result: whether the queue has a queue-mode cursor, and how many other groups have cursors.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.queue_consumer_mode(p_queue text)
RETURNS TABLE (has_queue_mode boolean, bus_groups_count integer)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
  RETURN QUERY
  WITH grp AS MATERIALIZED (
    SELECT DISTINCT c.consumer_group
    FROM queen.queues q
    JOIN queen.partitions p ON p.queue_id = q.id
    JOIN queen.cursors c ON c.partition_id = p.id
    WHERE q.name = p_queue
  )
  SELECT coalesce(bool_or(g.consumer_group = '__QUEUE_MODE__'), false),
         (count(*) FILTER (WHERE g.consumer_group <> '__QUEUE_MODE__'))::integer
  FROM grp g;
END
$$;
