-- streams_queue_state_delete: when a queue is deleted, the state of its partitions goes with it (every query's).
-- The trigger (created here, after its function) fires before the queue row goes, while its partitions still
-- exist (they cascade from the queue row). Retention's partition clean-up deletes partition rows, not queues,
-- so it keeps operator state (docs/streams.md).
--   Parameters: none (a row trigger on queen.queues; OLD is the queue row).
--   Result: OLD (the delete proceeds).
--   Locks: the state rows it deletes; queue_delete holds the queue row FOR UPDATE, which cycles of the queue
--     wait for (they take it FOR KEY SHARE), so no cycle can write state of the queue behind this delete.
CREATE OR REPLACE FUNCTION queen.streams_queue_state_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM queen_streams.state s
  USING queen.partitions p
  WHERE p.queue_id = OLD.id AND s.partition_id = p.id;
  RETURN OLD;
END
$$;

CREATE OR REPLACE TRIGGER queues_streams_state_delete BEFORE DELETE ON queen.queues
FOR EACH ROW EXECUTE FUNCTION queen.streams_queue_state_delete();
