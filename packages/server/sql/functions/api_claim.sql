-- api_claim: one pop attempt of the SQL API (consume, consume_one) through pop_messages, the function the
-- broker's pop calls, with the decisions the broker takes around it (core/pop.ts): pop maintenance answers
-- 'paused' (docs/api.md 9.4), the subscription intent of a named group (api_intent), and the round-robin start
-- of wildcard walks, remembered per session and per (scope, queue, namespace, task, group) in the setting
-- queen.api_rotation (one entry: the last walk). It runs with queen.api = on: the walk takes no backlog
-- lock (backlog_prepare, backlog_drop), since the caller's transaction may hold its locks for long.
--   Parameters: the selection of pop_messages (scope, queue, partition, namespace, task, effective group,
--     batch, max partitions, lease id, lease seconds, autoAck); p_sub_mode / p_sub_from as the wire's
--     subscriptionMode / subscriptionFrom; p_first_attempt (creates a missing queue, writes the subscription
--     record); p_keep_empty: an attempt that claims nothing keeps its effects (queue created, cursors
--     seeded, as on the wire) or, when false, is rolled back to a savepoint, releasing every lock it took
--     (the waits of consume_one).
--   Result: the 200 body of docs/api.md 5.12 (leaseId '' with autoAck; traceparent and tracestate only on
--     messages that carry them), or, when nothing was claimed, the same
--     keys with messages [], partitionsClaimed 0, nulls, and emptyReason (docs/api.md 5.13's reasons).
--   Errors: 0A000 when the queue has encryption enabled or a claimed message is sealed (api_payload).
--   Locks: those of pop_messages.
CREATE OR REPLACE FUNCTION queen.api_claim(
  p_scope text, p_queue text, p_partition text, p_namespace text, p_task text, p_group text, p_batch integer,
  p_max_partitions integer, p_lease_id uuid, p_lease_seconds integer, p_auto_ack boolean, p_sub_mode text,
  p_sub_from text, p_first_attempt boolean, p_keep_empty boolean
) RETURNS jsonb
LANGUAGE plpgsql
SET queen.api = 'on'
AS $$
DECLARE
  v_key text := concat_ws('/', p_scope, p_queue, p_namespace, p_task, p_group);
  v_rotation text := current_setting('queen.api_rotation', true);
  v_lease text := CASE WHEN p_auto_ack THEN '' ELSE p_lease_id::text END;
  v_intent record;
  v_claim record;
  v_messages jsonb;
  v_reason text := 'paused';
BEGIN
  IF NOT (SELECT s.pop_maintenance FROM queen.system_state s) THEN
    IF p_scope <> 'discovery' AND EXISTS (SELECT 1 FROM queen.queues q WHERE q.name = p_queue AND q.encryption_enabled) THEN
      PERFORM queen.api_payload('enc:v1:', p_queue);
    END IF;
    SELECT * INTO v_intent FROM queen.api_intent(p_group, p_sub_mode, p_sub_from);
    BEGIN
      SELECT jsonb_agg(jsonb_build_object(
               'id', m.message_id, 'transactionId', m.transaction_id, 'traceId', m.trace_id,
               'data', queen.api_payload(m.payload, m.queue_name), 'producerSub', m.producer_sub,
               'createdAt', m.created_at, 'partitionId', m.partition_id, 'partition', m.partition_name,
               'leaseId', v_lease, 'consumerGroup', p_group)
               || CASE WHEN m.trace_context IS NOT NULL THEN jsonb_strip_nulls(jsonb_build_object(
                    'traceparent', split_part(m.trace_context, ' ', 1),
                    'tracestate', nullif(substr(m.trace_context, length(split_part(m.trace_context, ' ', 1)) + 2), '')))
                  ELSE '{}'::jsonb END
               ORDER BY m.ordinality)
               FILTER (WHERE m.message_id IS NOT NULL) AS messages,
             (array_agg(m.partition_name ORDER BY m.ordinality))[1] AS partition_name,
             (array_agg(m.partition_id ORDER BY m.ordinality))[1] AS partition_id,
             (array_agg(m.partition_id ORDER BY m.ordinality DESC))[1] AS last_partition_id,
             count(DISTINCT m.partition_id) AS partitions,
             min(m.empty_reason) AS empty_reason
      INTO v_claim
      FROM queen.pop_messages(
        p_scope => p_scope, p_queue => p_queue, p_partition => p_partition, p_namespace => p_namespace,
        p_task => p_task, p_group => p_group, p_batch => p_batch, p_max_partitions => p_max_partitions,
        p_lease_id => p_lease_id, p_lease_seconds => p_lease_seconds, p_auto_ack => p_auto_ack,
        p_subscribe_mode => v_intent.mode, p_subscribe_from => v_intent.from_at, p_first_attempt => p_first_attempt,
        p_rotate_after => CASE WHEN split_part(v_rotation, '|', 1) = v_key
                               THEN split_part(v_rotation, '|', 2)::uuid END,
        p_hold_under => 0) WITH ORDINALITY AS m;
      v_reason := coalesce(v_claim.empty_reason, 'none');
      v_messages := v_claim.messages;
      IF v_messages IS NULL AND NOT p_keep_empty THEN
        RAISE EXCEPTION USING ERRCODE = 'QNEMP';   -- undo the empty attempt and release its locks
      END IF;
    EXCEPTION WHEN SQLSTATE 'QNEMP' THEN
      NULL;
    END;
  END IF;

  IF v_messages IS NULL THEN
    RETURN jsonb_build_object('success', true, 'queue', CASE WHEN p_scope = 'discovery' THEN '' ELSE p_queue END,
      'partition', NULL, 'partitionId', NULL, 'leaseId', NULL, 'consumerGroup', p_group,
      'messages', '[]'::jsonb, 'partitionsClaimed', 0, 'emptyReason', v_reason);
  END IF;
  IF p_scope <> 'partition' THEN
    PERFORM set_config('queen.api_rotation', v_key || '|' || v_claim.last_partition_id, false);
  END IF;
  RETURN jsonb_build_object('success', true, 'queue', CASE WHEN p_scope = 'discovery' THEN '' ELSE p_queue END,
    'partition', v_claim.partition_name, 'partitionId', v_claim.partition_id, 'leaseId', v_lease,
    'consumerGroup', p_group, 'messages', v_messages, 'partitionsClaimed', v_claim.partitions);
END
$$;
