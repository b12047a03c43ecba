-- lease_extend, Citus setting: the function of sql/functions/lease_extend.sql, planned with its values. A lease
-- id may span partitions of several workers, so its UPDATE is a multi-shard statement that Citus cannot plan
-- generically ("could not create distributed plan"); with custom plans it runs as the broker's Citus path sends
-- it (store/citus-routing.ts). Serves the SQL API's renew and renew_one (docs/scale-out.md section 6).
-- Installed on Citus only (store/citus-schema.ts), again whenever the function files are re-applied.
ALTER FUNCTION queen.lease_extend(uuid, integer) SET plan_cache_mode = force_custom_plan;
