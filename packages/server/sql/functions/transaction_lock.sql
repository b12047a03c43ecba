-- transaction_lock: take every lock a transaction's operations will need, in the global order, before the
-- first operation runs (docs/api.md 7.1). Operations run in the client's order; without this, two transactions
-- touching the same partitions in opposite orders would deadlock.
--   Parameters: the (queue, partition) of every push item (already checked), the (partition id, group) of
--     every ack.
--   Effects: missing queues are created (implicit defaults) and missing partitions created, as push_messages
--     would; everything rolls back with the transaction.
--   Locks: queue rows created in name order; partition rows FOR UPDATE in (queue name, partition name)
--     order; then per (partition id, group) in that order the cursor row FOR UPDATE, or, for a pair not
--     contacted yet, the advisory lock under which ack_messages creates it. push_messages and ack_messages
--     later take the same locks again, which they already hold.
--   Result: none; the locks are held until the transaction ends.
CREATE OR REPLACE FUNCTION queen.transaction_lock(p_queue text[], p_partition text[], p_ack_partition_id uuid[],
                                                 p_ack_group text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_key record;
BEGIN
  PERFORM queen.partitions_lock(p_queue, p_partition);

  FOR v_key IN
    SELECT DISTINCT t.partition_id, t.consumer_group
    FROM unnest(p_ack_partition_id, p_ack_group) AS t (partition_id, consumer_group)
    ORDER BY 1, 2
  LOOP
    PERFORM 1 FROM queen.cursors c
    WHERE c.partition_id = v_key.partition_id AND c.consumer_group = v_key.consumer_group FOR UPDATE;
    IF NOT FOUND THEN
      PERFORM pg_advisory_xact_lock(queen.cursor_lock_key(v_key.partition_id, v_key.consumer_group));
    END IF;
  END LOOP;
END
$$;
