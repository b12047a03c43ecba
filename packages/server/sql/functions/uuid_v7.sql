-- uuid_v7: a fresh RFC 9562 version-7 UUID (time-ordered ids for queues, partitions and messages minted in SQL).
--   Parameters: none.
--   Result: the UUID.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE AS $$
  -- RFC 9562 version 7: 48-bit Unix milliseconds, then random bits with version and variant set.
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
              PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
              FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;
