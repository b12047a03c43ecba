-- lease_release: end every live lease carrying p_lease_id without moving any cursor (the pop that took it
-- could not deliver its response). The span is redelivered at once.
--   Parameters: p_lease_id uuid, p_origin text.
--   Notifies: queen_wake for each affected queue.
--   Result: the number of lease records released.
--   Locks: the cursor rows carrying the lease (UPDATE).
CREATE OR REPLACE FUNCTION queen.lease_release(p_lease_id uuid, p_origin text) RETURNS integer
LANGUAGE plpgsql
SET enable_seqscan = off            -- see README.md: hot paths never scan a table
SET plan_cache_mode = force_generic_plan  -- and never pay for planning on a call
AS $$
DECLARE
  v_released integer;
  v_queue record;
BEGIN
  FOR v_queue IN
    WITH released AS (
      UPDATE queen.cursors c
      SET lease_id = NULL, lease_span_end = NULL, lease_expires_at = NULL
      WHERE c.lease_id = p_lease_id AND c.lease_expires_at > now()
      RETURNING c.partition_id
    )
    SELECT DISTINCT q.name, q.namespace, q.task
    FROM released r
    CROSS JOIN LATERAL (SELECT p.queue_id FROM queen.partitions p WHERE p.id = r.partition_id LIMIT 1) p
    CROSS JOIN LATERAL (SELECT q.name, q.namespace, q.task FROM queen.queues q WHERE q.id = p.queue_id LIMIT 1) q
  LOOP
    PERFORM pg_notify('queen_wake', json_build_object(
      'origin', p_origin, 'queue', v_queue.name, 'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  END LOOP;
  GET DIAGNOSTICS v_released = ROW_COUNT;
  RETURN v_released;
END
$$;
