-- message_dead_letter: move a group's head message to the DLQ (docs/api.md 7.4 dlq). Only the head can move:
-- moving a later message would silently settle the ones before it. Effects, like a `dlq` ack: a DLQ entry
-- (error p_error, else 'Moved to DLQ by operator'; retry count = the group's counter), the cursor moves to
-- the message, the retry counter and not-before reset, and a live lease whose span is then settled is
-- released. A never-contacted (partition, group) starts from its seed and is created only when the move
-- succeeds.
--   Parameters: p_origin text, p_partition_id uuid, p_transaction_id text, p_group text, p_error text.
--   Result: one row (outcome 'moved' | 'not_found' | 'consumed' | 'not_head', lease_released, queue_name,
--     queue_namespace, queue_task).
--   Locks: the cursor row (FOR UPDATE), as ack_messages does; creation under the cursor's advisory lock.
--   Notifies: queen_wake for the queue when the lease was released.
CREATE OR REPLACE FUNCTION queen.message_dead_letter(p_origin text, p_partition_id uuid, p_transaction_id text,
                                                    p_group text, p_error text)
RETURNS TABLE (outcome text, lease_released boolean, queue_name text, queue_namespace text, queue_task text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := now();
  v_message record;
  v_partition record;
  v_cursor queen.cursors;
  v_new boolean;
  v_head bigint;
  v_release boolean;
BEGIN
  SELECT * INTO v_message FROM queen.message_find(p_partition_id, p_transaction_id);
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_found'::text, false, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  SELECT p.name, q.id AS queue_id, q.name AS queue_name, q.namespace, q.task INTO STRICT v_partition
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  WHERE p.id = p_partition_id;

  SELECT * INTO v_cursor FROM queen.cursors c
  WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group FOR UPDATE;
  v_new := NOT FOUND;
  IF v_new THEN
    -- Nobody can create the row while we hold its advisory lock; re-check for a creator that just committed.
    PERFORM pg_advisory_xact_lock(queen.cursor_lock_key(p_partition_id, p_group));
    SELECT * INTO v_cursor FROM queen.cursors c
    WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group FOR UPDATE;
    v_new := NOT FOUND;
    IF v_new THEN
      v_cursor.committed := queen.cursor_seed(v_partition.queue_id, p_partition_id, v_partition.name, p_group);
      v_cursor.retry_count := 0;
    END IF;
  END IF;

  IF v_message.message_offset <= v_cursor.committed THEN
    RETURN QUERY SELECT 'consumed'::text, false, v_partition.queue_name, v_partition.namespace, v_partition.task;
    RETURN;
  END IF;
  SELECT greatest(s.first_offset, v_cursor.committed + 1) INTO v_head
  FROM queen.segments s
  WHERE s.partition_id = p_partition_id AND s.last_offset > v_cursor.committed
  ORDER BY s.last_offset
  LIMIT 1;
  IF v_head IS DISTINCT FROM v_message.message_offset THEN
    RETURN QUERY SELECT 'not_head'::text, false, v_partition.queue_name, v_partition.namespace, v_partition.task;
    RETURN;
  END IF;

  INSERT INTO queen.dead_letters (partition_id, consumer_group, message_offset, message_id, transaction_id,
                                  error_message, retry_count)
  VALUES (p_partition_id, p_group, v_message.message_offset, v_message.message_id, p_transaction_id,
          coalesce(p_error, 'Moved to DLQ by operator'), v_cursor.retry_count);

  v_release := coalesce(v_cursor.lease_expires_at > v_now, false)
               AND v_message.message_offset >= v_cursor.lease_span_end;
  IF v_new THEN
    INSERT INTO queen.cursors (partition_id, consumer_group, committed, total_consumed, last_consumed_at,
                               last_activity_at)
    VALUES (p_partition_id, p_group, v_message.message_offset, v_message.message_offset - v_cursor.committed,
            v_now, v_now);
  ELSE
    UPDATE queen.cursors c
    SET committed = v_message.message_offset, retry_count = 0, not_before = NULL, claims_since_advance = 0,
        lease_id = CASE WHEN v_release THEN NULL ELSE c.lease_id END,
        lease_span_end = CASE WHEN v_release THEN NULL ELSE c.lease_span_end END,
        lease_expires_at = CASE WHEN v_release THEN NULL ELSE c.lease_expires_at END,
        total_consumed = c.total_consumed + (v_message.message_offset - c.committed),
        last_consumed_at = v_now, last_activity_at = v_now
    WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group;
  END IF;
  IF v_release THEN
    PERFORM pg_notify('queen_wake', json_build_object('origin', p_origin, 'queue', v_partition.queue_name,
                      'namespace', v_partition.namespace, 'task', v_partition.task)::text);
  END IF;
  RETURN QUERY SELECT 'moved'::text, v_release, v_partition.queue_name, v_partition.namespace, v_partition.task;
END
$$;
