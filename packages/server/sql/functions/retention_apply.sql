-- retention_apply: one chunk of a retention or eviction cycle on one partition (docs/api.md 9.3).
--   Parameters: p_cycle uuid, p_partition_id uuid, p_job text, p_budget integer, p_strict boolean.
--   p_job 'retention' (queue with retentionEnabled): segments older than retentionSeconds, consumed or not
--     (kind 'retention'), and segments older than completedRetentionSeconds whose last offset every contacted
--     group has passed (kind 'completed'; a partition no group contacted keeps them) and that no other group
--     known on the queue (a cursor on another partition, or a subscription record) would still read: such a
--     group counts from where it will start here (cursor_seed), as the counts of docs/api.md 7.2 do.
--   p_job 'eviction' (queue with maxWaitTimeSeconds > 0, whatever retentionEnabled says): segments older
--     than maxWaitTimeSeconds that some contacted group has not passed, or every such segment when no group
--     contacted the partition (kind 'eviction'). No DLQ entry is created; existing ones of the removed
--     messages go with them.
--   Removes at most p_budget messages (unless p_strict, at least one segment when anything qualifies: a
--   segment larger than the budget goes alone), records the deletion in retention_history under p_cycle,
--   and moves every cursor without a live lease that had no retained message between its committed offset
--   and the end of the removed run to that end (retry counter, not-before and claims reset: the head they
--   belonged to is gone). A cursor with a live lease is left alone: its consumer settles the rest of the
--   span (acks of removed messages answer "Message not found") or the lease expires.
--   Result: the number of messages removed (0: nothing qualifies any more, or with p_strict nothing fits).
--   Locks: the queue row FOR KEY SHARE (a concurrent queue_delete goes first or waits), the partition row
--     FOR UPDATE (serialised with pushes and the other deleters), then its cursor rows FOR UPDATE in group
--     order (the order of transaction_lock: partitions, then cursors). Pops skip the partition meanwhile;
--     acks on it wait for the chunk.
CREATE OR REPLACE FUNCTION queen.retention_apply(p_cycle uuid, p_partition_id uuid, p_job text, p_budget integer,
                                                 p_strict boolean)
RETURNS bigint
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := now();
  v_partition record;
  v_contacted integer;
  v_lowest bigint;
  v_locked text[];
  v_untouched_lowest bigint;
  v_completed_through bigint;
  v_through bigint;
  v_after bigint := 0;
  v_segment record;
  v_end bigint;
  v_retention bigint := 0;
  v_completed bigint := 0;
  v_evicted bigint := 0;
BEGIN
  -- The queue row first (FOR KEY SHARE, as seek does): queue_delete takes it FOR UPDATE before it deletes the
  -- queue's segments and cursors, so the two are ordered at the queue row instead of deadlocking later.
  PERFORM 1 FROM queen.queues q
  WHERE q.id = (SELECT p.queue_id FROM queen.partitions p WHERE p.id = p_partition_id)
  FOR KEY SHARE;
  SELECT p.id, p.name, p.queue_id, q.name AS queue_name, q.retention_enabled, q.retention_seconds,
         q.completed_retention_seconds, q.max_wait_time_seconds
  INTO v_partition
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  WHERE p.id = p_partition_id
  FOR UPDATE OF p;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  SELECT count(*), min(locked.committed), coalesce(array_agg(locked.consumer_group), '{}') INTO v_contacted, v_lowest, v_locked
  FROM (SELECT c.committed, c.consumer_group FROM queen.cursors c
        WHERE c.partition_id = p_partition_id
        ORDER BY c.consumer_group
        FOR UPDATE) locked;

  IF p_job = 'retention' THEN
    IF NOT v_partition.retention_enabled THEN
      RETURN 0;
    END IF;
    IF v_partition.retention_seconds > 0 THEN
      v_through := queen.segment_last_before(p_partition_id,
                                             v_now - make_interval(secs => v_partition.retention_seconds));
    END IF;
    IF v_partition.completed_retention_seconds > 0 AND v_contacted > 0 THEN
      -- A group known on the queue that has not reached this partition yet will read it from its start: what it
      -- has not consumed is not completed. (A group whose cursor appeared after the lock above counts from its
      -- start, at or below that cursor: safe.)
      SELECT min(queen.cursor_seed(v_partition.queue_id, p_partition_id, v_partition.name, k.grp))
      INTO v_untouched_lowest
      FROM (SELECT c.consumer_group AS grp FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
            WHERE p.queue_id = v_partition.queue_id
            UNION
            SELECT s.consumer_group FROM queen.subscriptions s WHERE s.queue_id = v_partition.queue_id) k
      WHERE k.grp <> ALL (v_locked);
      v_lowest := least(v_lowest, v_untouched_lowest);
      -- (least() ignores a null: no segment that old means nothing qualifies, not "up to the lowest cursor")
      v_completed_through := queen.segment_last_before(p_partition_id,
                               v_now - make_interval(secs => v_partition.completed_retention_seconds));
      v_completed_through := CASE WHEN v_completed_through IS NOT NULL THEN least(v_lowest, v_completed_through) END;
    END IF;
    v_through := greatest(v_through, v_completed_through);
  ELSIF p_job = 'eviction' THEN
    IF v_partition.max_wait_time_seconds <= 0 THEN
      RETURN 0;
    END IF;
    v_through := queen.segment_last_before(p_partition_id,
                                           v_now - make_interval(secs => v_partition.max_wait_time_seconds));
    v_after := CASE WHEN v_contacted > 0 THEN v_lowest ELSE 0 END;
  ELSE
    RAISE EXCEPTION 'unknown job %', p_job;
  END IF;
  IF v_through IS NULL OR v_through <= v_after THEN
    RETURN 0;
  END IF;

  FOR v_segment IN SELECT * FROM queen.segments_remove(p_partition_id, v_after, v_through, p_budget, p_strict) LOOP
    v_end := v_segment.last_offset;
    IF p_job = 'eviction' THEN
      v_evicted := v_evicted + (v_segment.last_offset - v_segment.first_offset + 1);
    ELSIF v_segment.last_offset <= v_completed_through THEN
      v_completed := v_completed + (v_segment.last_offset - v_segment.first_offset + 1);
    ELSE
      v_retention := v_retention + (v_segment.last_offset - v_segment.first_offset + 1);
    END IF;
  END LOOP;
  IF v_end IS NULL THEN
    RETURN 0;
  END IF;

  UPDATE queen.cursors c
  SET committed = v_end, retry_count = 0, not_before = NULL, claims_since_advance = 0
  WHERE c.partition_id = p_partition_id AND c.committed < v_end
    AND NOT coalesce(c.lease_expires_at > v_now, false)
    AND coalesce((SELECT s.first_offset FROM queen.segments s
                  WHERE s.partition_id = p_partition_id AND s.last_offset > c.committed
                  ORDER BY s.last_offset LIMIT 1), v_end + 1) > v_end;

  INSERT INTO queen.retention_history AS h (cycle_id, partition_id, kind, queue_name, partition_name, deleted)
  SELECT p_cycle, p_partition_id, k.kind, v_partition.queue_name, v_partition.name, k.deleted
  FROM (VALUES ('retention', v_retention), ('completed', v_completed), ('eviction', v_evicted)) AS k (kind, deleted)
  WHERE k.deleted > 0
  ON CONFLICT (cycle_id, partition_id, kind) DO UPDATE
  SET deleted = h.deleted + EXCLUDED.deleted, recorded_at = EXCLUDED.recorded_at;

  RETURN v_retention + v_completed + v_evicted;
END
$$;
