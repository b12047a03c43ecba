-- message_find: the retained message with this transactionId in this partition, with its offset, or no row.
--   Parameters: p_partition_id uuid, p_transaction_id text.
--   Result: the message with its offset.
--   Locks: none.
DROP FUNCTION IF EXISTS queen.message_find(uuid, text);
CREATE OR REPLACE FUNCTION queen.message_find(p_partition_id uuid, p_transaction_id text)
RETURNS TABLE (message_offset bigint, message_id uuid, trace_id uuid, payload text, producer_sub text,
               created_at timestamptz, trace_context text)
LANGUAGE sql STABLE AS $$
  SELECT k.message_offset, m.message_id, m.trace_id, m.payload, m.producer_sub, m.created_at, m.trace_context
  FROM queen.message_keys k
  CROSS JOIN LATERAL queen.message_at(k.partition_id, k.message_offset) m
  WHERE k.partition_id = p_partition_id AND k.transaction_id = p_transaction_id
$$;
