-- api_name: checks a name argument of the SQL API (queue, partition, consumer group: 1 to 255 characters,
-- docs/api.md 1.10) and returns it; otherwise raises 22023 (invalid_parameter_value) naming the argument.
--   Parameters: p_name the value; p_where the argument's name for the message; p_optional: null is allowed.
--   Result: p_name.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.api_name(p_name text, p_where text, p_optional boolean DEFAULT false) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p_name IS NULL AND p_optional THEN
    RETURN NULL;
  END IF;
  IF p_name IS NULL OR length(p_name) NOT BETWEEN 1 AND 255 THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
      MESSAGE = format('%s must be a name of 1 to 255 characters', p_where);
  END IF;
  RETURN p_name;
END
$$;
