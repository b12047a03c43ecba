-- uuid_generate_v7_at: SQL API v1 (docs/sql-api.md): an RFC 9562 version-7 UUID of a given instant: 48-bit
-- Unix milliseconds, then random bits with version and variant set (safe to store; uuid_v7 is this at the
-- current instant).
--   Parameters: p_time.
--   Result: the UUID.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.uuid_generate_v7_at(p_time timestamptz) RETURNS uuid
LANGUAGE sql VOLATILE AS $$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
              PLACING substring(int8send(floor(extract(epoch FROM p_time) * 1000)::bigint) FROM 3)
              FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;
