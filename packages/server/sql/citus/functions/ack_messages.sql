-- ack_messages, Citus override: the contract of sql/functions/ack_messages.sql (same signature and result),
-- built on partition_ack, one call per partition id of the batch, in partition-id order (ack_messages' cursor
-- lock order). Installed on Citus only (store/citus-schema.ts); the broker's own acks never call it
-- (store/citus-routing.ts delegates per partition). It serves the callers inside the database: the SQL API
-- (commit*, nack, reject, transaction, forward: api_ack_items) and the streams cycle (streams_cycle_apply).
--   Runs on the coordinator in the caller's transaction; partition_ack's statements are routed to the shard of
--   the id (docs/scale-out.md section 6). Items without a partition id answer as ack_messages answers them.
CREATE OR REPLACE FUNCTION queen.ack_messages(
  p_transaction_id text[],
  p_partition_id uuid[],
  p_status text[],
  p_group text[],
  p_lease_id text[],
  p_error text[]
) RETURNS TABLE (item integer, success boolean, error text, queue_name text, partition_name text,
                 lease_released boolean, dlq boolean)
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- statements planned with their values: Citus routes them
AS $$
#variable_conflict use_column
DECLARE
  v_group record;
  v_row record;
  v_rows jsonb := '[]';  -- the answers, returned in item order at the end
BEGIN
  FOR v_group IN
    SELECT t.partition_id, array_agg(t.i::integer ORDER BY t.i) AS items
    FROM unnest(p_partition_id) WITH ORDINALITY AS t (partition_id, i)
    GROUP BY t.partition_id
    ORDER BY t.partition_id NULLS LAST
  LOOP
    IF v_group.partition_id IS NULL THEN
      SELECT v_rows || jsonb_agg(jsonb_build_object('item', i, 'success', false, 'lease_released', false, 'dlq', false,
               'error', CASE WHEN p_status[i] IN ('completed', 'success', 'failed', 'dlq', 'retry') THEN 'Message not found'
                             ELSE 'Invalid status: ' || p_status[i] END))
      INTO v_rows FROM unnest(v_group.items) AS i;
      CONTINUE;
    END IF;
    FOR v_row IN
      SELECT * FROM queen.partition_ack(v_group.partition_id,
        ARRAY(SELECT p_transaction_id[i] FROM unnest(v_group.items) AS i), ARRAY(SELECT p_status[i] FROM unnest(v_group.items) AS i),
        ARRAY(SELECT p_group[i] FROM unnest(v_group.items) AS i), ARRAY(SELECT p_lease_id[i] FROM unnest(v_group.items) AS i),
        ARRAY(SELECT p_error[i] FROM unnest(v_group.items) AS i))
    LOOP
      v_rows := v_rows || jsonb_build_object('item', v_group.items[v_row.item], 'success', v_row.success, 'error', v_row.error,
                'queue_name', v_row.queue_name, 'partition_name', v_row.partition_name,
                'lease_released', v_row.lease_released, 'dlq', v_row.dlq);
    END LOOP;
  END LOOP;
  RETURN QUERY SELECT r.* FROM jsonb_to_recordset(v_rows) AS r (item integer, success boolean, error text, queue_name text,
                                                                 partition_name text, lease_released boolean, dlq boolean)
               ORDER BY r.item;
END
$$;
