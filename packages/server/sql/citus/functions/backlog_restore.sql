-- backlog_restore, Citus override: the contract of sql/functions/backlog_restore.sql (same signature), one insert
-- per (partition, group) pair, each naming its partition id so Citus routes it to the shard (the set-based insert
-- joins an unnest to partitions under a LIMIT, which Citus cannot push down). Pairs in (group, partition id)
-- order. Callers: cursor_seek, consumer_group_delete. Installed on Citus only (store/citus-schema.ts).
CREATE OR REPLACE FUNCTION queen.backlog_restore(p_partition_ids uuid[], p_groups text[]) RETURNS void
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- planned with its values: Citus routes each insert
AS $$
DECLARE
  v_pair record;
BEGIN
  FOR v_pair IN
    SELECT DISTINCT k.partition_id, k.consumer_group
    FROM unnest(p_partition_ids, p_groups) AS k (partition_id, consumer_group)
    ORDER BY 2, 1
  LOOP
    INSERT INTO queen.backlog (queue_id, consumer_group, partition_id)
    SELECT p.queue_id, v_pair.consumer_group, p.id
    FROM queen.partitions p
    WHERE p.id = v_pair.partition_id
      AND EXISTS (SELECT 1 FROM queen.backlog_groups g WHERE g.queue_id = p.queue_id AND g.consumer_group = v_pair.consumer_group)
    ON CONFLICT DO NOTHING;
  END LOOP;
END
$$;
