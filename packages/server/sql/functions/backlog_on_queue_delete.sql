-- backlog_on_queue_delete: the trigger that removes every backlog entry of a queue being deleted, before the
-- deletion cascades to its partitions and registrations (whose triggers then find nothing left to do).
--   Parameters: the queue row being deleted.
--   Result: the row (a BEFORE trigger lets the deletion go on).
--   Locks: the entries deleted.
CREATE OR REPLACE FUNCTION queen.backlog_on_queue_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM queen.backlog b WHERE b.queue_id = OLD.id;
  RETURN OLD;
END
$$;

CREATE OR REPLACE TRIGGER backlog_on_queue_delete
BEFORE DELETE ON queen.queues
FOR EACH ROW EXECUTE FUNCTION queen.backlog_on_queue_delete();
