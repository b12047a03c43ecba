-- message_at on Citus: the override of sql/functions/message_at.sql (its header is the contract) that Citus can
-- plan. The original is SQL-language over a distributed table, which Citus refuses ("parameterized queries for SQL
-- functions referencing distributed tables"); here PL/pgSQL with custom plans, segment_at's look-up inlined, so
-- the one statement names the partition id as a constant and is routed to its shard. Installed on Citus only,
-- after the original and again whenever the original is re-applied (store/citus-schema.ts).
--   Parameters: p_partition_id uuid, p_offset bigint.
--   Result: the message at that offset, or no row.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.message_at(p_partition_id uuid, p_offset bigint)
RETURNS TABLE (message_id uuid, transaction_id text, trace_id uuid, payload text, producer_sub text,
               created_at timestamptz, trace_context text)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT s.message_ids[x.i], s.transaction_ids[x.i], s.trace_ids[x.i], s.payloads[x.i], s.producer_subs[x.i],
         s.created_at, s.trace_contexts[x.i]
  FROM (SELECT seg.* FROM queen.segments seg
        WHERE seg.partition_id = p_partition_id AND seg.last_offset >= p_offset
        ORDER BY seg.last_offset LIMIT 1) s
  CROSS JOIN LATERAL (SELECT (p_offset - s.first_offset + 1)::integer AS i) x
  WHERE s.first_offset <= p_offset;
END
$$;
