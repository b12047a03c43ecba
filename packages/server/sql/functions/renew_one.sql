-- renew_one: SQL API v1 (docs/sql-api.md): one lease extension (renew), for psql and scripts.
--   Parameters: p_lease_id text, p_extend_seconds integer (default 60; 0 or less means 60).
--   Result: the lease's new expiry (the earliest over its partitions), or null when the lease is unknown,
--     released or expired.
--   Locks: the cursor rows carrying the lease (UPDATE).
CREATE OR REPLACE FUNCTION queen.renew_one(p_lease_id text, p_extend_seconds integer DEFAULT 60) RETURNS timestamptz
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT (queen.renew(jsonb_build_object('leaseId', coalesce(p_lease_id, ''), 'extendSeconds', p_extend_seconds))
          -> 0 ->> 'expiresAt')::timestamptz
$$;
SELECT queen.api_grant('queen.renew_one(text, integer)', ARRAY['consumer']);
