-- api_wake: the wake-up an SQL API write owes the broker's parked pops (store/wake-channel.ts): a NOTIFY on
-- queen_wake, which PostgreSQL delivers when the caller's transaction commits, to every broker process
-- (origin 'sql' is no broker's own, so each one wakes its parked pops of the queue), and never for a
-- transaction that rolls back. Identical notifications of one transaction are delivered once.
--   Parameters: the queue's name, namespace and task (discovery pops match on them); p_config: the queue's
--     configuration changed (processes drop what they cached of it).
--   Notifies: queen_wake {"origin":"sql","queue","namespace","task"[,"config":true]}.
--   Result: none.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.api_wake(p_queue text, p_namespace text, p_task text, p_config boolean DEFAULT false)
RETURNS void
LANGUAGE sql AS $$
  SELECT pg_catalog.pg_notify('queen_wake', CASE WHEN p_config
    THEN json_build_object('origin', 'sql', 'queue', p_queue, 'namespace', p_namespace, 'task', p_task, 'config', true)
    ELSE json_build_object('origin', 'sql', 'queue', p_queue, 'namespace', p_namespace, 'task', p_task) END::text)
$$;
