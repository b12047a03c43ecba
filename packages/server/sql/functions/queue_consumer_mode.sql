-- queue_consumer_mode: who consumes a queue (docs/api.md 7.4 mode): whether queue mode contacted any of its
-- partitions, and how many named groups did. A missing queue has neither.
--   Parameters: p_queue text.
--   Result: one row (has_queue_mode, bus_groups_count).
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.queue_consumer_mode(p_queue text)
RETURNS TABLE (has_queue_mode boolean, bus_groups_count integer)
LANGUAGE sql STABLE AS $$
  SELECT coalesce(bool_or(c.consumer_group = '__QUEUE_MODE__'), false),
         (count(DISTINCT c.consumer_group) FILTER (WHERE c.consumer_group <> '__QUEUE_MODE__'))::integer
  FROM queen.queues q
  JOIN queen.partitions p ON p.queue_id = q.id
  JOIN queen.cursors c ON c.partition_id = p.id
  WHERE q.name = p_queue
$$;
