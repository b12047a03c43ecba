-- cursor_lock_key: the advisory-lock key under which a (partition, group) cursor row is first created.
--   Parameters: p_partition_id uuid, p_group text.
--   Result: a bigint key for pg_advisory_xact_lock.
--   Locks: none itself.
CREATE OR REPLACE FUNCTION queen.cursor_lock_key(p_partition_id uuid, p_group text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT hashtextextended(p_partition_id::text || '/' || p_group, 0)
$$;
