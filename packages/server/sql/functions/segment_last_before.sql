-- segment_last_before: the last offset of the newest segment of the partition created before p_before, or
-- null. Since created_at never decreases along a partition, the segments created before p_before are exactly
-- those whose last offset is at most this one. One probe of segments_created_idx.
--   Parameters: p_partition_id uuid, p_before timestamptz.
--   Result: that offset, or null.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.segment_last_before(p_partition_id uuid, p_before timestamptz) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT s.last_offset FROM queen.segments s
  WHERE s.partition_id = p_partition_id AND s.created_at < p_before
  ORDER BY s.created_at DESC, s.last_offset DESC
  LIMIT 1
$$;
