-- streams_query_register: register a query or look it up again (docs/streams.md).
--   Parameters: the query's name (SDK queryId), source and sink queue names (informational), config hash,
--     reset flag.
--   Result: one row (outcome 'fresh' | 'same' | 'reset' | 'mismatch', query_id, stored_hash: the hash stored
--     before this call).
--   Effects: 'fresh' inserts the row; 'same' refreshes source, sink and updated_at and keeps the state (a
--     reset flag has no effect); 'reset' (another hash and p_reset) deletes every state row of the query and
--     stores the new hash, source and sink; 'mismatch' changes nothing.
--   Locks: the query row FOR UPDATE, so concurrent first registrations give one row and one hash, and a reset
--     waits for the query's cycles in flight (they hold the row FOR KEY SHARE).
CREATE OR REPLACE FUNCTION queen.streams_query_register(p_name text, p_source_queue text, p_sink_queue text,
                                                        p_config_hash text, p_reset boolean)
RETURNS TABLE (outcome text, query_id uuid, stored_hash text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_query queen_streams.queries;
BEGIN
  INSERT INTO queen_streams.queries (id, name, source_queue, sink_queue, config_hash)
  VALUES (queen.uuid_v7(), p_name, p_source_queue, p_sink_queue, p_config_hash)
  ON CONFLICT (name) DO NOTHING
  RETURNING * INTO v_query;
  IF FOUND THEN
    RETURN QUERY SELECT 'fresh'::text, v_query.id, v_query.config_hash;
    RETURN;
  END IF;

  SELECT * INTO STRICT v_query FROM queen_streams.queries q WHERE q.name = p_name FOR UPDATE;
  IF v_query.config_hash = p_config_hash THEN
    UPDATE queen_streams.queries q
    SET source_queue = p_source_queue, sink_queue = p_sink_queue, updated_at = now()
    WHERE q.id = v_query.id;
    RETURN QUERY SELECT 'same'::text, v_query.id, v_query.config_hash;
  ELSIF p_reset THEN
    DELETE FROM queen_streams.state s WHERE s.query_id = v_query.id;
    UPDATE queen_streams.queries q
    SET source_queue = p_source_queue, sink_queue = p_sink_queue, config_hash = p_config_hash, updated_at = now()
    WHERE q.id = v_query.id;
    RETURN QUERY SELECT 'reset'::text, v_query.id, v_query.config_hash;
  ELSE
    RETURN QUERY SELECT 'mismatch'::text, v_query.id, v_query.config_hash;
  END IF;
END
$$;
