-- streams_state_get, Citus override: the contract of sql/functions/streams_state_get.sql (same signature, result
-- and filters) in PL/pgSQL: Citus plans no SQL-language function over distributed tables called with parameters.
-- The ripe bound is read first (the group's cursor, then the createdAt of the segment holding the next offset,
-- through segment_at), then the shard's rows; each statement names the partition id, so Citus routes it to its
-- shard. Installed on Citus only (store/citus-schema.ts).
CREATE OR REPLACE FUNCTION queen.streams_state_get(p_query_id uuid, p_partition_id uuid, p_keys text[],
                                                   p_key_prefix text, p_ripe_at numeric, p_group text)
RETURNS TABLE (key text, value jsonb, updated_at text)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan  -- planned with its values: Citus routes them
AS $$
#variable_conflict use_column
DECLARE
  v_ripe_at numeric := p_ripe_at;
  v_next bigint;
  v_tail bigint;
  v_oldest numeric;
BEGIN
  IF p_ripe_at IS NOT NULL AND p_group IS NOT NULL THEN
    SELECT coalesce(c.committed, 0) + 1, p.tail INTO v_next, v_tail
    FROM queen.partitions p
    LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = p_group
    WHERE p.id = p_partition_id;
    IF v_next <= v_tail THEN
      SELECT (extract(epoch FROM s.created_at) * 1000)::numeric INTO v_oldest FROM queen.segment_at(p_partition_id, v_next) s;
      v_ripe_at := least(p_ripe_at, v_oldest);
    END IF;
  END IF;
  RETURN QUERY
  SELECT s.key, s.value, queen.format_millis(s.updated_at)
  FROM queen_streams.state s
  WHERE s.query_id = p_query_id AND s.partition_id = p_partition_id
    AND (p_keys IS NULL OR s.key = ANY (p_keys))
    AND (p_key_prefix IS NULL OR starts_with(s.key, p_key_prefix))
    AND (v_ripe_at IS NULL OR (jsonb_typeof(s.value -> 'windowEnd') = 'number'
                               AND (s.value ->> 'windowEnd')::numeric <= v_ripe_at))
  ORDER BY s.key;
END
$$;
