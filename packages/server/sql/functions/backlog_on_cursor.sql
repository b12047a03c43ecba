-- backlog_on_cursor: the trigger that gives a (partition, group) its backlog entry back when its cursor moves
-- back (seek) or disappears (consumer-group deletion, queue or partition removal): messages below the old
-- cursor become deliverable again, or the pair is seeded anew on its next contact. Only pairs registered with
-- the index get entries. A trigger, so every writer of cursors (cursor_seek, consumer_group_delete, anything
-- later) keeps the index; the periodic rebuild (backlog_prepare) would find these too, only later.
--   Parameters: the cursor row updated (committed moved back) or deleted.
--   Result: none (an AFTER trigger).
--   Locks: inserts one entry; no other lock.
CREATE OR REPLACE FUNCTION queen.backlog_on_cursor() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO queen.backlog (queue_id, consumer_group, partition_id)
  SELECT p.queue_id, OLD.consumer_group, OLD.partition_id
  FROM queen.partitions p
  JOIN queen.backlog_groups g ON g.queue_id = p.queue_id AND g.consumer_group = OLD.consumer_group
  WHERE p.id = OLD.partition_id
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER backlog_on_cursor_back
AFTER UPDATE OF committed ON queen.cursors
FOR EACH ROW WHEN (NEW.committed < OLD.committed) EXECUTE FUNCTION queen.backlog_on_cursor();

CREATE OR REPLACE TRIGGER backlog_on_cursor_delete
AFTER DELETE ON queen.cursors
FOR EACH ROW EXECUTE FUNCTION queen.backlog_on_cursor();
