-- segment_cut: take the message at p_offset out of its segment row, leaving every other message at its
-- offset: the row is replaced by the run before p_offset and the run after it (either may be empty), both
-- with the row's created_at. The caller holds the partition row lock.
--   Parameters: p_partition_id uuid, p_offset bigint.
--   Result: true when a message was at p_offset.
--   Locks: none of its own; the caller holds the partition row lock.
CREATE OR REPLACE FUNCTION queen.segment_cut(p_partition_id uuid, p_offset bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_segment queen.segments;
  v_i integer;
  v_n integer;
BEGIN
  DELETE FROM queen.segments s
  USING queen.segment_at(p_partition_id, p_offset) found
  WHERE s.partition_id = p_partition_id AND s.last_offset = found.last_offset
  RETURNING s.* INTO v_segment;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  v_i := (p_offset - v_segment.first_offset + 1)::integer;
  v_n := (v_segment.last_offset - v_segment.first_offset + 1)::integer;
  INSERT INTO queen.segments (partition_id, first_offset, last_offset, created_at, message_ids, transaction_ids,
                              trace_ids, payloads, producer_subs, trace_contexts)
  SELECT p_partition_id, r.first_offset, r.last_offset, v_segment.created_at,
         v_segment.message_ids[r.lo:r.hi], v_segment.transaction_ids[r.lo:r.hi], v_segment.trace_ids[r.lo:r.hi],
         v_segment.payloads[r.lo:r.hi], v_segment.producer_subs[r.lo:r.hi], v_segment.trace_contexts[r.lo:r.hi]
  FROM (VALUES (v_segment.first_offset, p_offset - 1, 1, v_i - 1),
               (p_offset + 1, v_segment.last_offset, v_i + 1, v_n)) AS r (first_offset, last_offset, lo, hi)
  WHERE r.first_offset <= r.last_offset;
  RETURN true;
END
$$;
