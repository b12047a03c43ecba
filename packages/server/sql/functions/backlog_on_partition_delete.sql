-- backlog_on_partition_delete: the trigger that removes a deleted partition's backlog entries (partition
-- cleanup, queue deletion), one index probe per registered group of its queue.
--   Parameters: the partition row deleted.
--   Result: none (an AFTER trigger).
--   Locks: the entries deleted.
CREATE OR REPLACE FUNCTION queen.backlog_on_partition_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM queen.backlog b
  WHERE b.queue_id = OLD.queue_id AND b.partition_id = OLD.id
    AND b.consumer_group = ANY (ARRAY(SELECT g.consumer_group FROM queen.backlog_groups g WHERE g.queue_id = OLD.queue_id));
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER backlog_on_partition_delete
AFTER DELETE ON queen.partitions
FOR EACH ROW EXECUTE FUNCTION queen.backlog_on_partition_delete();
