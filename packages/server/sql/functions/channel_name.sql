-- channel_name: SQL API v1 (docs/sql-api.md): the NOTIFY channel of a queue for applications that LISTEN
-- themselves: 'queen_' and the queue name with '.' and '-' turned into '_'. (The broker's consumers do not
-- need it: every produce wakes them on the broker's own channel.)
--   Parameters: p_queue text.
--   Result: the channel name.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.channel_name(p_queue text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
  SELECT 'queen_' || translate(p_queue, '.-', '__')
$$;
