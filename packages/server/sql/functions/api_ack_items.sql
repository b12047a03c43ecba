-- api_ack_items: the ack path of the SQL API (commit, commit_one, nack, reject, transaction, forward). It
-- checks the items like POST /api/v1/ack/batch (docs/api.md 6.2), applies them through ack_messages (the function
-- the broker's ack calls: rules C1-C6, DLQ, lease release) and owes the wake-up the broker sends when a lease
-- was released (api_wake, delivered at the caller's commit).
--   Parameters: p_acks a JSON array (an object counts as one) of {transactionId, partitionId, status?
--     ('completed'), consumerGroup? (queue mode), leaseId?, error?}; p_where the argument's name for errors.
--   Result: one row per item in item order: item (0-based), transaction_id, and the result of docs/api.md 6.4.
--     A partitionId or leaseId that is not a UUID matches nothing ('Message not found', 'Invalid or expired
--     lease'), as on the wire (core/ack.ts).
--   Errors: 22023 for a malformed item (a consumerGroup the name rule refuses included, api_name) or an
--     unknown status (nothing is applied).
--   Locks: those of ack_messages. Notifies: api_wake once per queue whose lease was released.
CREATE OR REPLACE FUNCTION queen.api_ack_items(p_acks jsonb, p_where text)
RETURNS TABLE (item integer, transaction_id text, success boolean, error text, queue_name text,
               partition_name text, lease_released boolean, dlq boolean)
LANGUAGE plpgsql
SET queen.api = 'on'                -- no backlog lock (backlog_drop): the caller's transaction may last
AS $$
#variable_conflict use_column
DECLARE
  c_uuid constant text := '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
  v_acks jsonb := CASE WHEN jsonb_typeof(p_acks) = 'object' THEN jsonb_build_array(p_acks) ELSE p_acks END;
  v_item record;
  v_where text;
  v_txn text[];
  v_row record;
  v_woken text[] := '{}';
BEGIN
  IF jsonb_typeof(v_acks) IS DISTINCT FROM 'array' THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('%s must be a JSON array of acks', p_where);
  END IF;
  IF jsonb_array_length(v_acks) = 0 THEN
    RETURN;
  END IF;
  FOR v_item IN SELECT t.e, t.i - 1 AS i FROM jsonb_array_elements(v_acks) WITH ORDINALITY AS t (e, i) LOOP
    v_where := format('%s[%s]', p_where, v_item.i);
    IF jsonb_typeof(v_item.e) <> 'object' THEN
      RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = v_where || ' must be an object';
    END IF;
    IF jsonb_typeof(v_item.e -> 'transactionId') IS DISTINCT FROM 'string'
       OR jsonb_typeof(v_item.e -> 'partitionId') IS DISTINCT FROM 'string' THEN
      RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = v_where || ' needs transactionId and partitionId strings';
    END IF;
    IF coalesce(queen.api_field(v_item.e, 'status', 'string', v_where) #>> '{}', 'completed')
       NOT IN ('completed', 'success', 'failed', 'dlq', 'retry') THEN
      RAISE EXCEPTION USING ERRCODE = '22023',
        MESSAGE = v_where || '.status must be completed, success, failed, dlq or retry';
    END IF;
    PERFORM queen.api_name(nullif(queen.api_field(v_item.e, 'consumerGroup', 'string', v_where) #>> '{}', ''),
                           v_where || '.consumerGroup', true),
            queen.api_field(v_item.e, 'leaseId', 'string', v_where),
            queen.api_field(v_item.e, 'error', 'string', v_where);
  END LOOP;

  SELECT array_agg(t.e ->> 'transactionId' ORDER BY t.i) INTO v_txn
  FROM jsonb_array_elements(v_acks) WITH ORDINALITY AS t (e, i);
  FOR v_row IN
    SELECT r.*, q.namespace, q.task
    FROM queen.ack_messages(
      v_txn,
      (SELECT array_agg(CASE WHEN t.e ->> 'partitionId' ~ c_uuid THEN lower(t.e ->> 'partitionId')::uuid END ORDER BY t.i)
       FROM jsonb_array_elements(v_acks) WITH ORDINALITY AS t (e, i)),
      (SELECT array_agg(coalesce(t.e ->> 'status', 'completed') ORDER BY t.i)
       FROM jsonb_array_elements(v_acks) WITH ORDINALITY AS t (e, i)),
      (SELECT array_agg(coalesce(nullif(t.e ->> 'consumerGroup', ''), '__QUEUE_MODE__') ORDER BY t.i)
       FROM jsonb_array_elements(v_acks) WITH ORDINALITY AS t (e, i)),
      (SELECT array_agg(CASE WHEN coalesce(t.e ->> 'leaseId', '') = '' THEN NULL
                             WHEN t.e ->> 'leaseId' ~ c_uuid THEN t.e ->> 'leaseId'
                             ELSE '00000000-0000-0000-0000-000000000000' END ORDER BY t.i)
       FROM jsonb_array_elements(v_acks) WITH ORDINALITY AS t (e, i)),
      (SELECT array_agg(t.e ->> 'error' ORDER BY t.i) FROM jsonb_array_elements(v_acks) WITH ORDINALITY AS t (e, i))
    ) r
    LEFT JOIN queen.queues q ON q.name = r.queue_name
    ORDER BY r.item
  LOOP
    IF v_row.lease_released AND v_row.queue_name IS NOT NULL AND NOT v_row.queue_name = ANY (v_woken) THEN
      v_woken := v_woken || v_row.queue_name;
      PERFORM queen.api_wake(v_row.queue_name, v_row.namespace, v_row.task);
    END IF;
    item := v_row.item - 1;
    transaction_id := v_txn[v_row.item];
    success := v_row.success;
    error := v_row.error;
    queue_name := v_row.queue_name;
    partition_name := v_row.partition_name;
    lease_released := v_row.lease_released;
    dlq := v_row.dlq;
    RETURN NEXT;
  END LOOP;
END
$$;
