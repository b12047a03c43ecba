-- depth: SQL API v1 (docs/sql-api.md): the messages of a queue a consumer group has not settled yet: the
-- retained messages above the group's cursor, leased ones included, summed over the queue's partitions (a
-- partition the group never contacted counts from where its cursor would start, docs/api.md 5.7). This is the
-- totalLag of GET /api/v1/consumer-groups. It reads segment rows (one per push commit) above each cursor.
--   Parameters: p_queue; p_consumer_group (default '__QUEUE_MODE__').
--   Result: the count; 0 for an unknown queue. Errors: 22023 for a name the rule refuses (api_name).
--   Locks: none (reads committed rows).
CREATE OR REPLACE FUNCTION queen.depth(p_queue text, p_consumer_group text DEFAULT '__QUEUE_MODE__') RETURNS bigint
LANGUAGE sql STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT queen.api_name(p_queue, 'queen.depth: p_queue'),
         queen.api_name(nullif(p_consumer_group, ''), 'queen.depth: p_consumer_group', true);
  SELECT coalesce(sum(d.n), 0)::bigint
  FROM queen.queues q
  JOIN queen.partitions p ON p.queue_id = q.id
  LEFT JOIN queen.cursors c ON c.partition_id = p.id
    AND c.consumer_group = coalesce(nullif(p_consumer_group, ''), '__QUEUE_MODE__')
  CROSS JOIN LATERAL (SELECT coalesce(c.committed, queen.cursor_seed(q.id, p.id, p.name,
                        coalesce(nullif(p_consumer_group, ''), '__QUEUE_MODE__'))) AS committed) b
  CROSS JOIN LATERAL (
    SELECT sum(s.last_offset - greatest(s.first_offset, b.committed + 1) + 1) AS n
    FROM queen.segments s
    WHERE s.partition_id = p.id AND s.last_offset > b.committed
  ) d
  WHERE q.name = p_queue
$$;
SELECT queen.api_grant('queen.depth(text, text)', ARRAY['consumer', 'admin']);
