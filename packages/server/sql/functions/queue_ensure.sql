-- queue_ensure: the queue row for p_name, created with the implicit defaults when missing.
--   Parameters: p_name text.
--   namespace = text before the first '.', task = text between the first and second '.' (docs/api.md 1.10).
--   Locks: none beyond the unique-index wait of a concurrent creator.
--   Result: the queue row.
CREATE OR REPLACE FUNCTION queen.queue_ensure(p_name text) RETURNS queen.queues
LANGUAGE plpgsql AS $$
DECLARE
  v_queue queen.queues;
BEGIN
  SELECT * INTO v_queue FROM queen.queues WHERE name = p_name;
  IF FOUND THEN
    RETURN v_queue;
  END IF;
  INSERT INTO queen.queues (id, name, namespace, task)
  VALUES (queen.uuid_v7(), p_name, split_part(p_name, '.', 1), split_part(p_name, '.', 2))
  ON CONFLICT (name) DO NOTHING;
  SELECT * INTO STRICT v_queue FROM queen.queues WHERE name = p_name;
  RETURN v_queue;
END
$$;
