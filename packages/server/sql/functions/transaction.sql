-- transaction: SQL API v1 (docs/sql-api.md): the operations of POST /api/v1/transaction (docs/api.md 7.1),
-- all or nothing, in the caller's transaction: pushes through api_push_items and acks through
-- api_ack_items, in order, after the locks of all of them are taken in the global order (transaction_lock).
-- A failing operation (a refused or duplicate push item, an ack with success false) rolls back every
-- operation of the call (a savepoint: the caller's own earlier work stays) and is answered, not raised.
--   Parameters: p_operations a JSON array of operations ({type:'push', items:[...]} or {type:'ack',
--     transactionId, partitionId, status?, consumerGroup?, leaseId?, error?}), or the request body
--     {operations, requiredLeases?}: an ack without leaseId on a pair whose live lease is listed in
--     requiredLeases carries it.
--   Result: {transactionId, success, error?, results} as on the wire; error 'PUSH operation failed: <reason>'
--     or 'ACK operation failed: <reason>'.
--   Errors: 22023 for a malformed operation or item (including an unknown type), 0A000 for an encrypted
--     queue, 42501 when the operations push and the session's login role may not produce (queen.produce).
--   Locks: transaction_lock's, then those of push_messages and ack_messages (already held). A deadlock
--     against another path fails the caller's transaction (the broker's route retries; SQL cannot).
--   Notifies: queen_wake at commit for pushed queues and released leases; nothing when rolled back.
CREATE OR REPLACE FUNCTION queen.transaction(p_operations jsonb) RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  c_uuid constant text := '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
  v_body boolean := jsonb_typeof(p_operations) = 'object';
  v_operations jsonb := CASE WHEN v_body THEN p_operations -> 'operations' ELSE p_operations END;
  v_leases text[];
  v_id text := queen.uuid_v7()::text;
  v_op record;
  v_where text;
  v_push record;
  v_ack record;
  v_lease text;
  v_results jsonb := '[]';
  v_error text;
