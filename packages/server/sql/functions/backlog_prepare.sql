-- backlog_prepare: make the backlog index of a (queue, group) ready for a wildcard pop, and say whether the
-- pop may walk it. The first wildcard pop of a pair registers it and fills its entries from the partitions;
-- later pops rebuild the entries when the last rebuild is older than p_every (entries go missing only through
-- an operator, a restore or a fault: the rebuild bounds the delay that causes to p_every, nothing is lost).
--   Registration is exact: it takes the queue's backlog lock exclusively (pushes hold it shared from before
--   they read the registrations until they commit, partitions_lock), so every push either committed before
--   the fill reads the partitions or runs after the registration committed and writes its own entries. The
--   lock is waited for at most 50 ms (pushes queue behind the request meanwhile); a pop that cannot have it,
--   or whose pair another pop is registering or rebuilding right now, walks every partition instead, as
--   before the index existed, and registration is tried again by the next pop.
--   Parameters: p_queue_id, p_queue_name, p_group; p_now the caller's clock; p_every how old a rebuild may get.
--   Result: true when the pair is registered (as this transaction sees it) and the pop walks the index;
--     false when it must walk the partitions.
--   Locks: a transaction-level advisory lock per (queue, group), taken with try (never waited for); at
--     registration the queue's backlog lock (backlog_lock_key) exclusively, held to the end of the pop.
--     Entries are inserted in partition-id order, the order push_messages inserts them in, so a rebuild and
--     a push waiting on each other's fresh entries cannot deadlock.
CREATE OR REPLACE FUNCTION queen.backlog_prepare(p_queue_id uuid, p_queue_name text, p_group text, p_now timestamptz,
                                                 p_every interval) RETURNS boolean
LANGUAGE plpgsql
SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  v_repaired timestamptz;
  v_registered boolean;
  v_lock_timeout text;
BEGIN
  SELECT g.repaired_at INTO v_repaired FROM queen.backlog_groups g
  WHERE g.queue_id = p_queue_id AND g.consumer_group = p_group;
  v_registered := v_repaired IS NOT NULL;
  IF v_registered AND v_repaired > p_now - p_every THEN
    RETURN true;
  END IF;
  IF NOT pg_try_advisory_xact_lock(hashtextextended('queen.backlog/' || p_queue_id::text || '/' || p_group, 0)) THEN
    RETURN v_registered;  -- another pop is registering or rebuilding this pair
  END IF;

  IF NOT v_registered THEN
    v_lock_timeout := current_setting('lock_timeout');
    PERFORM set_config('lock_timeout', '50ms', true);
    BEGIN
      PERFORM pg_advisory_xact_lock(queen.backlog_lock_key(p_queue_name));
    EXCEPTION WHEN lock_not_available THEN
      PERFORM set_config('lock_timeout', v_lock_timeout, true);
      RETURN false;
    END;
    PERFORM set_config('lock_timeout', v_lock_timeout, true);
  END IF;

  INSERT INTO queen.backlog_groups AS g (queue_id, consumer_group, repaired_at)
  VALUES (p_queue_id, p_group, p_now)
  ON CONFLICT (queue_id, consumer_group) DO UPDATE SET repaired_at = EXCLUDED.repaired_at
  WHERE g.repaired_at <= p_now - p_every;
  IF NOT FOUND THEN
    RETURN true;  -- registered or rebuilt meanwhile by a pop that committed before we took the lock
  END IF;
  -- One pass over the queue's partitions in id order (partitions_rotation_idx), each looked up by key in
  -- cursors, segments and backlog through scalar subqueries: the plan cannot become a join over whole
  -- tables, which a generic plan built while they were small chose (seconds for 10 000 partitions).
  INSERT INTO queen.backlog (queue_id, consumer_group, partition_id)
  SELECT p_queue_id, p_group, p.id
  FROM queen.partitions p
  CROSS JOIN LATERAL (
    SELECT coalesce((SELECT c.committed FROM queen.cursors c
                     WHERE c.partition_id = p.id AND c.consumer_group = p_group), 0) AS committed
  ) base
  WHERE p.queue_id = p_queue_id AND p.tail > base.committed
    AND (SELECT max(s.last_offset) FROM queen.segments s WHERE s.partition_id = p.id) > base.committed
    AND (SELECT true FROM queen.backlog b
         WHERE b.queue_id = p_queue_id AND b.consumer_group = p_group AND b.partition_id = p.id) IS NULL
  ORDER BY p.queue_id, p.id
  ON CONFLICT DO NOTHING;
  RETURN true;
END
$$;
