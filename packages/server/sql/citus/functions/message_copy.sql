-- message_copy on Citus: the override of sql/functions/message_copy.sql (its header is the contract): the copy of a
-- DLQ retry written by partition_push, the Citus entry point for one partition (push_messages is not planned by
-- Citus: docs/scale-out.md section 3). Installed on Citus only, after the original and again whenever the original
-- is re-applied (store/citus-schema.ts). Unlike the original, the copy is not held to a capped queue's maxSize (on
-- Citus the broker passes the room left, docs/scale-out.md section 4; a retry passes none).
--   Parameters, Result: the original's.
--   Locks: partition_push's (the partition row).
CREATE OR REPLACE FUNCTION queen.message_copy(p_partition_id uuid, p_queue text, p_partition text, p_message_id uuid,
                                             p_transaction_id text, p_trace_id uuid, p_payload text,
                                             p_producer_sub text, p_trace_context text)
RETURNS TABLE (status text, error text)
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
  RETURN QUERY
  SELECT r.status, r.error
  FROM queen.partition_push(p_partition_id, p_queue, p_partition, ARRAY[p_message_id], ARRAY[p_transaction_id],
                            ARRAY[p_trace_id], ARRAY[p_payload], ARRAY[p_producer_sub], ARRAY[p_trace_context], NULL,
                            coalesce(current_setting('queen.sealing', true) = 'on', false)) r;
END
$$;
