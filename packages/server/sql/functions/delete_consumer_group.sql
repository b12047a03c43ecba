-- delete_consumer_group: SQL API v1 (docs/sql-api.md): forgets a consumer group on every queue or on one
-- through consumer_group_delete (the broker's route, docs/api.md 7.7 rule 1): its cursors, leases and counters,
-- and with p_delete_metadata its subscription records. Popping again later starts as a new group.
--   Parameters: p_consumer_group; p_queue (default null: every queue); p_delete_metadata (default true).
--   Result: true when the group had cursors to delete.
--   Errors: 22023 for a bad name.
--   Locks and notifications: consumer_group_delete's.
CREATE OR REPLACE FUNCTION queen.delete_consumer_group(
  p_consumer_group text,
  p_queue text DEFAULT NULL,
  p_delete_metadata boolean DEFAULT true
) RETURNS boolean
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT queen.consumer_group_delete(queen.api_name(p_consumer_group, 'queen.delete_consumer_group: p_consumer_group'),
                                     queen.api_name(p_queue, 'queen.delete_consumer_group: p_queue', true),
                                     coalesce(p_delete_metadata, true)) > 0
$$;
SELECT queen.api_grant('queen.delete_consumer_group(text, text, boolean)', ARRAY['admin']);
