-- api_regrant: re-applies api_grant to every public SQL API function (the ones whose comment api_grant
-- wrote). For a database whose broker could not create the roles: an administrator creates queen_producer,
-- queen_consumer and queen_admin, then runs this once (docs/sql-api.md, "Roles").
--   Parameters: none.
--   Result: the number of functions granted.
--   Locks: none beyond the catalog rows of the GRANTs.
CREATE OR REPLACE FUNCTION queen.api_regrant() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_function record;
  v_count integer := 0;
BEGIN
  FOR v_function IN
    SELECT p.oid::regprocedure AS signature,
           string_to_array(substring(d.description FROM '\(access: ([a-z, ]+)\)'), ', ') AS access
    FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
    JOIN pg_catalog.pg_description d ON d.objoid = p.oid AND d.classoid = 'pg_catalog.pg_proc'::regclass
    WHERE n.nspname = 'queen' AND d.description LIKE 'Queen SQL API v1 (access: %'
    ORDER BY 1::text
  LOOP
    PERFORM queen.api_grant(v_function.signature, v_function.access);
    v_count := v_count + 1;
  END LOOP;
  RETURN v_count;
END
$$;
REVOKE ALL ON FUNCTION queen.api_regrant() FROM PUBLIC;
