-- backlog_prepare: make the backlog index of a (queue, group) ready for a wildcard pop, and say whether the
-- pop may walk it. The first wildcard pop of a pair registers it and fills its entries from every partition;
-- once the last rebuild is older than p_every, each pop rebuilds the next slice of c_slice partitions (in id
-- order, from sweep_after) until the sweep has covered them all. Entries go missing only through an
-- operator, a restore or a fault: the rebuild bounds the delay that causes to p_every plus one sweep, and
-- nothing is lost. A slice bounds what one pop adds: a rebuild of 100 000 partitions in one pop held every
-- push whose entry it had just written (their inserts wait for its commit) for a second.
--   Registration is exact: it takes the queue's backlog lock exclusively (pushes hold it shared from before
--   they read the registrations until they commit, partitions_lock), so every push either committed before
--   the fill reads the partitions or runs after the registration committed and writes its own entries. The
--   lock is waited for at most 50 ms (pushes queue behind the request meanwhile); a pop that cannot have it,
--   or whose pair another pop is registering or rebuilding right now, walks every partition instead, as
--   before the index existed, and registration is tried again by the next pop.
--   Parameters: p_queue_id, p_queue_name, p_group; p_now the caller's clock; p_every how old a rebuild may get.
--   An SQL API call (queen.api = on) only reads: it never registers or rebuilds (see below).
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
  c_slice constant integer := 1000;
  v_pair queen.backlog_groups;
  v_registered boolean;
  v_lock_timeout text;
  v_covered integer;
  v_last uuid;
BEGIN
  SELECT * INTO v_pair FROM queen.backlog_groups g WHERE g.queue_id = p_queue_id AND g.consumer_group = p_group;
  v_registered := FOUND;
  IF v_registered AND v_pair.repaired_at > p_now - p_every AND v_pair.sweep_after IS NULL THEN
    RETURN true;
  END IF;
  -- An SQL API call (queen.api = on) runs inside an application's transaction, which may last: it walks a
  -- fresh index but never registers or rebuilds one, whose lock would hold every push to the queue until
  -- that application commits. It walks the partitions instead; the broker's next pop does the work.
  IF current_setting('queen.api', true) = 'on' THEN
    RETURN false;
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
  -- Under the pair's lock: what a pop that committed meanwhile left (it may have registered or rebuilt it).
  SELECT * INTO v_pair FROM queen.backlog_groups g WHERE g.queue_id = p_queue_id AND g.consumer_group = p_group;
  v_registered := FOUND;
  IF v_registered AND v_pair.repaired_at > p_now - p_every AND v_pair.sweep_after IS NULL THEN
    RETURN true;
  END IF;
  -- An SQL API call (queen.api = on) runs inside an application's transaction, which may last: it walks a
  -- fresh index but never registers or rebuilds one, whose lock would hold every push to the queue until
  -- that application commits. It walks the partitions instead; the broker's next pop does the work.
  IF current_setting('queen.api', true) = 'on' THEN
    RETURN false;
  END IF;

  -- The partitions of this slice (all of them at registration), in id order (partitions_rotation_idx); the
  -- cursor, the newest segment and the existing entry of each are looked up by key in scalar subqueries, so
  -- the plan cannot become a join over whole tables, which a generic plan built while they were small chose
  -- (seconds for 10 000 partitions). The slice starts with a row comparison on (queue_id, id), which only
  -- partitions_rotation_idx can serve: with `p.id > ...` the generic plan walked partitions_pkey from that
  -- id and filtered on the queue, i.e. read every partition of every queue (42 ms per registration of a
  -- new queue next to one of 100 000 partitions; each UUIDv7 queue's partitions sort last).
  WITH slice AS MATERIALIZED (
    SELECT p.id, p.tail FROM queen.partitions p
    WHERE p.queue_id = p_queue_id
      AND (p.queue_id, p.id) > (p_queue_id, coalesce(v_pair.sweep_after, '00000000-0000-0000-0000-000000000000'::uuid))
    ORDER BY p.queue_id, p.id
    LIMIT CASE WHEN v_registered THEN c_slice END
  ), filled AS (
    INSERT INTO queen.backlog (queue_id, consumer_group, partition_id)
    SELECT p_queue_id, p_group, slice.id
    FROM slice
    CROSS JOIN LATERAL (
      SELECT coalesce((SELECT c.committed FROM queen.cursors c
                       WHERE c.partition_id = slice.id AND c.consumer_group = p_group), 0) AS committed
    ) base
    WHERE slice.tail > base.committed
      AND (SELECT max(s.last_offset) FROM queen.segments s WHERE s.partition_id = slice.id) > base.committed
      AND (SELECT true FROM queen.backlog b
           WHERE b.queue_id = p_queue_id AND b.consumer_group = p_group AND b.partition_id = slice.id) IS NULL
    ORDER BY slice.id
    ON CONFLICT DO NOTHING
  )
  SELECT count(*)::integer, (SELECT slice.id FROM slice ORDER BY slice.id DESC LIMIT 1) INTO v_covered, v_last FROM slice;

  IF v_registered AND v_covered >= c_slice THEN
    UPDATE queen.backlog_groups g SET sweep_after = v_last
    WHERE g.queue_id = p_queue_id AND g.consumer_group = p_group;
  ELSE  -- registered now, or the sweep is complete
    INSERT INTO queen.backlog_groups AS g (queue_id, consumer_group, repaired_at, sweep_after)
    VALUES (p_queue_id, p_group, p_now, NULL)
    ON CONFLICT (queue_id, consumer_group) DO UPDATE SET repaired_at = EXCLUDED.repaired_at, sweep_after = NULL;
  END IF;
  RETURN true;
END
$$;
