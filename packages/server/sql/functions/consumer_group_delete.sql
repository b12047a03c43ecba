-- consumer_group_delete: forget a consumer group on every queue (p_queue null) or on one queue (docs/api.md 7.7
-- rule 1): its cursors, with their leases and counters, and with p_delete_metadata its subscription records.
-- A later pop of the group starts as a new group, seeded per docs/api.md 5.7.
--   Parameters: p_group text, p_queue text, p_delete_metadata boolean.
--   Result: the number of (partition, group) cursor rows deleted.
--   Locks: the group's cursor rows FOR UPDATE in partition-id order, then deleted.
--   Notifies: queen_wake (origin '': every process, this one included) for each queue that lost cursors:
--     a released lease or a cursor that now restarts from its seed can make messages claimable again.
CREATE OR REPLACE FUNCTION queen.consumer_group_delete(p_group text, p_queue text, p_delete_metadata boolean)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_deleted integer := 0;
  v_queue record;
BEGIN
  PERFORM 1
  FROM queen.cursors c
  JOIN queen.partitions p ON p.id = c.partition_id
  JOIN queen.queues q ON q.id = p.queue_id
  WHERE c.consumer_group = p_group AND (p_queue IS NULL OR q.name = p_queue)
  ORDER BY c.partition_id
  FOR UPDATE OF c;

  FOR v_queue IN
    WITH deleted AS (
      DELETE FROM queen.cursors c
      USING queen.partitions p, queen.queues q
      WHERE c.consumer_group = p_group AND p.id = c.partition_id AND q.id = p.queue_id
        AND (p_queue IS NULL OR q.name = p_queue)
      RETURNING q.name, q.namespace, q.task, c.partition_id
    )
    SELECT d.name, d.namespace, d.task, count(*)::integer AS cursors, array_agg(d.partition_id) AS partition_ids
    FROM deleted d GROUP BY d.name, d.namespace, d.task
  LOOP
    v_deleted := v_deleted + v_queue.cursors;
    -- Each pair is seeded anew on its next contact: its backlog entry comes back.
    PERFORM queen.backlog_restore(v_queue.partition_ids, array_fill(p_group, ARRAY[v_queue.cursors]));
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
