-- message_copy: write one message into a partition as a push does (message_requeue's copy), through push_messages:
-- the one step of a DLQ retry that a Citus deployment does differently (sql/citus/functions/message_copy.sql writes
-- it through partition_push).
--   Parameters: p_partition_id uuid (the partition of p_queue/p_partition), p_queue text, p_partition text, then
--     the message: p_message_id uuid, p_transaction_id text, p_trace_id uuid, p_payload text, p_producer_sub text,
--     p_trace_context text.
--   Result: one row (status as push_messages', error).
--   Locks: push_messages'.
CREATE OR REPLACE FUNCTION queen.message_copy(p_partition_id uuid, p_queue text, p_partition text, p_message_id uuid,
                                             p_transaction_id text, p_trace_id uuid, p_payload text,
                                             p_producer_sub text, p_trace_context text)
RETURNS TABLE (status text, error text)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY
  SELECT r.status, r.error
  FROM queen.push_messages(ARRAY[p_queue], ARRAY[p_partition], ARRAY[p_message_id], ARRAY[p_transaction_id],
                           ARRAY[p_trace_id], ARRAY[p_payload], ARRAY[p_producer_sub], ARRAY[p_trace_context]) r;
END
$$;
