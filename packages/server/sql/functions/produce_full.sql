-- produce_full: SQL API v1 (docs/sql-api.md), the scalar produce with every option: one message, appended
-- in the caller's transaction (produce).
--   Parameters: p_queue, p_payload, p_partition (default 'Default'), p_transaction_id (null: minted);
--     p_namespace and p_task are accepted and ignored (a queue's namespace and task come from its name,
--     docs/api.md 1.10); p_delay_until must be null or not in the future (per-message delays do not exist: a
--     queue delays all its messages with its delayedProcessing option); p_notify also sends
--     NOTIFY channel_name(p_queue) with the message id as payload.
--   Result: one row (message_id, transaction_id): the new message, or the stored one this duplicates.
--   Errors: 22023 bad argument, 0A000 encrypted queue or a future p_delay_until, 54000 the queue's maxSize
--     refused the message. Nothing is written.
--   Locks: those of push_messages. Notifies: queen_wake at commit; channel_name(p_queue) with p_notify.
CREATE OR REPLACE FUNCTION queen.produce_full(
  p_queue text,
  p_payload jsonb,
  p_partition text DEFAULT 'Default',
  p_transaction_id text DEFAULT NULL,
  p_namespace text DEFAULT NULL,
  p_task text DEFAULT NULL,
  p_delay_until timestamptz DEFAULT NULL,
  p_notify boolean DEFAULT false
) RETURNS TABLE (message_id uuid, transaction_id text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  v_row record;
BEGIN
  IF p_delay_until > clock_timestamp() THEN
    RAISE EXCEPTION USING ERRCODE = '0A000',
      MESSAGE = 'queen.produce_full: p_delay_until in the future is not supported',
      HINT = 'Delays are per queue: configure the queue''s delayedProcessing option.';
  END IF;
  SELECT * INTO STRICT v_row FROM queen.api_push_items(
    jsonb_build_object('queue', queen.api_name(p_queue, 'queen.produce_full: p_queue'),
                       'partition', queen.api_name(p_partition, 'queen.produce_full: p_partition'),
                       'transactionId', p_transaction_id, 'payload', p_payload),
    'queen.produce_full: item');
  IF v_row.status = 'failed' THEN
    RAISE EXCEPTION USING ERRCODE = '54000', MESSAGE = 'queen.produce_full: ' || v_row.error;
  END IF;
  IF p_notify THEN
    PERFORM queen.notify(p_queue, v_row.message_id::text);
  END IF;
  RETURN QUERY SELECT v_row.message_id, v_row.transaction_id;
END
$$;
SELECT queen.api_grant('queen.produce_full(text, jsonb, text, text, text, text, timestamptz, boolean)', ARRAY['producer']);
