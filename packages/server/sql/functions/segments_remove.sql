-- segments_remove: delete whole segments of a partition whose last offset lies in (p_after, p_through], the
-- lowest first, with everything that belongs to their messages: keys (transactionIds are freed), DLQ entries
-- and traces (message_traces_delete, as message delete and queue clear do). Takes segments while their
-- running total stays within p_budget messages; unless p_strict, always at least one (a segment larger than
-- the budget goes alone), so such a call makes progress. The caller holds the partition row lock.
--   Parameters: p_partition_id uuid, p_after bigint, p_through bigint, p_budget integer, p_strict boolean.
--   Result: one row per removed segment (first_offset, last_offset), in offset order.
--   Locks: none of its own; the caller holds the partition row lock.
CREATE OR REPLACE FUNCTION queen.segments_remove(p_partition_id uuid, p_after bigint, p_through bigint,
                                                 p_budget integer, p_strict boolean)
RETURNS TABLE (first_offset bigint, last_offset bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_first bigint[];
  v_last bigint[];
  v_transaction_ids text[];
BEGIN
  WITH chosen AS (
    SELECT c.last_offset
    FROM (SELECT s.last_offset,
                 sum(s.last_offset - s.first_offset + 1) OVER (ORDER BY s.last_offset) AS running,
                 row_number() OVER (ORDER BY s.last_offset) AS n
          FROM (SELECT s.first_offset, s.last_offset FROM queen.segments s
                WHERE s.partition_id = p_partition_id AND s.last_offset > p_after AND s.last_offset <= p_through
                ORDER BY s.last_offset
                LIMIT greatest(p_budget, 1)) s) c
    WHERE c.running <= p_budget OR (c.n = 1 AND NOT p_strict)
  ), removed AS (
    DELETE FROM queen.segments s
    USING chosen
    WHERE s.partition_id = p_partition_id AND s.last_offset = chosen.last_offset
    RETURNING s.first_offset, s.last_offset, s.transaction_ids
  )
  SELECT array_agg(r.first_offset ORDER BY r.last_offset), array_agg(r.last_offset ORDER BY r.last_offset),
         (SELECT array_agg(t.id) FROM removed r2 CROSS JOIN LATERAL unnest(r2.transaction_ids) AS t (id))
  INTO v_first, v_last, v_transaction_ids
  FROM removed r;
  IF v_last IS NULL THEN
    RETURN;
  END IF;

  DELETE FROM queen.message_keys k
  USING unnest(v_first, v_last) AS r (first_offset, last_offset)
  WHERE k.partition_id = p_partition_id AND k.transaction_id = ANY (v_transaction_ids)
    AND k.message_offset BETWEEN r.first_offset AND r.last_offset;
  DELETE FROM queen.dead_letters d
  USING unnest(v_first, v_last) AS r (first_offset, last_offset)
  WHERE d.partition_id = p_partition_id AND d.message_offset BETWEEN r.first_offset AND r.last_offset;
  PERFORM queen.message_traces_delete(p_partition_id, v_transaction_ids);

  RETURN QUERY SELECT r.first_offset, r.last_offset FROM unnest(v_first, v_last) AS r (first_offset, last_offset);
END
$$;
