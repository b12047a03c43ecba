-- format_micros: a timestamp as the pop response's createdAt: microseconds and a literal Z.
--   Parameters: p_ts.
--   Result: text such as 2026-01-02T03:04:05.123456Z.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.format_micros(p_ts timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  -- Pop createdAt: microseconds and a literal Z (the session time zone is pinned to UTC).
  SELECT to_char(p_ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;
