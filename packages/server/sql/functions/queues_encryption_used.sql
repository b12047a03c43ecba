-- queues_encryption_used: the trigger that keeps queues.encryption_used, whether the queue has ever had
-- encryption_enabled and so may hold sealed payloads. It never goes back to false (switching the option off
-- leaves the sealed messages). The broker reads it to decide whether an autoAck pop must run its claim and
-- the decryption in one explicit transaction (core/pop-payloads.ts). A trigger, so every writer of the option
-- (queue_configure, or anything later) maintains it.
--   Parameters: the row being inserted or updated.
--   Result: the row with encryption_used set.
--   Locks: none beyond the row being written.
CREATE OR REPLACE FUNCTION queen.queues_encryption_used() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.encryption_used := NEW.encryption_enabled;
  IF TG_OP = 'UPDATE' THEN
    NEW.encryption_used := NEW.encryption_used OR OLD.encryption_used;
  END IF;
  RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER queues_encryption_used
BEFORE INSERT OR UPDATE OF encryption_enabled, encryption_used ON queen.queues
FOR EACH ROW EXECUTE FUNCTION queen.queues_encryption_used();
