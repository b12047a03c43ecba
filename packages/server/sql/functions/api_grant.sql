-- api_grant: the access rule of one public SQL API function (docs/sql-api.md). Every public function that
-- reads or writes the log is SECURITY DEFINER (it runs with the rights of the broker's database user, which
-- owns the tables) with a pinned search_path, so callers need no privilege on any table. Its file ends by
-- calling this function, which makes the grants follow the file: re-applying a file (a changed body, or a
-- DROP + CREATE for a new signature) puts its grants back.
--   Parameters: p_function the function; p_access the roles that may call it, among 'producer', 'consumer'
--     and 'admin' (the NOLOGIN roles queen_producer, queen_consumer, queen_admin).
--   Effects: EXECUTE is revoked from PUBLIC (a new function is executable by everyone) and granted to each
--     role, with USAGE on the schema queen. A role that does not exist is created first when the current
--     user may create roles; otherwise the function is granted to no one but its owner (NOTICE), and
--     api_regrant() grants everything once the roles exist. The access is kept in the function's comment.
--   Result: none.
--   Locks: none beyond the catalog rows of the GRANTs.
CREATE OR REPLACE FUNCTION queen.api_grant(p_function regprocedure, p_access text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  c_roles constant text[] := ARRAY['queen_producer', 'queen_consumer', 'queen_admin'];
  v_role text;
  v_access text;
BEGIN
  -- The roles are created together, always in the same order: concurrent first start-ups of brokers on
  -- different databases of one cluster wait for each other instead of deadlocking.
  FOREACH v_role IN ARRAY c_roles LOOP
    CONTINUE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = v_role);
    BEGIN
      EXECUTE format('CREATE ROLE %I NOLOGIN', v_role);
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;                               -- created meanwhile by a broker of another database
    WHEN insufficient_privilege THEN
      RAISE NOTICE 'role % not created (the broker''s user may not create roles): see docs/sql-api.md', v_role;
    END;
  END LOOP;

  EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', p_function);
  EXECUTE format('COMMENT ON FUNCTION %s IS %L', p_function,
                 'Queen SQL API v1 (access: ' || array_to_string(p_access, ', ') || ')');
  FOREACH v_access IN ARRAY p_access LOOP
    IF v_access NOT IN ('producer', 'consumer', 'admin') THEN
      RAISE EXCEPTION 'api_grant: unknown access %', v_access;
    END IF;
    v_role := 'queen_' || v_access;
    CONTINUE WHEN NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = v_role);
    EXECUTE format('GRANT USAGE ON SCHEMA queen TO %I', v_role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', p_function, v_role);
  END LOOP;
END
$$;
