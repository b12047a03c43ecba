-- queue_clear on Citus: the override of sql/functions/queue_clear.sql (its header is the contract) that Citus can
-- run: the partition rows locked one routed statement each, in name order (Citus refuses a FOR UPDATE over several
-- shards), the removed messages counted before the delete (no data-modifying CTE over a distributed table), the
-- traces deleted by one statement over the partition ids (message_traces_delete is SQL-language). The deletes span
-- workers: Citus commits them with two-phase commit. Installed on Citus only, after the original and again whenever
-- the original is re-applied (store/citus-schema.ts); a change to the original is made here too.
--   Parameters, Result, Locks, Notifies: the original's.
CREATE OR REPLACE FUNCTION queen.queue_clear(p_origin text, p_queue text, p_partition text)
RETURNS TABLE (outcome text, deleted_messages bigint, queue_namespace text, queue_task text)
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
DECLARE
  v_queue queen.queues;
  v_partition_ids uuid[];
  v_id uuid;
  v_deleted bigint;
  v_released integer;
BEGIN
  SELECT * INTO v_queue FROM queen.queues q WHERE q.name = p_queue;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'queue_not_found'::text, 0::bigint, NULL::text, NULL::text;
    RETURN;
  END IF;
  SELECT array_agg(p.id ORDER BY p.name) INTO v_partition_ids
  FROM queen.partitions p
  WHERE p.queue_id = v_queue.id AND (p_partition IS NULL OR p.name = p_partition);
  -- One routed lock per partition, in name order (Citus refuses FOR UPDATE over several shards).
  FOREACH v_id IN ARRAY coalesce(v_partition_ids, '{}') LOOP
    PERFORM 1 FROM queen.partitions p WHERE p.id = v_id FOR UPDATE;
  END LOOP;
  IF v_partition_ids IS NULL AND p_partition IS NOT NULL THEN
    RETURN QUERY SELECT 'partition_not_found'::text, 0::bigint, v_queue.namespace, v_queue.task;
    RETURN;
  END IF;
  v_partition_ids := coalesce(v_partition_ids, '{}');

  -- Counted, then deleted: the partitions are locked, so no push adds a segment in between.
  SELECT coalesce(sum(s.last_offset - s.first_offset + 1), 0)::bigint INTO v_deleted
  FROM queen.segments s WHERE s.partition_id = ANY (v_partition_ids);
  DELETE FROM queen.segments s WHERE s.partition_id = ANY (v_partition_ids);
  DELETE FROM queen.message_keys k WHERE k.partition_id = ANY (v_partition_ids);
  DELETE FROM queen.dead_letters d WHERE d.partition_id = ANY (v_partition_ids);
  DELETE FROM queen.traces t WHERE t.partition_id = ANY (v_partition_ids);

  UPDATE queen.cursors c
  SET lease_id = NULL, lease_span_end = NULL, lease_expires_at = NULL
  WHERE c.partition_id = ANY (v_partition_ids) AND c.lease_expires_at > now();
  GET DIAGNOSTICS v_released = ROW_COUNT;
  IF v_released > 0 THEN
    PERFORM pg_notify('queen_wake', json_build_object('origin', p_origin, 'queue', v_queue.name,
                      'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  END IF;
  RETURN QUERY SELECT 'cleared'::text, v_deleted, v_queue.namespace, v_queue.task;
END
$$;
