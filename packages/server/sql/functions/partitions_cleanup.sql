-- partitions_cleanup: delete up to p_limit idle partitions (docs/api.md 9.3 partition cleanup), of any queue: no
-- retained message, no live lease, and no push, claim or ack since p_idle_before (the partition's creation
-- and last push, its cursors' last activity and last consumption). Each goes with its per-group state
-- (cursors, backlog entries, and any DLQ entries, keys and traces left) and is recorded in retention_history
-- (kind 'partition_cleanup', deleted 1). Subscription records are group metadata keyed by partition name and stay.
-- A later push re-creates the partition, empty, under the same id (partition_uuid); stream operator state kept
-- for that id (queen_streams.state) applies to it again.
--   Parameters: p_cycle uuid, p_idle_before timestamptz, p_limit integer.
--   Result: the number of partitions deleted.
--   Locks: partition rows FOR UPDATE SKIP LOCKED in (queue name, partition name) order (a partition being
--     pushed to is busy, hence not idle) with their queue rows FOR KEY SHARE SKIP LOCKED (a queue being
--     deleted is skipped, and queue_delete waits for this transaction at its first lock, never half-way);
--     then the idleness is checked again under the lock.
CREATE OR REPLACE FUNCTION queen.partitions_cleanup(p_cycle uuid, p_idle_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE plpgsql AS $$
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
    FOR UPDATE OF p SKIP LOCKED
    FOR KEY SHARE OF q SKIP LOCKED
  LOOP
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
