-- cursor_ready: whether a (partition, group) may have something to claim now: messages above the group's
-- cursor with no live lease and no retry delay, or messages and no cursor yet (the claim seeds it). A
-- superset of what a claim takes: delayedProcessing, windowBuffer and subscription seeding are the claim's.
--   Parameters: the partition's id and tail, the effective group.
--   Result: the answer.
--   Locks: none (one key look-up in cursors).
CREATE OR REPLACE FUNCTION queen.cursor_ready(p_partition_id uuid, p_tail bigint, p_group text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT p_tail > c.committed
                          AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= now())
                          AND (c.not_before IS NULL OR c.not_before <= now())
                   FROM queen.cursors c
                   WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group), p_tail > 0)
$$;
