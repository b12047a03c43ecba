-- queue_clear: delete every retained message of a queue, or of one of its partitions (docs/api.md 7.3), with
-- their keys (transactionIds are freed), DLQ entries and traces, and release the live leases on the
-- affected partitions. Cursors, subscription records, configuration and tails stay: offsets keep growing.
--   Parameters: p_origin text, p_queue text, p_partition text.
--   Result: one row (outcome 'cleared' | 'queue_not_found' | 'partition_not_found', deleted_messages,
--     queue_namespace, queue_task).
--   Locks: the affected partition rows (FOR UPDATE, in name order, as push_messages locks them:
--     queue_partitions_lock).
--   Notifies: queen_wake for the queue when a lease was released.
CREATE OR REPLACE FUNCTION queen.queue_clear(p_origin text, p_queue text, p_partition text)
RETURNS TABLE (outcome text, deleted_messages bigint, queue_namespace text, queue_task text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_queue queen.queues;
  v_partition_ids uuid[];
  v_deleted bigint;
  v_released integer;
BEGIN
  SELECT * INTO v_queue FROM queen.queues q WHERE q.name = p_queue;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'queue_not_found'::text, 0::bigint, NULL::text, NULL::text;
    RETURN;
  END IF;
  v_partition_ids := queen.queue_partitions_lock(v_queue.id, p_partition);
  IF v_partition_ids IS NULL AND p_partition IS NOT NULL THEN
    RETURN QUERY SELECT 'partition_not_found'::text, 0::bigint, v_queue.namespace, v_queue.task;
    RETURN;
  END IF;
  v_partition_ids := coalesce(v_partition_ids, '{}');

  WITH removed AS (
    DELETE FROM queen.segments s WHERE s.partition_id = ANY (v_partition_ids)
    RETURNING s.last_offset - s.first_offset + 1 AS n
  )
  SELECT coalesce(sum(removed.n), 0)::bigint INTO v_deleted FROM removed;
  DELETE FROM queen.message_keys k WHERE k.partition_id = ANY (v_partition_ids);
  DELETE FROM queen.dead_letters d WHERE d.partition_id = ANY (v_partition_ids);
  PERFORM queen.message_traces_delete(pid.id, NULL) FROM unnest(v_partition_ids) AS pid (id);

  UPDATE queen.cursors c
  SET lease_id = NULL, lease_span_end = NULL, lease_expires_at = NULL
  WHERE c.partition_id = ANY (v_partition_ids) AND c.lease_expires_at > now();
  GET DIAGNOSTICS v_released = ROW_COUNT;
  IF v_released > 0 THEN
    PERFORM pg_notify('queen_wake', json_build_object('origin', p_origin, 'queue', v_queue.name,
                      'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  END IF;
  RETURN QUERY SELECT 'cleared'::text, v_deleted, v_queue.namespace, v_queue.task;
END
$$;
