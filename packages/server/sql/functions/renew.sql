-- renew: SQL API v1 (docs/sql-api.md): lease extensions through lease_extend (the broker's lease extend,
-- docs/api.md 6.5): every live record of the lease gets max(expiry, now + seconds); an expired lease is never
-- revived, a lease never shortened.
--   Parameters: p_leases a JSON array (an object counts as one) of {leaseId, extendSeconds? (60; 0 or less
--     means 60)}.
--   Result: a JSON array, per item in order: {index, leaseId, success, error ('Lease not found' | 'Lease
--     already expired' | null), expiresAt, newExpiresAt} (milliseconds, 'Z'; null on failure). A leaseId
--     that is not a UUID is not found.
--   Errors: 22023 for a malformed item (nothing is extended).
--   Locks: the cursor rows carrying each lease (UPDATE).
CREATE OR REPLACE FUNCTION queen.renew(p_leases jsonb) RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  c_uuid constant text := '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
  v_leases jsonb := CASE WHEN jsonb_typeof(p_leases) = 'object' THEN jsonb_build_array(p_leases) ELSE p_leases END;
  v_item record;
  v_where text;
  v_outcome record;
  v_results jsonb := '[]';
BEGIN
  IF jsonb_typeof(v_leases) IS DISTINCT FROM 'array' THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'queen.renew: p_leases must be a JSON array of leases';
  END IF;
  FOR v_item IN SELECT t.e, t.i - 1 AS i FROM jsonb_array_elements(v_leases) WITH ORDINALITY AS t (e, i) LOOP
    v_where := format('queen.renew: p_leases[%s]', v_item.i);
    IF jsonb_typeof(v_item.e) <> 'object' OR jsonb_typeof(v_item.e -> 'leaseId') IS DISTINCT FROM 'string' THEN
      RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = v_where || ' must be an object with a leaseId string';
    END IF;
    PERFORM queen.api_field(v_item.e, 'extendSeconds', 'integer', v_where);
  END LOOP;

  FOR v_item IN SELECT t.e, t.i - 1 AS i FROM jsonb_array_elements(v_leases) WITH ORDINALITY AS t (e, i) LOOP
    IF v_item.e ->> 'leaseId' ~ c_uuid THEN
      SELECT * INTO v_outcome FROM queen.lease_extend(lower(v_item.e ->> 'leaseId')::uuid,
        CASE WHEN (v_item.e ->> 'extendSeconds')::integer > 0 THEN (v_item.e ->> 'extendSeconds')::integer ELSE 60 END);
    ELSE
      SELECT 'not_found' AS outcome, NULL::text AS expires_at INTO v_outcome;
    END IF;
    v_results := v_results || jsonb_build_object('index', v_item.i, 'leaseId', v_item.e ->> 'leaseId',
      'success', v_outcome.outcome = 'extended',
      'error', CASE v_outcome.outcome WHEN 'expired' THEN 'Lease already expired'
                                      WHEN 'not_found' THEN 'Lease not found' END,
      'expiresAt', v_outcome.expires_at, 'newExpiresAt', v_outcome.expires_at);
  END LOOP;
  RETURN v_results;
END
$$;
SELECT queen.api_grant('queen.renew(jsonb)', ARRAY['consumer']);
