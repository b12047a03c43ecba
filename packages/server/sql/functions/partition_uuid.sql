-- partition_uuid: the id of partition (p_queue, p_partition), computed from the names (docs/scale-out.md,
-- section 1): an RFC 9562 version-8 UUID made of the first 16 bytes of SHA-256(UTF-8 queue name, a 0x00 byte,
-- UTF-8 partition name), with the version and variant bits set. 0x00 never occurs in a text, so the pair is
-- unambiguous. Any process can compute the id of a partition, and so the Citus shard that holds it, without a
-- look-up; the same names always give the same id (a queue deleted and re-created gets its partitions' ids back,
-- queue_delete having removed every row keyed by them). Partitions created before this function keep the random
-- v7 ids they were given; rows are found by name, never by recomputing the id.
--   Parameters: p_queue, p_partition the names (null: null).
--   Result: the id.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.partition_uuid(p_queue text, p_partition text) RETURNS uuid
-- IMMUTABLE although convert_to is STABLE (README.md's rule of declaring a helper no stricter than its body has
-- this one exception): a database's encoding never changes, so the result only depends on the arguments, and
-- only an IMMUTABLE call with constant arguments is folded to a constant at planning, which Citus needs to route
-- `partition_id = queen.partition_uuid('q', 'p')` to one shard (STABLE: every shard was read; test/citus/).
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
  SELECT encode(set_byte(set_byte(h, 6, (get_byte(h, 6) & 15) | 128), 8, (get_byte(h, 8) & 63) | 128), 'hex')::uuid
  FROM (SELECT substring(sha256(convert_to(p_queue, 'UTF8') || '\x00'::bytea || convert_to(p_partition, 'UTF8'))
                         FROM 1 FOR 16) AS h) x
$$;
