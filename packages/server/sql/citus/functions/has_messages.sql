-- has_messages, Citus override: the contract of sql/functions/has_messages.sql (same signature, answer, errors,
-- rights, grants and comment: CREATE OR REPLACE keeps them) in PL/pgSQL, with cursor_ready's test written into
-- the query as a join of the partitions to the group's cursors (co-located on the partition id, so Citus pushes
-- it down to every shard): Citus plans neither the SQL-language function nor cursor_ready per row on a worker.
-- Installed on Citus only (store/citus-schema.ts).
CREATE OR REPLACE FUNCTION queen.has_messages(p_queue text, p_partition text DEFAULT NULL,
                                              p_consumer_group text DEFAULT '__QUEUE_MODE__') RETURNS boolean
LANGUAGE plpgsql STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_custom_plan  -- planned with its values: Citus routes or pushes them down
AS $$
DECLARE
  v_group text := coalesce(nullif(p_consumer_group, ''), '__QUEUE_MODE__');
BEGIN
  PERFORM queen.api_name(p_queue, 'queen.has_messages: p_queue'),
          queen.api_name(p_partition, 'queen.has_messages: p_partition', true),
          queen.api_name(nullif(p_consumer_group, ''), 'queen.has_messages: p_consumer_group', true);
  RETURN EXISTS (
    SELECT 1 FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id
    LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = v_group
    WHERE q.name = p_queue AND (p_partition IS NULL OR p.name = p_partition)
      AND CASE WHEN c.partition_id IS NULL THEN p.tail > 0
               ELSE p.tail > c.committed AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= now())
                    AND (c.not_before IS NULL OR c.not_before <= now()) END);
END
$$;
