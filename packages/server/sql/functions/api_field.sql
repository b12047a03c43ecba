-- api_field: one field of a JSON argument of the SQL API, type-checked: the value, or null when the key is
-- absent or JSON null. A value of another type raises 22023 (invalid_parameter_value) naming the argument.
--   Parameters: p_object the JSON object; p_key the field; p_type 'string', 'integer', 'boolean', 'array' or
--     'any'; p_where the argument's name for the message (e.g. 'queen.consume: p_requests[0]').
--   Result: the field's JSON value (`#>> '{}'` reads a string, a cast reads a number or a boolean).
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.api_field(p_object jsonb, p_key text, p_type text, p_where text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_value jsonb := p_object -> p_key;
  v_type text := jsonb_typeof(v_value);
BEGIN
  IF v_value IS NULL OR v_type = 'null' THEN
    RETURN NULL;
  END IF;
  IF p_type = 'any'
     OR v_type = p_type
     OR (p_type = 'integer' AND v_type = 'number' AND v_value::numeric = trunc(v_value::numeric)
         AND abs(v_value::numeric) <= 2147483647) THEN
    RETURN v_value;
  END IF;
  RAISE EXCEPTION USING ERRCODE = '22023',
    MESSAGE = format('%s.%s must be %s', p_where, p_key,
                     CASE p_type WHEN 'integer' THEN 'an integer' WHEN 'array' THEN 'an array' ELSE 'a ' || p_type END);
END
$$;
