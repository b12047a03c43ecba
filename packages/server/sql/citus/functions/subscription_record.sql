-- subscription_record, Citus override: the contract of sql/functions/subscription_record.sql (same signature and
-- effect) in PL/pgSQL. Citus plans no SQL-language function called with parameters over its tables ("could not
-- create distributed plan"; queen.subscriptions is a reference table), so a named group's first pop with
-- subscriptionMode new or a subscriptionFrom answered 204 `error`. The time is computed first: Citus refuses
-- now() inside a modification of a reference table. Installed on Citus only (store/citus-schema.ts).
CREATE OR REPLACE FUNCTION queen.subscription_record(p_queue_id uuid, p_group text, p_partition_name text,
                                                     p_mode text, p_from timestamptz) RETURNS void
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- planned with its values
AS $$
DECLARE
  v_from timestamptz := CASE WHEN p_mode = 'new' THEN now() ELSE p_from END;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM queen.subscriptions s
                 WHERE s.queue_id = p_queue_id AND s.consumer_group = p_group
                   AND s.partition_name IN (p_partition_name, '')) THEN
    INSERT INTO queen.subscriptions (queue_id, consumer_group, partition_name, mode, subscribed_from)
    VALUES (p_queue_id, p_group, p_partition_name, p_mode, v_from)
    ON CONFLICT DO NOTHING;
  END IF;
END
$$;
