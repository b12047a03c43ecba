-- consumer_group_delete, Citus override: the contract of sql/functions/consumer_group_delete.sql (same signature,
-- result, locks and notifications). A FOR UPDATE over cursor rows of several shards is refused by Citus, so the
-- group's cursors are read first (a multi-shard read), then locked one by one in partition-id order (each
-- statement routed by its partition id), then deleted per queue by `partition_id = ANY` of its ids. A transaction that
-- spans workers commits with two-phase commit (docs/scale-out.md section 4). Callers: DELETE of a consumer group
-- and the SQL API's delete_consumer_group. Installed on Citus only (store/citus-schema.ts).
CREATE OR REPLACE FUNCTION queen.consumer_group_delete(p_group text, p_queue text, p_delete_metadata boolean)
RETURNS integer
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- planned with its values: Citus routes them
AS $$
DECLARE
  v_deleted integer := 0;
  v_cursor record;
  v_queue record;
BEGIN
  FOR v_cursor IN
    SELECT c.partition_id AS id
    FROM queen.cursors c
    JOIN queen.partitions p ON p.id = c.partition_id
    JOIN queen.queues q ON q.id = p.queue_id
    WHERE c.consumer_group = p_group AND (p_queue IS NULL OR q.name = p_queue)
    ORDER BY c.partition_id
  LOOP
    PERFORM 1 FROM queen.cursors c WHERE c.partition_id = v_cursor.id AND c.consumer_group = p_group FOR UPDATE;
  END LOOP;

  FOR v_queue IN
    SELECT q.name, q.namespace, q.task, array_agg(c.partition_id ORDER BY c.partition_id) AS partition_ids
    FROM queen.cursors c
    JOIN queen.partitions p ON p.id = c.partition_id
    JOIN queen.queues q ON q.id = p.queue_id
    WHERE c.consumer_group = p_group AND (p_queue IS NULL OR q.name = p_queue)
    GROUP BY q.name, q.namespace, q.task
  LOOP
    DELETE FROM queen.cursors c WHERE c.partition_id = ANY (v_queue.partition_ids) AND c.consumer_group = p_group;
    v_deleted := v_deleted + cardinality(v_queue.partition_ids);
    -- Each pair is seeded anew on its next contact: its backlog entry comes back.
    PERFORM queen.backlog_restore(v_queue.partition_ids, array_fill(p_group, ARRAY[cardinality(v_queue.partition_ids)]));
    PERFORM pg_notify('queen_wake', json_build_object(
      'origin', '', 'queue', v_queue.name, 'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  END LOOP;

  IF p_delete_metadata THEN
    DELETE FROM queen.subscriptions s
    USING queen.queues q
    WHERE s.consumer_group = p_group AND q.id = s.queue_id AND (p_queue IS NULL OR q.name = p_queue);
  END IF;
  RETURN v_deleted;
END
$$;
