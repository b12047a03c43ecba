-- pop_ready, Citus override: the contract of sql/functions/pop_ready.sql (same signature; a superset of the keys
-- an attempt would claim). A key of one partition is ready when cursor_ready's test holds for its partition,
-- read by the computed id (one routed statement per key); a wildcard key is always ready (no backlog index on
-- Citus: the attempt walks the candidates), as the broker's Citus path answers every key (store/citus-routing.ts).
-- Caller: consume_one's wait. Installed on Citus only (store/citus-schema.ts).
CREATE OR REPLACE FUNCTION queen.pop_ready(p_queues text[], p_partitions text[], p_groups text[])
RETURNS SETOF integer
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan  -- planned with its values: Citus routes them
AS $$
DECLARE
  v_i integer;
BEGIN
  FOR v_i IN 1 .. coalesce(cardinality(p_queues), 0) LOOP
    IF p_partitions[v_i] IS NULL OR EXISTS (
      SELECT 1 FROM queen.partitions p
      LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = p_groups[v_i]
      WHERE p.id = queen.partition_uuid(p_queues[v_i], p_partitions[v_i])
        AND CASE WHEN c.partition_id IS NULL THEN p.tail > 0
                 ELSE p.tail > c.committed AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= now())
                      AND (c.not_before IS NULL OR c.not_before <= now()) END)
    THEN
      RETURN NEXT v_i;
    END IF;
  END LOOP;
END
$$;
