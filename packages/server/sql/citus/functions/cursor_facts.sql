-- cursor_facts on Citus: the override of sql/functions/cursor_facts.sql (its header is the contract) that Citus
-- can plan: the same statement in PL/pgSQL with custom plans (Citus refuses a SQL-language function over a
-- distributed table); cursors and segments are joined on the partition id, so each shard answers its part.
-- Installed on Citus only, after the original and again whenever the original is re-applied
-- (store/citus-schema.ts).
--   Parameters: p_partition_ids uuid[].
--   Result: one row per contacted (partition, group) of p_partition_ids.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.cursor_facts(p_partition_ids uuid[])
RETURNS TABLE (partition_id uuid, consumer_group text, committed bigint, head bigint, live_span_end bigint,
               lease_expires_at text, recorded_span_end bigint, retry_count integer, claims_since_advance integer)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT c.partition_id, c.consumer_group, c.committed,
         (SELECT greatest(s.first_offset, c.committed + 1) FROM queen.segments s
          WHERE s.partition_id = c.partition_id AND s.last_offset > c.committed
          ORDER BY s.last_offset LIMIT 1),
         CASE WHEN c.lease_expires_at > now() THEN c.lease_span_end END,
         CASE WHEN c.lease_expires_at > now() THEN queen.format_millis(c.lease_expires_at) END,
         c.lease_span_end, c.retry_count, c.claims_since_advance
  FROM queen.cursors c
  WHERE c.partition_id = ANY (p_partition_ids)
  ORDER BY c.partition_id, c.consumer_group;
END
$$;
