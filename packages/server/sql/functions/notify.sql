-- notify: SQL API v1 (docs/sql-api.md): NOTIFY channel_name(p_queue) with p_payload, delivered at commit.
--   Parameters: p_queue text, p_payload text (default '').
--   Result: none.
--   Locks: none.
--   Notifies: channel_name(p_queue).
CREATE OR REPLACE FUNCTION queen.notify(p_queue text, p_payload text DEFAULT '') RETURNS void
LANGUAGE sql
AS $$
  SELECT pg_catalog.pg_notify(queen.channel_name(p_queue), coalesce(p_payload, ''))
$$;
