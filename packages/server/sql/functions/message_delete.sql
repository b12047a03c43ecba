-- message_delete: delete one message (docs/api.md 7.4). Its offset stays and pops skip it; its transactionId is
-- freed (the message_keys row goes); its DLQ entries and traces go. Cursors and leases are untouched: an ack
-- of the deleted message answers "Message not found", acks of its neighbours work as before.
--   Parameters: p_partition_id uuid, p_transaction_id text.
--   Result: true when the message existed.
--   Locks: the partition row (FOR UPDATE).
CREATE OR REPLACE FUNCTION queen.message_delete(p_partition_id uuid, p_transaction_id text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_offset bigint;
BEGIN
  PERFORM 1 FROM queen.partitions p WHERE p.id = p_partition_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  DELETE FROM queen.message_keys k
  WHERE k.partition_id = p_partition_id AND k.transaction_id = p_transaction_id
  RETURNING k.message_offset INTO v_offset;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM queen.segment_cut(p_partition_id, v_offset);
  DELETE FROM queen.dead_letters d WHERE d.partition_id = p_partition_id AND d.message_offset = v_offset;
  PERFORM queen.message_traces_delete(p_partition_id, ARRAY[p_transaction_id]);
  RETURN true;
END
$$;
