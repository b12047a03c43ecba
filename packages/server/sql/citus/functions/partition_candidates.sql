-- partition_candidates: the partitions a wildcard or discovery pop may claim on Citus, in walk order (docs/scale-out.md
-- sections 4 and 7). Installed on Citus only (store/citus-schema.ts). Both walks read it: the broker's
-- (store/citus-claims.ts) and the pop_messages override's (the SQL API's consume), which then claim each with
-- partition_claim.
--   Parameters: p_queue the queue (a wildcard pop) or null; p_namespace, p_task the discovery filters or null;
--             p_group the effective group; p_after the partition served last (the walk rotates after it);
--             p_limit how many candidates.
--   Result:   partitions with a tail above the group's cursor, not leased, not in retry delay; by queue priority,
--             then partition id after p_after, wrapping around; with the queue's id, name and minPopWaitTime.
--   Cost:     one multi-shard read (pushed down to every shard: partitions and cursors are co-located). That read
--             fails as a whole while any worker is unreachable (SQLSTATE class 08); the candidates are then read
--             shard by shard (run_command_on_colocated_placements, one command per shard placement, in
--             parallel), a placement of an unreachable node skipped, so the live workers' partitions keep
--             serving and only the down worker's wait. A failure of another kind raises.
--   Locks:    none (reads only; the claims that follow take their own).
CREATE OR REPLACE FUNCTION queen.partition_candidates(
  p_queue text,
  p_namespace text,
  p_task text,
  p_group text,
  p_after uuid,
  p_limit integer
) RETURNS TABLE (id uuid, queue_id uuid, queue text, min_pop_wait_time integer)
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- planned with its values
AS $$
DECLARE
  v_ids uuid[];
  v_queue_ids uuid[];
  v_queues uuid[];
  v_priorities integer[];
  v_command text;
  v_results text[];
  v_failure text;
BEGIN
  BEGIN
    -- Read into arrays inside the block: a failed read leaves no partial result behind.
    SELECT array_agg(c.id ORDER BY c.priority DESC, c.id <= p_after, c.id),
           array_agg(c.queue_id ORDER BY c.priority DESC, c.id <= p_after, c.id)
    INTO v_ids, v_queue_ids
    FROM (SELECT p.id, p.queue_id, q.priority
          FROM queen.partitions p
          JOIN queen.queues q ON q.id = p.queue_id
          LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = p_group
          WHERE (p_queue IS NULL OR q.name = p_queue) AND (p_namespace IS NULL OR q.namespace = p_namespace)
            AND (p_task IS NULL OR q.task = p_task)
            AND p.tail > coalesce(c.committed, 0)
            AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= now())
            AND (c.not_before IS NULL OR c.not_before <= now())
          ORDER BY q.priority DESC, p.id <= p_after, p.id
          LIMIT p_limit) c;
    RETURN QUERY
    SELECT u.id, u.queue_id, q.name, q.min_pop_wait_time
    FROM unnest(v_ids, v_queue_ids) WITH ORDINALITY AS u (id, queue_id, n)
    JOIN queen.queues q ON q.id = u.queue_id
    ORDER BY u.n;
    RETURN;
  EXCEPTION WHEN connection_exception THEN
    NULL;  -- a worker is unreachable: read the shards one by one below
  END;

  SELECT array_agg(q.id ORDER BY q.id), array_agg(q.priority ORDER BY q.id) INTO v_queues, v_priorities
  FROM queen.queues q
  WHERE (p_queue IS NULL OR q.name = p_queue) AND (p_namespace IS NULL OR q.namespace = p_namespace)
    AND (p_task IS NULL OR q.task = p_task);
  IF v_queues IS NULL THEN
    RETURN;
  END IF;
  -- Each shard returns its first p_limit candidates in walk order (priority looked up by the queue's position).
  v_command := format($command$
    SELECT coalesce(json_agg(json_build_array(p.id, p.queue_id)), '[]') FROM (
      SELECT p.id, p.queue_id FROM %%s p
      LEFT JOIN %%s c ON c.partition_id = p.id AND c.consumer_group = %L
      WHERE p.queue_id = ANY (%L::uuid[]) AND p.tail > coalesce(c.committed, 0)
        AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= now())
        AND (c.not_before IS NULL OR c.not_before <= now())
      ORDER BY (%L::integer[])[array_position(%L::uuid[], p.queue_id)] DESC, p.id <= %L::uuid, p.id
      LIMIT %s) p$command$,
    p_group, v_queues, v_priorities, v_queues, p_after, p_limit);
  SELECT array_agg(r.result) FILTER (WHERE r.success),
         min(r.result) FILTER (WHERE NOT r.success AND r.result NOT LIKE 'failed to connect to %')
  INTO v_results, v_failure
  FROM run_command_on_colocated_placements('queen.partitions', 'queen.cursors', v_command) r;
  IF v_failure IS NOT NULL THEN
    RAISE EXCEPTION 'candidate read failed on a shard: %', v_failure;
  END IF;
  RETURN QUERY
  SELECT (e.value ->> 0)::uuid, q.id, q.name, q.min_pop_wait_time
  FROM unnest(v_results) AS s (result)
  CROSS JOIN LATERAL json_array_elements(s.result::json) AS e (value)
  JOIN queen.queues q ON q.id = (e.value ->> 1)::uuid
  ORDER BY q.priority DESC, (e.value ->> 0)::uuid <= p_after, (e.value ->> 0)::uuid
  LIMIT p_limit;
END
$$;
