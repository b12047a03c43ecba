-- produce_one: SQL API v1 (docs/sql-api.md): one message, appended in the caller's transaction (produce);
-- for psql and triggers. Same rules and errors as produce_full.
--   Parameters: p_queue, p_payload, p_partition (default 'Default'), p_transaction_id (null: minted),
--     p_notify (also NOTIFY channel_name(p_queue)).
--   Result: the message id (of the stored message when this is a duplicate).
--   Locks: those of push_messages. Notifies: queen_wake at commit; channel_name(p_queue) with p_notify.
CREATE OR REPLACE FUNCTION queen.produce_one(
  p_queue text,
  p_payload jsonb,
  p_partition text DEFAULT 'Default',
  p_transaction_id text DEFAULT NULL,
  p_notify boolean DEFAULT false
) RETURNS uuid
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT f.message_id
  FROM queen.produce_full(p_queue, p_payload, p_partition, p_transaction_id, p_notify => p_notify) f
$$;
SELECT queen.api_grant('queen.produce_one(text, jsonb, text, text, boolean)', ARRAY['producer']);
