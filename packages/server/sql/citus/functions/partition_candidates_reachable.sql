-- partition_candidates_reachable: the candidates of a wildcard or discovery pop read shard by shard, leaving out
-- the shards of a worker that is down (docs/scale-out.md section 7). Installed on Citus only
-- (store/citus-schema.ts). The broker's walk (store/citus-claims.ts) reads its candidates with one multi-shard
-- statement, which fails as a whole while any worker is unreachable; it then calls this, so the live workers'
-- partitions keep serving and only the down worker's wait.
--   Parameters: p_queue the queue (a wildcard pop) or null; p_namespace, p_task the discovery filters or null;
--             p_group the effective group; p_after the partition served last (the walk rotates after it);
--             p_limit how many candidates.
--   Result:   the rows and order of the walk's multi-shard read (citus-claims.ts CANDIDATES) over the reachable
--             shards: partitions with a tail above the group's cursor, not leased, not in retry delay, by queue
--             priority, then partition id after p_after, wrapping around.
--   Cost:     one command per shard placement (run_command_on_colocated_placements, in parallel), each reading
--             its shard's partitions and cursors; the queues are read on the coordinator (a reference table).
--   Errors:   a placement that fails for another reason than an unreachable node raises its error.
--   Locks:    none (reads only; the claims that follow take their own).
CREATE OR REPLACE FUNCTION queen.partition_candidates_reachable(
  p_queue text,
  p_namespace text,
  p_task text,
  p_group text,
  p_after uuid,
  p_limit integer
) RETURNS TABLE (id text, queue text, "minPopWaitTime" integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_queues uuid[];
  v_priorities integer[];
  v_command text;
  v_results text[];
  v_failure text;
BEGIN
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
  SELECT e.value ->> 0, q.name, q.min_pop_wait_time
  FROM unnest(v_results) AS s (result)
  CROSS JOIN LATERAL json_array_elements(s.result::json) AS e (value)
  JOIN queen.queues q ON q.id = (e.value ->> 1)::uuid
  ORDER BY q.priority DESC, (e.value ->> 0)::uuid <= p_after, (e.value ->> 0)::uuid
  LIMIT p_limit;
END
$$;
