-- cursor_seek: move p_group's cursor on every partition of p_queue, or on the partition p_partition only
-- (docs/api.md 7.7 rule 3). Partitions the group never contacted are contacted at the target (no seeding from
-- subscription records). Per partition: the live lease is released, the retry counter, not-before and the
-- claims counter are reset, and the cursor is set to the tail (p_to_end) or to seek_offset(p_target).
--   Parameters: p_group text, p_queue text, p_partition text, p_to_end boolean, p_target timestamptz.
--   Result: one row: outcome 'updated' | 'queue_not_found' | 'partition_not_found'; the partitions moved, in
--     partition-id order, with the id of the message at each new cursor (null when that offset is 0 or not
--     retained); p_target in milliseconds with a Z (null with p_to_end).
--   Locks: the queue row FOR KEY SHARE (a concurrent queue_delete waits, or has already won); cursor rows
--     FOR UPDATE in partition-id order; the advisory lock cursor_lock_key before creating a cursor row.
--   Notifies: queen_wake (origin '') for the queue when a lease was released, a cursor moved backwards or a
--     new cursor has messages above it (docs/api.md 7.7 rule 4).
CREATE OR REPLACE FUNCTION queen.cursor_seek(p_group text, p_queue text, p_partition text, p_to_end boolean,
                                             p_target timestamptz)
RETURNS TABLE (outcome text, partition_names text[], cursors_moved_to uuid[], target_at text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := now();
  v_target_at text := CASE WHEN p_to_end THEN NULL ELSE queen.format_millis(p_target) END;
  v_queue queen.queues;
  v_partition record;
  v_cursor queen.cursors;
  v_target bigint;
  v_created boolean;
  v_live boolean;
  v_moved_to uuid;
  v_names text[] := '{}';
  v_moved uuid[] := '{}';
  v_wake boolean := false;
BEGIN
  SELECT * INTO v_queue FROM queen.queues q WHERE q.name = p_queue FOR KEY SHARE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'queue_not_found'::text, v_names, v_moved, v_target_at;
    RETURN;
  END IF;

  FOR v_partition IN
    SELECT p.id, p.name, p.tail FROM queen.partitions p
    WHERE p.queue_id = v_queue.id AND (p_partition IS NULL OR p.name = p_partition)
    ORDER BY p.id
  LOOP
    v_target := CASE WHEN p_to_end THEN v_partition.tail
                     ELSE queen.seek_offset(v_partition.id, v_partition.tail, p_target) END;

    SELECT * INTO v_cursor FROM queen.cursors c
    WHERE c.partition_id = v_partition.id AND c.consumer_group = p_group FOR UPDATE;
    v_created := false;
    IF NOT FOUND THEN
      PERFORM pg_advisory_xact_lock(queen.cursor_lock_key(v_partition.id, p_group));
      INSERT INTO queen.cursors (partition_id, consumer_group, committed)
      VALUES (v_partition.id, p_group, v_target)
      ON CONFLICT DO NOTHING;
      v_created := FOUND;
      SELECT * INTO STRICT v_cursor FROM queen.cursors c
      WHERE c.partition_id = v_partition.id AND c.consumer_group = p_group FOR UPDATE;
    END IF;
    v_live := coalesce(v_cursor.lease_expires_at > v_now, false);

    UPDATE queen.cursors c
    SET committed = v_target,
        lease_id = CASE WHEN v_live THEN NULL ELSE c.lease_id END,
        lease_span_end = CASE WHEN v_live THEN NULL ELSE c.lease_span_end END,
        lease_expires_at = CASE WHEN v_live THEN NULL ELSE c.lease_expires_at END,
        retry_count = 0,
        not_before = NULL,
        claims_since_advance = 0
    WHERE c.partition_id = v_partition.id AND c.consumer_group = p_group;
    v_wake := v_wake OR v_live OR v_target < v_cursor.committed OR (v_created AND v_target < v_partition.tail);
    IF v_target < v_cursor.committed THEN  -- messages below the old cursor are deliverable again
      PERFORM queen.backlog_restore(ARRAY[v_partition.id], ARRAY[p_group]);
    END IF;

    SELECT s.message_ids[v_target - s.first_offset + 1] INTO v_moved_to
    FROM queen.segment_at(v_partition.id, v_target) s;
    v_names := v_names || v_partition.name;
    v_moved := v_moved || v_moved_to;
  END LOOP;

  IF v_wake THEN
    PERFORM pg_notify('queen_wake', json_build_object(
      'origin', '', 'queue', v_queue.name, 'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  END IF;
  RETURN QUERY SELECT CASE WHEN p_partition IS NOT NULL AND cardinality(v_names) = 0 THEN 'partition_not_found'
                           ELSE 'updated' END,
                      v_names, v_moved, v_target_at;
END
$$;
