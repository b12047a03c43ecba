-- seek_offset, Citus override: the contract of sql/functions/seek_offset.sql (same signature and result) in
-- PL/pgSQL, for the reason segment_at's override gives (sql/citus/functions/segment_at.sql). Caller: cursor_seek.
-- Installed on Citus only (store/citus-schema.ts).
CREATE OR REPLACE FUNCTION queen.seek_offset(p_partition_id uuid, p_tail bigint, p_target timestamptz)
RETURNS bigint
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan  -- planned with its values: Citus routes it
AS $$
BEGIN
  RETURN coalesce(
    (SELECT s.last_offset FROM queen.segments s
     WHERE s.partition_id = p_partition_id AND s.created_at <= p_target
     ORDER BY s.created_at DESC, s.last_offset DESC
     LIMIT 1),
    (SELECT s.first_offset - 1 FROM queen.segments s
     WHERE s.partition_id = p_partition_id
     ORDER BY s.last_offset
     LIMIT 1),
    p_tail);
END
$$;
