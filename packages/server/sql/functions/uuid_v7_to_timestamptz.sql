-- uuid_v7_to_timestamptz: SQL API v1 (docs/sql-api.md): the instant (milliseconds) a version-7 UUID
-- carries in its first 48 bits (a message id: when the message was minted).
--   Parameters: p_uuid.
--   Result: the timestamp.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.uuid_v7_to_timestamptz(p_uuid uuid) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$
  SELECT to_timestamp(('x' || substr(replace(p_uuid::text, '-', ''), 1, 12))::bit(48)::bigint / 1000.0)
$$;
