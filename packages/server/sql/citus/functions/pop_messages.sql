-- pop_messages, Citus override: the contract of sql/functions/pop_messages.sql (same signature and result), built
-- on partition_claim. Installed on Citus only (store/citus-schema.ts); the broker's own pops never call it
-- (store/citus-claims.ts); it serves the SQL API's consume and consume_one (api_claim).
--   Runs on the coordinator in the caller's transaction (docs/scale-out.md section 6). Scope 'partition': the
--   queue created and the subscription recorded as pop_messages does, then one partition_claim of the computed
--   id. Scopes 'queue' and 'discovery': the broker's two-step walk on Citus (store/citus-claims.ts): the
--   candidates from partition_candidates (which keeps serving the live workers' shards while one is down), at
--   most four per partition the pop may claim; then partition_claim on each in order, sharing p_lease_id, until
--   p_batch or p_max_partitions is filled.
--   Not on Citus: the backlog index and the minPopWaitTime probe (p_hold_under is ignored: its only caller,
--   api_claim, passes 0; the broker's walk probes with partition_deliverable).
--   Locks: partition_claim's (the cursor row FOR UPDATE SKIP LOCKED: a busy partition is skipped).
CREATE OR REPLACE FUNCTION queen.pop_messages(
  p_scope text,
  p_queue text,
  p_partition text,
  p_namespace text,
  p_task text,
  p_group text,
  p_batch integer,
  p_max_partitions integer,
  p_lease_id uuid,
  p_lease_seconds integer,
  p_auto_ack boolean,
  p_subscribe_mode text,
  p_subscribe_from timestamptz,
  p_first_attempt boolean,
  p_rotate_after uuid,
  p_hold_under integer
) RETURNS TABLE (queue_name text, partition_id uuid, partition_name text, message_offset bigint,
                 message_id uuid, transaction_id text, trace_id uuid, payload text, producer_sub text,
                 created_at text, empty_reason text, hold_ms integer, trace_context text)
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- statements planned with their values: Citus routes them
AS $$
#variable_conflict use_column
DECLARE
  c_queue_mode constant text := '__QUEUE_MODE__';
  c_candidates_per_claim constant integer := 4;
  v_queue queen.queues;
  v_candidate record;
  v_subscribed text[] := '{}';
  v_row record;
  v_taken integer;
  v_remaining integer := p_batch;
  v_claimed integer := 0;
BEGIN
  IF p_scope <> 'discovery' THEN
    SELECT * INTO v_queue FROM queen.queues q WHERE q.name = p_queue;
    IF NOT FOUND THEN
      IF NOT p_first_attempt THEN
        RETURN QUERY SELECT NULL::text, NULL::uuid, NULL::text, NULL::bigint, NULL::uuid, NULL::text, NULL::uuid,
                            NULL::text, NULL::text, NULL::text,
                            CASE WHEN p_scope = 'partition' THEN 'no_partition' ELSE 'none' END, NULL::integer,
                            NULL::text;
        RETURN;
      END IF;
      v_queue := queen.queue_ensure(p_queue);
    END IF;
    IF p_first_attempt AND p_subscribe_mode IS NOT NULL AND p_group <> c_queue_mode THEN
      PERFORM queen.subscription_record(v_queue.id, p_group,
                                        CASE WHEN p_scope = 'partition' THEN p_partition ELSE '' END,
                                        p_subscribe_mode, p_subscribe_from);
    END IF;
  END IF;

  IF p_scope = 'partition' THEN
    RETURN QUERY SELECT * FROM queen.partition_claim(queen.partition_uuid(p_queue, p_partition), p_queue, p_group,
                                                     p_batch, p_lease_id, p_lease_seconds, p_auto_ack);
    RETURN;
  END IF;

  FOR v_candidate IN
    SELECT c.id, c.queue_id, c.queue
    FROM queen.partition_candidates(CASE WHEN p_scope = 'queue' THEN p_queue END,
                                    CASE WHEN p_scope = 'discovery' THEN p_namespace END,
                                    CASE WHEN p_scope = 'discovery' THEN p_task END, p_group,
                                    coalesce(p_rotate_after, '00000000-0000-0000-0000-000000000000'::uuid),
                                    (CASE WHEN p_max_partitions > 0 THEN p_max_partitions ELSE p_batch END) * c_candidates_per_claim) c
  LOOP
    IF p_scope = 'discovery' AND p_first_attempt AND p_subscribe_mode IS NOT NULL AND p_group <> c_queue_mode
       AND v_candidate.queue <> ALL (v_subscribed) THEN
      v_subscribed := v_subscribed || v_candidate.queue;
      PERFORM queen.subscription_record(v_candidate.queue_id, p_group, '', p_subscribe_mode, p_subscribe_from);
    END IF;
    v_taken := 0;
    FOR v_row IN SELECT * FROM queen.partition_claim(v_candidate.id, v_candidate.queue, p_group, v_remaining,
                                                      p_lease_id, p_lease_seconds, p_auto_ack) r
                 WHERE r.empty_reason IS NULL LOOP
      v_taken := v_taken + 1;
      RETURN QUERY SELECT v_row.queue_name, v_row.partition_id, v_row.partition_name, v_row.message_offset,
                          v_row.message_id, v_row.transaction_id, v_row.trace_id, v_row.payload, v_row.producer_sub,
                          v_row.created_at, v_row.empty_reason, v_row.hold_ms, v_row.trace_context;
    END LOOP;
    CONTINUE WHEN v_taken = 0;
    v_remaining := v_remaining - v_taken;
    v_claimed := v_claimed + 1;
    EXIT WHEN v_remaining <= 0 OR (p_max_partitions > 0 AND v_claimed >= p_max_partitions);
  END LOOP;
  IF v_remaining = p_batch THEN
    RETURN QUERY SELECT NULL::text, NULL::uuid, NULL::text, NULL::bigint, NULL::uuid, NULL::text, NULL::uuid,
                        NULL::text, NULL::text, NULL::text, 'none'::text, NULL::integer, NULL::text;
  END IF;
END
$$;
