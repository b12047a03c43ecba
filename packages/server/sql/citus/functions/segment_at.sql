-- segment_at, Citus override: the contract of sql/functions/segment_at.sql (same signature and result) in
-- PL/pgSQL. Citus cannot plan a SQL-language function over a distributed table called with parameters
-- ("parameterized queries for SQL functions referencing distributed tables are not supported"); in PL/pgSQL the
-- statement names the partition id as a value and Citus routes it to the partition's shard. Callers on the
-- coordinator: cursor_seek (seek). Single PostgreSQL keeps the SQL-language function, which its planner inlines.
-- Installed on Citus only (store/citus-schema.ts).
CREATE OR REPLACE FUNCTION queen.segment_at(p_partition_id uuid, p_offset bigint) RETURNS SETOF queen.segments
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan  -- planned with its values: Citus routes it
AS $$
BEGIN
  RETURN QUERY
  SELECT first.* FROM (
    SELECT s.* FROM queen.segments s
    WHERE s.partition_id = p_partition_id AND s.last_offset >= p_offset
    ORDER BY s.last_offset
    LIMIT 1
  ) first
  WHERE first.first_offset <= p_offset;
END
$$;
