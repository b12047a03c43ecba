-- segment_cut on Citus: the override of sql/functions/segment_cut.sql (its header is the contract) that Citus can
-- route. The original deletes `USING queen.segment_at(...)`: the DELETE is routed whole to the partition's worker,
-- where that helper is not installed. Here the segment is read first, then deleted by its key and replaced, each
-- statement naming the partition id as a constant (custom plans). Installed on Citus only, after the original and
-- again whenever the original is re-applied (store/citus-schema.ts).
--   Parameters: p_partition_id uuid, p_offset bigint.
--   Result: true when a message was at p_offset.
--   Locks: none of its own; the caller holds the partition row lock.
CREATE OR REPLACE FUNCTION queen.segment_cut(p_partition_id uuid, p_offset bigint) RETURNS boolean
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
  v_segment queen.segments;
  v_i integer;
  v_n integer;
BEGIN
  SELECT s.* INTO v_segment FROM queen.segments s
  WHERE s.partition_id = p_partition_id AND s.last_offset >= p_offset
  ORDER BY s.last_offset LIMIT 1;
  IF NOT FOUND OR v_segment.first_offset > p_offset THEN
    RETURN false;
  END IF;
  DELETE FROM queen.segments s WHERE s.partition_id = p_partition_id AND s.last_offset = v_segment.last_offset;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  v_i := (p_offset - v_segment.first_offset + 1)::integer;
  v_n := (v_segment.last_offset - v_segment.first_offset + 1)::integer;
  IF v_i > 1 THEN
    INSERT INTO queen.segments (partition_id, first_offset, last_offset, created_at, message_ids, transaction_ids,
                                trace_ids, payloads, producer_subs, trace_contexts)
    VALUES (p_partition_id, v_segment.first_offset, p_offset - 1, v_segment.created_at,
            v_segment.message_ids[1:v_i - 1], v_segment.transaction_ids[1:v_i - 1], v_segment.trace_ids[1:v_i - 1],
            v_segment.payloads[1:v_i - 1], v_segment.producer_subs[1:v_i - 1], v_segment.trace_contexts[1:v_i - 1]);
  END IF;
  IF v_i < v_n THEN
    INSERT INTO queen.segments (partition_id, first_offset, last_offset, created_at, message_ids, transaction_ids,
                                trace_ids, payloads, producer_subs, trace_contexts)
    VALUES (p_partition_id, p_offset + 1, v_segment.last_offset, v_segment.created_at,
            v_segment.message_ids[v_i + 1:v_n], v_segment.transaction_ids[v_i + 1:v_n], v_segment.trace_ids[v_i + 1:v_n],
            v_segment.payloads[v_i + 1:v_n], v_segment.producer_subs[v_i + 1:v_n], v_segment.trace_contexts[v_i + 1:v_n]);
  END IF;
  RETURN true;
END
$$;
