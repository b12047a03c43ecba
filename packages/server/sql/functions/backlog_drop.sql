-- backlog_drop: remove the backlog entry of a (partition, group) that has nothing above its cursor. Called by
-- pop_messages (a walk that finds the partition caught up, an autoAck claim that reaches the tail) and by
-- ack_messages (an ack that reaches the tail), each holding the cursor row lock, so the cursor cannot move
-- meanwhile; removing the entry where the partition empties keeps later walks from paying for it. The entry goes only
-- when no writer holds the partition: under the share lock no push can commit into it until this transaction
-- ends, and the push that comes next finds no entry and writes one. So a message is never left without an
-- entry by this removal.
--   Parameters: the entry (p_queue_id, p_group, p_partition_id) and the locked cursor's committed offset.
--   Skipped (nothing removed, no lock) inside SQL API calls (queen.api = on).
--   Result: none.
--   Locks: the partition row FOR SHARE SKIP LOCKED (a partition being written keeps its entry: the next pop
--     sees it again), taken only when the entry exists: a pair not registered with the index, or whose
--     entry is gone already, costs one index probe and writes nothing. Never waits, so a caller inside a
--     transaction that holds other locks (POST /transaction acks) cannot deadlock on it.
CREATE OR REPLACE FUNCTION queen.backlog_drop(p_queue_id uuid, p_group text, p_partition_id uuid, p_committed bigint)
RETURNS void
LANGUAGE plpgsql
SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  -- An SQL API call (queen.api = on) may sit inside a long application transaction: the share lock would
  -- hold the partition's pushes until it commits. It leaves the entry for the broker's next pop to drop.
  IF current_setting('queen.api', true) = 'on' THEN
    RETURN;
  END IF;
  PERFORM 1 FROM queen.backlog b
  WHERE b.queue_id = p_queue_id AND b.consumer_group = p_group AND b.partition_id = p_partition_id;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  PERFORM 1 FROM queen.partitions p WHERE p.id = p_partition_id FOR SHARE SKIP LOCKED;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  -- A new statement, so a snapshot taken under the lock: it sees every push that committed before it.
  IF EXISTS (SELECT 1 FROM queen.segments s WHERE s.partition_id = p_partition_id AND s.last_offset > p_committed) THEN
    RETURN;
  END IF;
  DELETE FROM queen.backlog b
  WHERE b.queue_id = p_queue_id AND b.consumer_group = p_group AND b.partition_id = p_partition_id;
END
$$;
