-- lease_extend: push back every live lease record carrying p_lease_id to max(expiry, now + p_seconds).
--   Parameters: p_lease_id uuid, p_seconds integer.
--   Result: one row (outcome 'extended' | 'expired' | 'not_found', expires_at: the earliest new expiry in
--   milliseconds with a Z, or null). An expired lease is never revived; a lease is never shortened.
--   Locks: the cursor rows carrying the lease (UPDATE).
CREATE OR REPLACE FUNCTION queen.lease_extend(p_lease_id uuid, p_seconds integer)
RETURNS TABLE (outcome text, expires_at text)
LANGUAGE plpgsql
SET enable_seqscan = off            -- see README.md: hot paths never scan a table
SET plan_cache_mode = force_generic_plan  -- and never pay for planning on a call
AS $$
#variable_conflict use_column
DECLARE
  v_earliest timestamptz;
BEGIN
  WITH extended AS (
    UPDATE queen.cursors c
    SET lease_expires_at = greatest(c.lease_expires_at, now() + make_interval(secs => p_seconds))
    WHERE c.lease_id = p_lease_id AND c.lease_expires_at > now()
    RETURNING c.lease_expires_at
  )
  SELECT min(e.lease_expires_at) INTO v_earliest FROM extended e;
  IF v_earliest IS NOT NULL THEN
    RETURN QUERY SELECT 'extended'::text, queen.format_millis(v_earliest);
  ELSIF EXISTS (SELECT 1 FROM queen.cursors c WHERE c.lease_id = p_lease_id) THEN
    RETURN QUERY SELECT 'expired'::text, NULL::text;
  ELSE
    RETURN QUERY SELECT 'not_found'::text, NULL::text;
  END IF;
END
$$;
