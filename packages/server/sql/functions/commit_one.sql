-- commit_one: SQL API v1 (docs/sql-api.md): one ack (commit), for psql and scripts.
--   Parameters: p_transaction_id, p_partition_id, p_lease_id (null: no lease, docs/api.md 6.3 C6),
--     p_consumer_group (default '__QUEUE_MODE__'), p_status (default 'completed'; 'success', 'failed',
--     'retry', 'dlq'), p_error_message (stored on a DLQ entry).
--   Result: the ack's success (false: message not found, lease invalid or expired, outside the leased span,
--     or the partition is leased and no lease was given).
--   Errors: 22023 for a null id, an unknown status or a group the name rule refuses (api_name).
--   Locks: those of ack_messages. Notifies: queen_wake at commit when the lease was released.
CREATE OR REPLACE FUNCTION queen.commit_one(
  p_transaction_id text,
  p_partition_id uuid,
  p_lease_id text,
  p_consumer_group text DEFAULT '__QUEUE_MODE__',
  p_status text DEFAULT 'completed',
  p_error_message text DEFAULT NULL
) RETURNS boolean
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT queen.api_name(nullif(p_consumer_group, ''), 'queen.commit_one: p_consumer_group', true);
  SELECT r.success
  FROM queen.api_ack_items(jsonb_build_object(
    'transactionId', p_transaction_id, 'partitionId', p_partition_id::text, 'leaseId', p_lease_id,
    'consumerGroup', p_consumer_group, 'status', coalesce(p_status, 'completed'), 'error', p_error_message),
    'queen.commit_one: ack') r
$$;
SELECT queen.api_grant('queen.commit_one(text, uuid, text, text, text, text)', ARRAY['consumer']);
