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
