-- streams_state_get: the rows of one shard (docs/streams.md), ordered by key (byte order).
--   Parameters: p_keys null = no key filter; p_key_prefix null = none (matched literally); p_ripe_at null =
--     none, else only rows whose value.windowEnd is a JSON number <= it. Filters are ANDed. p_group (with
--     p_ripe_at; null = none): the stream's consumer group; the ripe bound is then lowered to the createdAt
--     (epoch ms, microseconds kept) of the group's oldest unconsumed message of the partition, so an idle
--     flush never closes a window that a message not yet processed (queued, or leased by any worker)
--     belongs to: createdAt never decreases along a partition's offsets.
--   Result: (key, value, updated_at in milliseconds with a Z).
--   Locks: none (a plain read, one snapshot).
DROP FUNCTION IF EXISTS queen.streams_state_get(uuid, uuid, text[], text, numeric);
CREATE OR REPLACE FUNCTION queen.streams_state_get(p_query_id uuid, p_partition_id uuid, p_keys text[],
                                                   p_key_prefix text, p_ripe_at numeric, p_group text)
RETURNS TABLE (key text, value jsonb, updated_at text)
LANGUAGE sql STABLE AS $$
  WITH bound AS (
    SELECT CASE WHEN p_ripe_at IS NULL OR p_group IS NULL THEN p_ripe_at
                ELSE least(p_ripe_at, (
                  SELECT (extract(epoch FROM m.created_at) * 1000)::numeric
                  FROM queen.partitions p
                  LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = p_group
                  CROSS JOIN LATERAL queen.message_at(p.id, coalesce(c.committed, 0) + 1) m
                  WHERE p.id = p_partition_id AND coalesce(c.committed, 0) < p.tail))
           END AS ripe_at
  )
  SELECT s.key, s.value, queen.format_millis(s.updated_at)
  FROM queen_streams.state s, bound b
  WHERE s.query_id = p_query_id AND s.partition_id = p_partition_id
    AND (p_keys IS NULL OR s.key = ANY (p_keys))
    AND (p_key_prefix IS NULL OR starts_with(s.key, p_key_prefix))
    AND (b.ripe_at IS NULL OR (jsonb_typeof(s.value -> 'windowEnd') = 'number'
                               AND (s.value ->> 'windowEnd')::numeric <= b.ripe_at))
  ORDER BY s.key
$$;
