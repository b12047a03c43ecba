-- format_millis: a timestamp as every other wire timestamp: milliseconds and a literal Z.
--   Parameters: p_ts.
--   Result: text such as 2026-01-02T03:04:05.123Z.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.format_millis(p_ts timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  -- Every other timestamp on the wire: milliseconds and a literal Z.
  SELECT to_char(p_ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
