-- seek: SQL API v1 (docs/sql-api.md): moves a consumer group's cursor on every partition of a queue through
-- cursor_seek (the function the broker's seek route calls, docs/api.md 7.7 rule 3): to the end (everything stored
-- is skipped) or to a timestamp (delivery restarts with the first segment written after it). Live leases
-- are released.
--   Parameters: p_consumer_group, p_queue, p_to_end (default false), p_to_timestamp (default null); one of
--     the two is required (p_to_end wins).
--   Result: true; false when the queue does not exist.
--   Errors: 22023 for a bad name or neither target.
--   Locks and notifications: cursor_seek's (queen_wake at commit when a cursor moved back or a lease was
--     released).
CREATE OR REPLACE FUNCTION queen.seek(
  p_consumer_group text,
  p_queue text,
  p_to_end boolean DEFAULT false,
  p_to_timestamp timestamptz DEFAULT NULL
) RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM queen.api_name(p_consumer_group, 'queen.seek: p_consumer_group'), queen.api_name(p_queue, 'queen.seek: p_queue');
  IF NOT coalesce(p_to_end, false) AND p_to_timestamp IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'queen.seek: give p_to_end => true or p_to_timestamp';
  END IF;
  RETURN (SELECT s.outcome = 'updated'
          FROM queen.cursor_seek(p_consumer_group, p_queue, NULL, coalesce(p_to_end, false),
                                 CASE WHEN p_to_end THEN NULL ELSE p_to_timestamp END) s);
END
$$;
SELECT queen.api_grant('queen.seek(text, text, boolean, timestamptz)', ARRAY['admin']);
