-- segment_at: the segment row holding offset p_offset of the partition, or no row (a removed message).
--   Parameters: p_partition_id uuid, p_offset bigint.
--   Reads the first row whose last_offset reaches p_offset through the primary key, then checks its start:
--   a filter inside the LIMIT would walk every later row when the offset falls in a gap.
--   Result: the segment row, or none.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.segment_at(p_partition_id uuid, p_offset bigint) RETURNS SETOF queen.segments
LANGUAGE sql STABLE AS $$
  SELECT first.* FROM (
    SELECT s.* FROM queen.segments s
    WHERE s.partition_id = p_partition_id AND s.last_offset >= p_offset
    ORDER BY s.last_offset
    LIMIT 1
  ) first
  WHERE first.first_offset <= p_offset
$$;
