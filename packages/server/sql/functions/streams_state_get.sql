-- streams_state_get: the rows of one shard (STREAMS.md 3.4), ordered by key (byte order).
--   Parameters: p_keys null = no key filter; p_key_prefix null = none (matched literally); p_ripe_at null =
--     none, else only rows whose value.windowEnd is a JSON number <= it. Filters are ANDed.
--   Result: (key, value, updated_at in milliseconds with a Z).
--   Locks: none (a plain read).
CREATE OR REPLACE FUNCTION queen.streams_state_get(p_query_id uuid, p_partition_id uuid, p_keys text[],
                                                   p_key_prefix text, p_ripe_at numeric)
RETURNS TABLE (key text, value jsonb, updated_at text)
LANGUAGE sql STABLE AS $$
  SELECT s.key, s.value, queen.format_millis(s.updated_at)
  FROM queen_streams.state s
  WHERE s.query_id = p_query_id AND s.partition_id = p_partition_id
    AND (p_keys IS NULL OR s.key = ANY (p_keys))
    AND (p_key_prefix IS NULL OR starts_with(s.key, p_key_prefix))
    AND (p_ripe_at IS NULL OR (jsonb_typeof(s.value -> 'windowEnd') = 'number'
                               AND (s.value ->> 'windowEnd')::numeric <= p_ripe_at))
  ORDER BY s.key
$$;
