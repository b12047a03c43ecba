-- partitions_cleanup, Citus override: the contract of sql/functions/partitions_cleanup.sql (same signature, result
-- and checks). Citus refuses FOR UPDATE over rows of several shards, so the candidates (at most p_limit idle
-- partitions in (queue name, partition name) order) are read without locks, a multi-shard read, and each is then
-- locked by its id, queue row FOR KEY SHARE SKIP LOCKED then partition row FOR UPDATE SKIP LOCKED (busy ones are
-- skipped, as single PostgreSQL skips them), and checked again under the lock. Unlike single PostgreSQL, a skipped
-- candidate is not replaced by the next idle partition within the same call: the next cycle finds it.
-- Installed on Citus only (store/citus-schema.ts). Called by the retention service.
CREATE OR REPLACE FUNCTION queen.partitions_cleanup(p_cycle uuid, p_idle_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- planned with its values: Citus routes them
AS $$
DECLARE
  v_partition record;
  v_deleted integer := 0;
BEGIN
  FOR v_partition IN
    SELECT p.id, p.name, p.queue_id, q.name AS queue_name
    FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
    WHERE greatest(p.created_at, p.last_push_at) < p_idle_before
      AND NOT EXISTS (SELECT 1 FROM queen.segments s WHERE s.partition_id = p.id)
      AND NOT EXISTS (SELECT 1 FROM queen.cursors c
                      WHERE c.partition_id = p.id
                        AND (c.lease_expires_at > now() OR c.last_activity_at >= p_idle_before
                             OR c.last_consumed_at >= p_idle_before))
    ORDER BY q.name, p.name
    LIMIT p_limit
  LOOP
    -- The locks of the single-PostgreSQL candidate read, taken row by row (each statement on one shard).
    PERFORM 1 FROM queen.queues q WHERE q.id = v_partition.queue_id FOR KEY SHARE SKIP LOCKED;
    CONTINUE WHEN NOT FOUND;
    PERFORM 1 FROM queen.partitions p WHERE p.id = v_partition.id FOR UPDATE SKIP LOCKED;
    CONTINUE WHEN NOT FOUND;
    -- Re-checked under the lock: a push or a claim may have committed since the candidate list was read.
    CONTINUE WHEN EXISTS (SELECT 1 FROM queen.partitions p
                          WHERE p.id = v_partition.id AND p.last_push_at >= p_idle_before)
               OR EXISTS (SELECT 1 FROM queen.segments s WHERE s.partition_id = v_partition.id)
               OR EXISTS (SELECT 1 FROM queen.cursors c
                          WHERE c.partition_id = v_partition.id
                            AND (c.lease_expires_at > now() OR c.last_activity_at >= p_idle_before
                                 OR c.last_consumed_at >= p_idle_before));
    DELETE FROM queen.cursors c WHERE c.partition_id = v_partition.id;
    DELETE FROM queen.message_keys k WHERE k.partition_id = v_partition.id;
    DELETE FROM queen.dead_letters d WHERE d.partition_id = v_partition.id;
    PERFORM queen.message_traces_delete(v_partition.id, NULL);
    DELETE FROM queen.backlog b
    WHERE b.queue_id = v_partition.queue_id AND b.partition_id = v_partition.id
      AND b.consumer_group = ANY (ARRAY(SELECT g.consumer_group FROM queen.backlog_groups g
                                        WHERE g.queue_id = v_partition.queue_id));
    DELETE FROM queen.partitions p WHERE p.id = v_partition.id;
    INSERT INTO queen.retention_history (cycle_id, partition_id, kind, queue_name, partition_name, deleted)
    VALUES (p_cycle, v_partition.id, 'partition_cleanup', v_partition.queue_name, v_partition.name, 1);
    v_deleted := v_deleted + 1;
  END LOOP;
  RETURN v_deleted;
END
$$;
