-- queue_partitions_lock: lock the partition rows of a queue, or its one partition of that name, in name order (as
-- push_messages locks them); queue_clear's lock, the one step of it a Citus deployment does differently
-- (sql/citus/functions/queue_partitions_lock.sql).
--   Parameters: p_queue_id uuid; p_partition text, or null for every partition of the queue.
--   Result: the locked partitions' ids in name order; null when there is none.
--   Locks: those partition rows, FOR UPDATE.
CREATE OR REPLACE FUNCTION queen.queue_partitions_lock(p_queue_id uuid, p_partition text) RETURNS uuid[]
LANGUAGE sql AS $$
  SELECT array_agg(locked.id)
  FROM (SELECT p.id FROM queen.partitions p
        WHERE p.queue_id = p_queue_id AND (p_partition IS NULL OR p.name = p_partition)
        ORDER BY p.name
        FOR UPDATE) locked
$$;
