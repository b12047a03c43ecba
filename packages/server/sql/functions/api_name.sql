-- api_name: checks a name argument of the SQL API (queue, partition, consumer group) against the name rule
-- (name_problem, docs/api.md 1.10) and returns it; otherwise raises 22023 (invalid_parameter_value) naming
-- the argument.
--   Parameters: p_name the value; p_where the argument's name for the message; p_optional: null is allowed.
--   Result: p_name.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.api_name(p_name text, p_where text, p_optional boolean DEFAULT false) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_problem constant text := CASE WHEN p_name IS NOT NULL OR NOT p_optional THEN queen.name_problem(p_name) END;
BEGIN
  IF v_problem IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('%s %s', p_where, v_problem);
  END IF;
  RETURN p_name;
END
$$;
