-- uuid_v7: a fresh RFC 9562 version-7 UUID (time-ordered ids for queues, partitions and messages minted in SQL).
--   Parameters: none.
--   Result: the UUID (uuid_generate_v7_at of the current instant).
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE AS $$
  SELECT queen.uuid_generate_v7_at(clock_timestamp())
$$;
