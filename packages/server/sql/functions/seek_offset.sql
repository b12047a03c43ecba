-- seek_offset: the committed offset a seek to p_target sets on a partition (docs/api.md 7.7 rule 3): the last
-- offset of the newest retained segment created at or before p_target; when none is that old, just below the
-- oldest retained message (everything retained is replayed); when nothing is retained, p_tail.
--   Parameters: p_partition_id uuid, p_tail bigint, p_target timestamptz.
--   Result: the committed offset.
--   Locks: none; cursor_seek holds the cursor row.
CREATE OR REPLACE FUNCTION queen.seek_offset(p_partition_id uuid, p_tail bigint, p_target timestamptz)
RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    (SELECT s.last_offset FROM queen.segments s
     WHERE s.partition_id = p_partition_id AND s.created_at <= p_target
     ORDER BY s.created_at DESC, s.last_offset DESC
     LIMIT 1),
    (SELECT s.first_offset - 1 FROM queen.segments s
     WHERE s.partition_id = p_partition_id
     ORDER BY s.last_offset
     LIMIT 1),
    p_tail)
$$;
