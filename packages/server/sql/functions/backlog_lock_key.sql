-- backlog_lock_key: the advisory-lock key that orders pushes into a queue against a pop registering a
-- (queue, group) with the backlog index: pushes hold it shared (partitions_lock), the registration
-- exclusively (backlog_prepare).
--   Parameters: the queue name.
--   Result: the key.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.backlog_lock_key(p_queue_name text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT hashtextextended('queen.backlog/' || p_queue_name, 0)
$$;
