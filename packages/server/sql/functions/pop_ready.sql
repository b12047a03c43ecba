-- pop_ready: which of many parked pops' wait keys may have something to claim, in one statement. The broker
-- asks this instead of running one pop attempt per idle key on every backoff tick, and runs a real attempt
-- only for the keys it answers: so N idle parked keys cost a few statements per second, not N attempts.
--   It answers a superset of what an attempt would claim (never a subset: a key it leaves out waits for
--   a wake or the next tick): a key is ready when its partition (p_partitions[i] not null) or some partition
--   of its queue (wildcard) is ready for the group (cursor_ready). A wildcard pair registered with the
--   backlog index reads its entries; one not registered, or due for (or in the middle of) its rebuild, is
--   ready, so the attempt registers it or rebuilds its next slice (backlog_prepare): a missing entry delays
--   a parked pop no longer than it delays any pop. Every look-up is by key, in scalar subqueries, so no plan
--   reads a whole table whatever the statistics say.
--   Parameters: key i is (p_queues[i], p_partitions[i] or null for the wildcard, p_groups[i]), the group
--     being the effective one ('__QUEUE_MODE__' for queue mode).
--   Result: the 1-based positions of the ready keys, in no particular order. A queue that does not exist is
--     not ready (its creation by a push wakes the key).
--   Locks: none (reads committed rows only).
CREATE OR REPLACE FUNCTION queen.pop_ready(p_queues text[], p_partitions text[], p_groups text[])
RETURNS SETOF integer
LANGUAGE sql
STABLE
SET enable_seqscan = off            -- see README.md: hot paths never scan a table
SET plan_cache_mode = force_generic_plan
AS $$
  SELECT k.i::integer
  FROM unnest(p_queues, p_partitions, p_groups) WITH ORDINALITY AS k (queue_name, partition_name, consumer_group, i)
  CROSS JOIN LATERAL (SELECT (SELECT q.id FROM queen.queues q WHERE q.name = k.queue_name) AS queue_id) q
  WHERE q.queue_id IS NOT NULL AND CASE
    WHEN k.partition_name IS NOT NULL THEN coalesce((
      SELECT queen.cursor_ready(p.id, p.tail, k.consumer_group) FROM queen.partitions p
      WHERE p.queue_id::text || p.name = q.queue_id::text || k.partition_name), false) -- partitions_lookup_idx
    WHEN coalesce((SELECT g.repaired_at > now() - queen.backlog_rebuild_every() AND g.sweep_after IS NULL
                   FROM queen.backlog_groups g
                   WHERE g.queue_id = q.queue_id AND g.consumer_group = k.consumer_group), false) THEN coalesce((
      SELECT true FROM queen.backlog b
      WHERE b.queue_id = q.queue_id AND b.consumer_group = k.consumer_group
        AND (SELECT queen.cursor_ready(p.id, p.tail, k.consumer_group) FROM queen.partitions p WHERE p.id = b.partition_id)
      LIMIT 1), false)
    ELSE true
  END
$$;