BEGIN
  IF jsonb_typeof(v_operations) IS DISTINCT FROM 'array' OR jsonb_array_length(v_operations) = 0 THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'queen.transaction: p_operations must be a non-empty JSON array';
  END IF;
  SELECT coalesce(array_agg(lower(l #>> '{}')), '{}') INTO v_leases
  FROM jsonb_array_elements(CASE WHEN v_body AND jsonb_typeof(p_operations -> 'requiredLeases') = 'array'
                                 THEN p_operations -> 'requiredLeases' ELSE '[]' END) AS l
  WHERE jsonb_typeof(l) = 'string';
  FOR v_op IN SELECT t.e, t.i - 1 AS i FROM jsonb_array_elements(v_operations) WITH ORDINALITY AS t (e, i) LOOP
    v_where := format('queen.transaction: p_operations[%s]', v_op.i);
    IF jsonb_typeof(v_op.e) <> 'object' OR v_op.e ->> 'type' IS NULL OR v_op.e ->> 'type' NOT IN ('push', 'ack') THEN
      RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = v_where || ' must be an object of type push or ack';
    ELSIF v_op.e ->> 'type' = 'push' AND jsonb_typeof(v_op.e -> 'items') IS DISTINCT FROM 'array' THEN
      RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = v_where || '.items must be an array';
    END IF;
  END LOOP;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(v_operations) AS o WHERE o ->> 'type' = 'push')
     AND NOT has_function_privilege(session_user, 'queen.produce(jsonb)', 'EXECUTE') THEN
    RAISE EXCEPTION USING ERRCODE = '42501',
      MESSAGE = format('queen.transaction: role %s may not produce (pushes need queen_producer)', session_user);
  END IF;

  BEGIN
    -- Every lock up front, in the global order: the partitions the pushes write (the items that look
    -- valid; api_push_items raises for the others), the (partition, group) pairs the acks settle.
    PERFORM queen.transaction_lock(
      coalesce((SELECT array_agg(i ->> 'queue') FROM jsonb_array_elements(v_operations) AS o,
                  jsonb_array_elements(o -> 'items') AS i
                WHERE o ->> 'type' = 'push' AND jsonb_typeof(i -> 'queue') = 'string'
                  AND queen.name_problem(i ->> 'queue') IS NULL AND queen.name_problem(coalesce(i ->> 'partition', 'Default')) IS NULL
                  AND coalesce(jsonb_typeof(i -> 'partition'), 'string') IN ('string', 'null')), '{}'),
      coalesce((SELECT array_agg(coalesce(i ->> 'partition', 'Default')) FROM jsonb_array_elements(v_operations) AS o,
                  jsonb_array_elements(o -> 'items') AS i
                WHERE o ->> 'type' = 'push' AND jsonb_typeof(i -> 'queue') = 'string'
                  AND queen.name_problem(i ->> 'queue') IS NULL AND queen.name_problem(coalesce(i ->> 'partition', 'Default')) IS NULL
                  AND coalesce(jsonb_typeof(i -> 'partition'), 'string') IN ('string', 'null')), '{}'),
      coalesce((SELECT array_agg(lower(o ->> 'partitionId')::uuid) FROM jsonb_array_elements(v_operations) AS o
                WHERE o ->> 'type' = 'ack' AND o ->> 'partitionId' ~ c_uuid), '{}'),
      coalesce((SELECT array_agg(coalesce(nullif(o ->> 'consumerGroup', ''), '__QUEUE_MODE__')) FROM jsonb_array_elements(v_operations) AS o
                WHERE o ->> 'type' = 'ack' AND o ->> 'partitionId' ~ c_uuid), '{}'));

    FOR v_op IN SELECT t.e, t.i - 1 AS i FROM jsonb_array_elements(v_operations) WITH ORDINALITY AS t (e, i) LOOP
      v_where := format('queen.transaction: p_operations[%s]', v_op.i);
      IF v_op.e ->> 'type' = 'push' THEN
        FOR v_push IN SELECT * FROM queen.api_push_items(v_op.e -> 'items', v_where || '.items') LOOP
          IF v_push.status <> 'queued' THEN
            v_error := CASE WHEN v_push.status = 'duplicate' THEN 'Duplicate transactionId: ' || v_push.transaction_id
                            ELSE v_push.error END;
            v_results := v_results || jsonb_build_object('index', jsonb_array_length(v_results), 'type', 'push',
              'success', false, 'transactionId', v_push.client_transaction_id, 'queueName', v_push.queue_name,
              'error', v_error);
            v_error := 'PUSH operation failed: ' || v_error;
            RAISE EXCEPTION USING ERRCODE = 'QNTX1';
          END IF;
          v_results := v_results || jsonb_build_object('index', jsonb_array_length(v_results), 'type', 'push',
            'success', true, 'transactionId', v_push.transaction_id, 'messageId', v_push.message_id,
            'partitionId', v_push.partition_id, 'queueName', v_push.queue_name);
        END LOOP;
      ELSE
        v_lease := NULLIF(v_op.e ->> 'leaseId', '');
        IF v_lease IS NULL AND cardinality(v_leases) > 0 AND v_op.e ->> 'partitionId' ~ c_uuid THEN
          SELECT c.lease_id::text INTO v_lease FROM queen.cursors c
          WHERE c.partition_id = lower(v_op.e ->> 'partitionId')::uuid
            AND c.consumer_group = coalesce(nullif(v_op.e ->> 'consumerGroup', ''), '__QUEUE_MODE__')
            AND c.lease_expires_at > now()
          FOR UPDATE;
          v_lease := CASE WHEN v_lease = ANY (v_leases) THEN v_lease END;
        END IF;
        SELECT * INTO STRICT v_ack FROM queen.api_ack_items(
          CASE WHEN v_lease IS NULL THEN v_op.e ELSE v_op.e || jsonb_build_object('leaseId', v_lease) END, v_where);
        v_results := v_results || jsonb_build_object('index', jsonb_array_length(v_results), 'type', 'ack',
          'success', v_ack.success, 'transactionId', v_ack.transaction_id, 'error', v_ack.error, 'dlq', v_ack.dlq,
          'leaseReleased', v_ack.lease_released);
        IF NOT v_ack.success THEN
          v_error := 'ACK operation failed: ' || coalesce(v_ack.error, 'unknown error');
          RAISE EXCEPTION USING ERRCODE = 'QNTX1';
        END IF;
      END IF;
    END LOOP;
  EXCEPTION WHEN SQLSTATE 'QNTX1' THEN
    RETURN jsonb_build_object('transactionId', v_id, 'success', false, 'error', v_error, 'results', v_results);
  END;
  RETURN jsonb_build_object('transactionId', v_id, 'success', true, 'results', v_results);
END
$$;
SELECT queen.api_grant('queen.transaction(jsonb)', ARRAY['consumer']);
