-- cursor_facts: for every contacted (partition, group) of the given partitions, what the message views of
-- docs/api.md 7.4 need: the committed offset; the head (first retained offset above it, null when none); the
-- live lease's span end and expiry (null when no lease is live); the last recorded span end (kept after
-- expiry until the next claim); the retry counter; the claims since the cursor last advanced.
--   Parameters: p_partition_ids uuid[].
--   Result: one row per contacted (partition, group) of p_partition_ids.
--   Locks: none (a consistent snapshot read).
CREATE OR REPLACE FUNCTION queen.cursor_facts(p_partition_ids uuid[])
RETURNS TABLE (partition_id uuid, consumer_group text, committed bigint, head bigint, live_span_end bigint,
               lease_expires_at text, recorded_span_end bigint, retry_count integer, claims_since_advance integer)
LANGUAGE sql STABLE AS $$
  SELECT c.partition_id, c.consumer_group, c.committed,
         (SELECT greatest(s.first_offset, c.committed + 1) FROM queen.segments s
          WHERE s.partition_id = c.partition_id AND s.last_offset > c.committed
          ORDER BY s.last_offset LIMIT 1),
         CASE WHEN c.lease_expires_at > now() THEN c.lease_span_end END,
         CASE WHEN c.lease_expires_at > now() THEN queen.format_millis(c.lease_expires_at) END,
         c.lease_span_end, c.retry_count, c.claims_since_advance
  FROM queen.cursors c
  WHERE c.partition_id = ANY (p_partition_ids)
  ORDER BY c.partition_id, c.consumer_group
$$;
