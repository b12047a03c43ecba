-- queue_partitions_lock on Citus: the override of sql/functions/queue_partitions_lock.sql (its header is the
-- contract): Citus refuses a FOR UPDATE over rows of several shards, so the ids are read first and each row is
-- locked by a statement routed to its shard, in name order. Installed on Citus only, after the original and again
-- whenever the original is re-applied (store/citus-schema.ts).
--   Parameters, Result, Locks: the original's.
CREATE OR REPLACE FUNCTION queen.queue_partitions_lock(p_queue_id uuid, p_partition text) RETURNS uuid[]
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
  v_ids uuid[];
  v_id uuid;
BEGIN
  SELECT array_agg(p.id ORDER BY p.name) INTO v_ids
  FROM queen.partitions p
  WHERE p.queue_id = p_queue_id AND (p_partition IS NULL OR p.name = p_partition);
  FOREACH v_id IN ARRAY coalesce(v_ids, '{}') LOOP
    PERFORM 1 FROM queen.partitions p WHERE p.id = v_id FOR UPDATE;
  END LOOP;
  RETURN v_ids;
END
$$;
