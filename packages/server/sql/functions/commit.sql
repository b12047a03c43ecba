-- commit: SQL API v1 (docs/sql-api.md): acks, applied in the caller's transaction through ack_messages
-- (api_ack_items): the cursor moves, leases are released, DLQ entries written when that transaction commits.
--   Parameters: p_acks a JSON array (an object counts as one) of {transactionId, partitionId, leaseId?,
--     consumerGroup? (queue mode), status? ('completed' | 'success' | 'failed' | 'retry' | 'dlq'), error?}.
--   Result: a JSON array of the ack results of docs/api.md 6.4 ({index, transactionId, success, error, queueName,
--     partitionName, leaseReleased, dlq}), in item order.
--   Errors: 22023 for a malformed item or an unknown status: nothing is applied.
--   Locks: those of ack_messages. Notifies: queen_wake at commit for queues whose lease was released.
CREATE OR REPLACE FUNCTION queen.commit(p_acks jsonb) RETURNS jsonb
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce(jsonb_agg(jsonb_build_object('index', r.item, 'transactionId', r.transaction_id,
      'success', r.success, 'error', r.error, 'queueName', r.queue_name, 'partitionName', r.partition_name,
      'leaseReleased', r.lease_released, 'dlq', r.dlq) ORDER BY r.item), '[]'::jsonb)
  FROM queen.api_ack_items(p_acks, 'queen.commit: p_acks') r
$$;
SELECT queen.api_grant('queen.commit(jsonb)', ARRAY['consumer']);
