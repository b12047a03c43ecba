-- produce_notify: SQL API v1 (docs/sql-api.md): produce_one with p_notify = true (also NOTIFY
-- channel_name(p_queue), the message id as payload, for listeners of that channel; the broker's own
-- consumers are woken in every case).
--   Parameters: p_queue, p_payload, p_partition (default 'Default'), p_transaction_id (null: minted).
--   Result: the message id.
--   Locks: those of push_messages. Notifies: queen_wake and channel_name(p_queue) at commit.
CREATE OR REPLACE FUNCTION queen.produce_notify(
  p_queue text,
  p_payload jsonb,
  p_partition text DEFAULT 'Default',
  p_transaction_id text DEFAULT NULL
) RETURNS uuid
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT queen.produce_one(p_queue, p_payload, p_partition, p_transaction_id, true)
$$;
SELECT queen.api_grant('queen.produce_notify(text, jsonb, text, text)', ARRAY['producer']);
