-- has_messages: SQL API v1 (docs/sql-api.md): whether a consume of the group may find something now: some
-- partition of the queue (or p_partition) has messages above the group's cursor, no live lease and no retry
-- delay running (cursor_ready, the test the broker's parked pops use). It can answer true for messages a
-- claim still holds back (delayedProcessing, windowBuffer, a subscription starting later); never false
-- while a claim would succeed.
--   Parameters: p_queue; p_partition (default null: any); p_consumer_group (default '__QUEUE_MODE__').
--   Result: the answer; false for an unknown queue or partition. Errors: 22023 for a name the rule refuses
--     (api_name).
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.has_messages(p_queue text, p_partition text DEFAULT NULL,
                                              p_consumer_group text DEFAULT '__QUEUE_MODE__') RETURNS boolean
LANGUAGE sql STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT queen.api_name(p_queue, 'queen.has_messages: p_queue'),
         queen.api_name(p_partition, 'queen.has_messages: p_partition', true),
         queen.api_name(nullif(p_consumer_group, ''), 'queen.has_messages: p_consumer_group', true);
  SELECT EXISTS (
    SELECT 1 FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id
    WHERE q.name = p_queue AND (p_partition IS NULL OR p.name = p_partition)
      AND queen.cursor_ready(p.id, p.tail, coalesce(nullif(p_consumer_group, ''), '__QUEUE_MODE__')))
$$;
SELECT queen.api_grant('queen.has_messages(text, text, text)', ARRAY['consumer', 'admin']);
