-- forward: SQL API v1 (docs/sql-api.md): ack a consumed message and produce its successor, atomically
-- (transaction: the ack first, then the push; the exactly-once hand-off of docs/api.md 7.1 rule 7).
--   Parameters: the source message (p_source_transaction_id, p_source_partition_id, p_source_lease_id,
--     p_source_consumer_group: null means queue mode); the destination (p_dest_queue, p_dest_payload,
--     p_dest_partition default 'Default', p_dest_transaction_id null: minted).
--   Result: the new message's id, or null when nothing happened (the ack failed, e.g. the lease expired,
--     or the destination refused the message: maxSize, duplicate transactionId).
--   Errors: 22023 for a name the rule refuses (api_name); otherwise, and notifications: transaction's.
--   Locks: transaction's.
CREATE OR REPLACE FUNCTION queen.forward(
  p_source_transaction_id text,
  p_source_partition_id uuid,
  p_source_lease_id text,
  p_source_consumer_group text,
  p_dest_queue text,
  p_dest_payload jsonb,
  p_dest_partition text DEFAULT 'Default',
  p_dest_transaction_id text DEFAULT NULL
) RETURNS uuid
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT queen.api_name(nullif(p_source_consumer_group, ''), 'queen.forward: p_source_consumer_group', true),
         queen.api_name(p_dest_queue, 'queen.forward: p_dest_queue'),
         queen.api_name(p_dest_partition, 'queen.forward: p_dest_partition', true);
  SELECT CASE WHEN (t ->> 'success')::boolean THEN (t -> 'results' -> 1 ->> 'messageId')::uuid END
  FROM queen.transaction(jsonb_build_array(
    jsonb_build_object('type', 'ack', 'transactionId', p_source_transaction_id,
                       'partitionId', p_source_partition_id::text, 'leaseId', p_source_lease_id,
                       'consumerGroup', p_source_consumer_group, 'status', 'completed'),
    jsonb_build_object('type', 'push', 'items', jsonb_build_array(jsonb_build_object(
      'queue', p_dest_queue, 'partition', p_dest_partition, 'payload', p_dest_payload,
      'transactionId', p_dest_transaction_id))))) AS t
$$;
SELECT queen.api_grant('queen.forward(text, uuid, text, text, text, jsonb, text, text)', ARRAY['consumer']);
