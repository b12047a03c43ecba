-- server_heartbeat: records one heartbeat of a process and returns the cluster's health (GET /health).
--   Parameters: p_server_id text, p_hostname text, p_pid integer, p_port integer, p_started_at timestamptz,
--     p_parked integer, p_parked_by_queue jsonb, p_alive_seconds double precision.
--   The first beat of an incarnation (no row with this server_id and p_started_at) replaces its
--   predecessors, the row of the same server_id or of another one on the same hostname and port (a process
--   restarted with a pid-derived id), counting one restart each and keeping their counters.
--   Result: servers tracked (not stopped), alive (a beat within p_alive_seconds), dead (the others),
--   heartbeats received and restarts detected (over every row).
--   Locks: the process's own row.
CREATE OR REPLACE FUNCTION queen.server_heartbeat(p_server_id text, p_hostname text, p_pid integer, p_port integer,
                                                  p_started_at timestamptz, p_parked integer,
                                                  p_parked_by_queue jsonb, p_alive_seconds double precision)
RETURNS TABLE (servers_tracked bigint, servers_alive bigint, servers_dead bigint, heartbeats_received bigint,
               restarts_detected bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_restarts bigint;
  v_heartbeats bigint;
BEGIN
  UPDATE queen.server_heartbeats
  SET last_heartbeat_at = now(), parked_pops = p_parked, parked_by_queue = p_parked_by_queue,
      heartbeats = heartbeats + 1
  WHERE server_id = p_server_id AND started_at = p_started_at;
  IF NOT FOUND THEN
    WITH predecessor AS (
      DELETE FROM queen.server_heartbeats h
      WHERE h.server_id = p_server_id OR (h.hostname = p_hostname AND h.port = p_port)
      RETURNING h.restarts, h.heartbeats
    )
    SELECT count(*) + coalesce(sum(restarts), 0), coalesce(sum(heartbeats), 0)
    INTO v_restarts, v_heartbeats FROM predecessor;
    INSERT INTO queen.server_heartbeats (server_id, hostname, pid, port, started_at, last_heartbeat_at,
                                         parked_pops, parked_by_queue, heartbeats, restarts)
    VALUES (p_server_id, p_hostname, p_pid, p_port, p_started_at, now(), p_parked, p_parked_by_queue,
            v_heartbeats + 1, v_restarts);
  END IF;

  RETURN QUERY
  SELECT count(*) FILTER (WHERE h.stopped_at IS NULL),
         count(*) FILTER (WHERE h.stopped_at IS NULL AND h.last_heartbeat_at > now() - make_interval(secs => p_alive_seconds)),
         count(*) FILTER (WHERE h.stopped_at IS NULL AND h.last_heartbeat_at <= now() - make_interval(secs => p_alive_seconds)),
         coalesce(sum(h.heartbeats), 0)::bigint,
         coalesce(sum(h.restarts), 0)::bigint
  FROM queen.server_heartbeats h;
END
$$;
