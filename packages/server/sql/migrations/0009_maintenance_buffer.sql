-- 0009_maintenance_buffer: the maintenance flags (API.md 9.4), the cluster identity the failover buffer
-- checks before adopting another process's leftover files (API.md 9.5), and the replay hook of maxSize.

-- One row: the two maintenance flags, a version that grows with every change (a process applies a flag
-- state only if its version is not older than the one it holds, so a slow poll never undoes a newer
-- notification), and the identity of this database as the failover buffer records it in its directories.
CREATE TABLE queen.system_state (
  singleton        boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  cluster_id       uuid        NOT NULL DEFAULT gen_random_uuid(),
  push_maintenance boolean     NOT NULL DEFAULT false,
  pop_maintenance  boolean     NOT NULL DEFAULT false,
  version          bigint      NOT NULL DEFAULT 0,
  updated_at       timestamptz NOT NULL DEFAULT now()
);
INSERT INTO queen.system_state DEFAULT VALUES;

-- maintenance_set: turns one flag on or off and tells every broker process (NOTIFY queen_maintenance, sent
-- at commit; the payload is the new state). Setting a flag to its current value still bumps the version.
--   Parameters: p_kind 'push' or 'pop'; p_enabled the new value.
--   Result: the state after the change.
--   Locks: the system_state row.
--   Notifications: queen_maintenance {"push":bool,"pop":bool,"version":n}.
CREATE OR REPLACE FUNCTION queen.maintenance_set(p_kind text, p_enabled boolean)
RETURNS TABLE (push_maintenance boolean, pop_maintenance boolean, version bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_state queen.system_state;
BEGIN
  IF p_kind NOT IN ('push', 'pop') THEN
    RAISE EXCEPTION 'unknown maintenance kind %', p_kind;
  END IF;
  UPDATE queen.system_state s
     SET push_maintenance = CASE WHEN p_kind = 'push' THEN p_enabled ELSE s.push_maintenance END,
         pop_maintenance = CASE WHEN p_kind = 'pop' THEN p_enabled ELSE s.pop_maintenance END,
         version = s.version + 1,
         updated_at = now()
   RETURNING s.* INTO v_state;
  PERFORM pg_notify('queen_maintenance', json_build_object(
    'push', v_state.push_maintenance, 'pop', v_state.pop_maintenance, 'version', v_state.version)::text);
  RETURN QUERY SELECT v_state.push_maintenance, v_state.pop_maintenance, v_state.version;
END
$$;

-- queue_mode_backlog (0003) as push_messages' maxSize check sees it, plus one exception: a transaction that
-- set queen.replay = 'on' (SET LOCAL) replays buffered items that were already accepted, and maxSize is not
-- enforced on replay (API.md 9.5 rule 5). The backlog then reads as so far below zero that no cap is
-- reached (2^62: max_size - backlog still fits in a bigint). Nothing else calls this function.
CREATE OR REPLACE FUNCTION queen.queue_mode_backlog(p_queue_id uuid) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN current_setting('queen.replay', true) = 'on' THEN -4611686018427387904::bigint ELSE (
    SELECT coalesce(sum(s.last_offset - greatest(s.first_offset, coalesce(c.committed, 0) + 1) + 1), 0)
    FROM queen.partitions p
    LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = '__QUEUE_MODE__'
    JOIN queen.segments s ON s.partition_id = p.id AND s.last_offset > coalesce(c.committed, 0)
    WHERE p.queue_id = p_queue_id
  ) END
$$;
