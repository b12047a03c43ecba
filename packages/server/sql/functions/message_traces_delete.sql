-- message_traces_delete: remove the trace events of the given messages of a partition (message delete, queue
-- clear and retention call it).
--   Parameters: p_partition_id; p_transaction_ids, or null for every trace event of the partition.
--   Result: none.
--   Locks: none of its own; callers hold the partition row lock.
CREATE OR REPLACE FUNCTION queen.message_traces_delete(p_partition_id uuid, p_transaction_ids text[])
RETURNS void
LANGUAGE sql AS $$
  DELETE FROM queen.traces t
  WHERE t.partition_id = p_partition_id
    AND (p_transaction_ids IS NULL OR t.transaction_id = ANY (p_transaction_ids))
$$;
