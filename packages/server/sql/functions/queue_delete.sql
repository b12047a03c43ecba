-- queue_delete: the queue with its partitions, segments, keys, cursors, DLQ entries, subscription records,
-- trace events, backlog entries and stream operator state (docs/api.md 4.3), each table explicitly (no
-- triggers: docs/scale-out.md, section 2).
--   Parameters: p_name the queue.
--   Result: whether the queue existed.
--   Locks: the queue row (FOR UPDATE) first, so retention, seek and pushes on it finish or wait.
CREATE OR REPLACE FUNCTION queen.queue_delete(p_name text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_queue_id uuid;
  v_partition_ids uuid[];
BEGIN
  SELECT id INTO v_queue_id FROM queen.queues WHERE name = p_name FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  SELECT coalesce(array_agg(id), '{}') INTO v_partition_ids FROM queen.partitions WHERE queue_id = v_queue_id;
  DELETE FROM queen.segments WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.message_keys WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.cursors WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.dead_letters WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.traces WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.backlog WHERE queue_id = v_queue_id;
  DELETE FROM queen_streams.state WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.partitions WHERE queue_id = v_queue_id;
  -- Explicit, not by the foreign keys' cascade: the Citus conversion drops those keys (sql/citus/distribute.sql).
  DELETE FROM queen.subscriptions WHERE queue_id = v_queue_id;
  DELETE FROM queen.backlog_groups WHERE queue_id = v_queue_id;
  DELETE FROM queen.queues WHERE id = v_queue_id;
  RETURN true;
END
$$;
