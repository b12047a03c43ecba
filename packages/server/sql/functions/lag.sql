-- lag: SQL API v1 (docs/sql-api.md): depth under its Kafka name (the same count).
--   Parameters: p_queue; p_consumer_group (default '__QUEUE_MODE__').
--   Result: the count; 0 for an unknown queue. Errors: 22023 for a name the rule refuses (api_name).
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.lag(p_queue text, p_consumer_group text DEFAULT '__QUEUE_MODE__') RETURNS bigint
LANGUAGE sql STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT queen.api_name(p_queue, 'queen.lag: p_queue'),
         queen.api_name(nullif(p_consumer_group, ''), 'queen.lag: p_consumer_group', true);
  SELECT queen.depth(p_queue, p_consumer_group)
$$;
SELECT queen.api_grant('queen.lag(text, text)', ARRAY['consumer', 'admin']);
