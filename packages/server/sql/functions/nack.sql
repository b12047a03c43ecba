-- nack: SQL API v1 (docs/sql-api.md): commit_one with status 'failed': the message is redelivered after the
-- queue's retryDelay, or goes to the DLQ once its retryLimit is spent (docs/api.md 6.3).
--   Parameters: p_transaction_id, p_partition_id, p_lease_id, p_error_message (default 'Processing
--     failed'), p_consumer_group (default '__QUEUE_MODE__').
--   Result: the ack's success. Errors and notifications: commit_one's.
--   Locks: commit_one's.
CREATE OR REPLACE FUNCTION queen.nack(
  p_transaction_id text,
  p_partition_id uuid,
  p_lease_id text,
  p_error_message text DEFAULT 'Processing failed',
  p_consumer_group text DEFAULT '__QUEUE_MODE__'
) RETURNS boolean
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT queen.api_name(nullif(p_consumer_group, ''), 'queen.nack: p_consumer_group', true);
  SELECT queen.commit_one(p_transaction_id, p_partition_id, p_lease_id, p_consumer_group, 'failed', p_error_message)
$$;
SELECT queen.api_grant('queen.nack(text, uuid, text, text, text)', ARRAY['consumer']);
