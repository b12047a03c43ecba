-- stats_counters_in, Citus override: the contract of sql/functions/stats_counters_in.sql (same signature and rows)
-- in PL/pgSQL. The SQL-language function, inlined into the caller's query, joins the coordinator-local
-- stats_counters to the reference table queues inside an EXISTS; Citus plans that inlined form wrongly and finds
-- no row for a namespace or task filter (the status route's requests read 0), while the same statement run from
-- PL/pgSQL is planned on its own and is right. Installed on Citus only (store/citus-schema.ts).
CREATE OR REPLACE FUNCTION queen.stats_counters_in(p_from timestamptz, p_to timestamptz, p_queue text,
                                                   p_namespace text, p_task text, p_hostname text,
                                                   p_server_id text)
RETURNS SETOF queen.stats_counters
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY
  SELECT c.* FROM queen.stats_counters c
  WHERE c.bucket >= p_from AND c.bucket <= p_to
    AND (p_queue IS NULL OR c.queue_name = p_queue)
    AND (p_hostname IS NULL OR c.hostname = p_hostname)
    AND (p_server_id IS NULL OR c.server_id = p_server_id)
    AND ((p_namespace IS NULL AND p_task IS NULL) OR EXISTS (
      SELECT 1 FROM queen.queues q
      WHERE q.name = c.queue_name AND (p_namespace IS NULL OR q.namespace = p_namespace)
        AND (p_task IS NULL OR q.task = p_task)));
END
$$;
