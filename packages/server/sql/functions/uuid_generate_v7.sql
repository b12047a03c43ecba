-- uuid_generate_v7: SQL API v1 (docs/sql-api.md): a fresh version-7 UUID (uuid_v7, what the broker mints
-- in SQL).
--   Parameters: none.
--   Result: the UUID.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.uuid_generate_v7() RETURNS uuid
LANGUAGE sql VOLATILE AS $$
  SELECT queen.uuid_v7()
$$;
