-- streams_shard_lock_key: the transaction-scoped advisory lock key of one shard; every cycle of the shard takes it
-- first, so cycles and flush cycles of one shard are serialised across broker processes.
--   Parameters: the shard (query id, source partition id).
--   Result: the bigint key for pg_advisory_xact_lock.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.streams_shard_lock_key(p_query_id uuid, p_partition_id uuid) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT hashtextextended('streams:' || p_query_id::text || ':' || p_partition_id::text, 0)
$$;
