-- subscription_retime: give every subscription record of p_group (all queues, all scopes) the timestamp
-- p_from (null: now) and mode 'timestamp' (docs/api.md 7.7 rule 2). Existing cursors do not move.
--   Parameters: p_group text, p_from timestamptz.
--   Result: one row (rows_updated, new_timestamp in milliseconds with a Z).
--   Notifies: queen_wake for each queue whose records changed (a record moved out of the future makes that
--     group's never-contacted partitions claimable).
--   Locks: the group's subscription rows (UPDATE).
CREATE OR REPLACE FUNCTION queen.subscription_retime(p_group text, p_from timestamptz)
RETURNS TABLE (rows_updated integer, new_timestamp text)
LANGUAGE plpgsql AS $$
DECLARE
  v_from timestamptz := coalesce(p_from, now());
  v_rows integer := 0;
  v_queue record;
BEGIN
  FOR v_queue IN
    WITH updated AS (
      UPDATE queen.subscriptions s SET mode = 'timestamp', subscribed_from = v_from
      WHERE s.consumer_group = p_group
      RETURNING s.queue_id
    )
    SELECT q.name, q.namespace, q.task, count(*)::integer AS records
    FROM updated u JOIN queen.queues q ON q.id = u.queue_id
    GROUP BY q.name, q.namespace, q.task
  LOOP
    v_rows := v_rows + v_queue.records;
    PERFORM pg_notify('queen_wake', json_build_object(
      'origin', '', 'queue', v_queue.name, 'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  END LOOP;
  RETURN QUERY SELECT v_rows, queen.format_millis(v_from);
END
$$;
