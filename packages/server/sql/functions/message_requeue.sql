-- message_requeue: requeue a dead-lettered message (docs/api.md 7.4 retry): push a new message with the same
-- payload, traceId, producerSub and trace context to the same partition through message_copy (new message id
-- p_message_id, new transactionId p_new_transaction_id), then delete every DLQ entry of the original. The
-- original stays where it is; every group sees the new message at the tail. The copy keeps the stored form
-- of the payload (sealed or not), whatever the queue's encryption setting is now.
--   Parameters: p_partition_id uuid, p_transaction_id text, p_message_id uuid, p_new_transaction_id text.
--   Result: one row (outcome 'requeued' | 'not_found' | 'not_in_dlq' | 'failed', dlq_entries_removed, error
--     (the push failure, e.g. maxSize), queue_name, queue_namespace, queue_task).
--   Locks: the partition row (FOR UPDATE) before anything is read, so two requeues of one message cannot
--     both push.
--   Notifies: nothing; the broker wakes the queue's parked pops after the commit.
CREATE OR REPLACE FUNCTION queen.message_requeue(p_partition_id uuid, p_transaction_id text, p_message_id uuid,
                                                p_new_transaction_id text)
RETURNS TABLE (outcome text, dlq_entries_removed integer, error text, queue_name text, queue_namespace text,
               queue_task text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_partition record;
  v_message record;
  v_pushed record;
  v_removed integer;
  v_sealing text := current_setting('queen.sealing', true);
BEGIN
  SELECT p.name, q.name AS queue_name, q.namespace, q.task INTO v_partition
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  WHERE p.id = p_partition_id
  FOR UPDATE OF p;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_found'::text, 0, NULL::text, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  SELECT * INTO v_message FROM queen.message_find(p_partition_id, p_transaction_id);
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_found'::text, 0, NULL::text, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM queen.dead_letters d
                 WHERE d.partition_id = p_partition_id AND d.message_offset = v_message.message_offset) THEN
    RETURN QUERY SELECT 'not_in_dlq'::text, 0, NULL::text, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;

  -- The copy keeps the stored form of the payload: sealed stays sealed (no key needed), plaintext stays
  -- plaintext even if the queue has turned encryption on since (no plaintext crosses the wire: it is
  -- already stored). The encryption guard is suspended for this one push, then restored.
  PERFORM set_config('queen.sealing', 'off', true);
  SELECT r.status, r.error INTO v_pushed
  FROM queen.message_copy(p_partition_id, v_partition.queue_name, v_partition.name, p_message_id,
                          p_new_transaction_id, v_message.trace_id, v_message.payload, v_message.producer_sub,
                          v_message.trace_context) r;
  PERFORM set_config('queen.sealing', coalesce(v_sealing, ''), true);
  IF v_pushed.status <> 'queued' THEN
    RETURN QUERY SELECT 'failed'::text, 0, coalesce(v_pushed.error, 'Push failed'), v_partition.queue_name,
                        v_partition.namespace, v_partition.task;
    RETURN;
  END IF;
  DELETE FROM queen.dead_letters d
  WHERE d.partition_id = p_partition_id AND d.message_offset = v_message.message_offset;
  GET DIAGNOSTICS v_removed = ROW_COUNT;
  RETURN QUERY SELECT 'requeued'::text, v_removed, NULL::text, v_partition.queue_name, v_partition.namespace,
                      v_partition.task;
END
$$;
