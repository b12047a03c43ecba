-- uuid_v7_boundary: SQL API v1 (docs/sql-api.md): the smallest version-7 UUID of an instant, for range
-- conditions on time-ordered ids (id >= uuid_v7_boundary(t)); never an id to store (no random bits).
--   Parameters: p_time.
--   Result: the UUID.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.uuid_v7_boundary(p_time timestamptz) RETURNS uuid
LANGUAGE sql IMMUTABLE AS $$
  SELECT (lpad(to_hex(floor(extract(epoch FROM p_time) * 1000)::bigint), 12, '0') || '70008000000000000000')::uuid
$$;
