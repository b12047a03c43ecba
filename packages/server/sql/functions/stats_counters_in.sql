-- stats_counters_in: the counter rows with bucket in [p_from, p_to] that match the filters of the status and
-- analytics routes (a null filter matches everything). Namespace and task are those of the queue named by
-- the row, so rows of no queue ('') and of deleted queues only match when neither is given. Inlined by the
-- planner: callers aggregate over it with the bucket range on the primary key.
--   Parameters: p_from timestamptz, p_to timestamptz, p_queue text, p_namespace text, p_task text,
--     p_hostname text, p_server_id text.
--   Result: the matching stats_counters rows.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.stats_counters_in(p_from timestamptz, p_to timestamptz, p_queue text,
                                                   p_namespace text, p_task text, p_hostname text,
                                                   p_server_id text)
RETURNS SETOF queen.stats_counters
LANGUAGE sql STABLE AS $$
  SELECT c.* FROM queen.stats_counters c
  WHERE c.bucket >= p_from AND c.bucket <= p_to
    AND (p_queue IS NULL OR c.queue_name = p_queue)
    AND (p_hostname IS NULL OR c.hostname = p_hostname)
    AND (p_server_id IS NULL OR c.server_id = p_server_id)
    AND ((p_namespace IS NULL AND p_task IS NULL) OR EXISTS (
      SELECT 1 FROM queen.queues q
      WHERE q.name = c.queue_name AND (p_namespace IS NULL OR q.namespace = p_namespace)
        AND (p_task IS NULL OR q.task = p_task)))
$$;
