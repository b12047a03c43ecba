-- partition_claim: pop_messages (sql/functions/pop_messages.sql) with scope 'partition', for ONE partition named
-- by its computed id: the entry point a Citus deployment delegates to the worker holding the partition
-- (docs/scale-out.md sections 3 and 4). Installed on Citus only (store/citus-schema.ts); single PostgreSQL keeps
-- pop_messages. The claim loop's body is pop_messages' for one candidate, its helpers inlined (a delegated
-- function may only call functions that exist on every worker).
--   Parameters: p_partition_id = queen.partition_uuid(p_queue, p_partition), computed by the broker; the rest
--             as pop_messages takes them (p_group the effective group, p_batch the message budget, p_lease_id,
--             p_lease_seconds > 0 overriding the queue's lease, p_auto_ack). Recording a subscription and
--             creating the queue are reference-table writes: the broker makes them on the coordinator first.
--   Result:   pop_messages' rows: the delivered messages in offset order; or one row whose empty_reason says why
--             there are none ('no_partition', 'leased', 'retry_delay', 'window_buffer', 'delayed', 'none'), or
--             'no-queue' when the queue does not exist.
--   Locks:    first the shard group's placement (Citus's metadata lock, shared, as its own writes take it), so a
--             shard move switches over before or after the call, never inside it (docs/scale-out.md 9a); then the
--             cursor row FOR UPDATE SKIP LOCKED (a busy (partition, group) answers 'leased', never waits); first
--             contact under the same advisory lock key as pop_messages (cursor_lock_key).
--   Notifies: nothing.
CREATE OR REPLACE FUNCTION queen.partition_claim(
  p_partition_id uuid,
  p_queue text,
  p_group text,
  p_batch integer,
  p_lease_id uuid,
  p_lease_seconds integer,
  p_auto_ack boolean
) RETURNS TABLE (queue_name text, partition_id uuid, partition_name text, message_offset bigint,
                 message_id uuid, transaction_id text, trace_id uuid, payload text, producer_sub text,
                 created_at text, empty_reason text, hold_ms integer, trace_context text)
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- every statement names p_partition_id as a constant: Citus routes it
AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := now();
  v_queue_id uuid;
  v_lease_time integer;
  v_delayed integer;
  v_window integer;
  v_partition record;
  v_cursor record;
  v_from timestamptz;
  v_seed bigint;
  v_segment record;
  v_take integer := p_batch;
  v_start bigint;
  v_end bigint;
  v_span_last bigint;
  v_visible_before timestamptz;
  v_delivered integer;
  v_expires timestamptz;
  v_reason text;
BEGIN
  -- The placement lock (Locks, above): Citus locks no reads, so a move could switch between a read and a write.
  PERFORM lock_shard_metadata(5, ARRAY[get_shard_id_for_distribution_column('queen.partitions', p_partition_id)]);
  SELECT q.id, q.lease_time, q.delayed_processing, q.window_buffer INTO v_queue_id, v_lease_time, v_delayed, v_window
  FROM queen.queues q WHERE q.name = p_queue;
  IF NOT FOUND THEN
    v_reason := 'no-queue';
  ELSE
    SELECT p.name, p.tail, p.last_push_at, p.queue_id INTO v_partition FROM queen.partitions p WHERE p.id = p_partition_id;
    IF NOT FOUND OR v_partition.queue_id <> v_queue_id THEN
      v_reason := 'no_partition';
    END IF;
  END IF;
  IF v_reason IS NULL THEN
    SELECT c.committed, c.lease_expires_at, c.not_before INTO v_cursor FROM queen.cursors c
    WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group
    FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
      IF EXISTS (SELECT 1 FROM queen.cursors c WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group) THEN
        v_reason := 'leased';
      ELSE
        -- subscription_from and cursor_seed, inlined: a subscription starting in the future is not contacted yet.
        SELECT s.subscribed_from INTO v_from FROM queen.subscriptions s
        WHERE p_group <> '__QUEUE_MODE__' AND s.queue_id = v_queue_id AND s.consumer_group = p_group
          AND s.partition_name IN (v_partition.name, '')
        ORDER BY s.partition_name DESC LIMIT 1;
        IF v_from > v_now THEN
          v_reason := 'none';
        ELSIF NOT pg_try_advisory_xact_lock(hashtextextended(p_partition_id::text || '/' || p_group, 0)) THEN
          v_reason := 'leased';
        ELSE
          v_seed := 0;
          IF v_from IS NOT NULL THEN
            SELECT seg.last_offset INTO v_seed FROM queen.segments seg
            WHERE seg.partition_id = p_partition_id AND seg.created_at < v_from
            ORDER BY seg.created_at DESC, seg.last_offset DESC LIMIT 1;
            v_seed := coalesce(v_seed, 0);
          END IF;
          INSERT INTO queen.cursors (partition_id, consumer_group, committed) VALUES (p_partition_id, p_group, v_seed)
          ON CONFLICT DO NOTHING;
          SELECT c.committed, c.lease_expires_at, c.not_before INTO v_cursor FROM queen.cursors c
          WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group
          FOR UPDATE SKIP LOCKED;
          IF NOT FOUND THEN
            v_reason := 'leased';
          END IF;
        END IF;
      END IF;
    END IF;
  END IF;
  IF v_reason IS NULL THEN
    IF v_cursor.lease_expires_at > v_now THEN
      v_reason := 'leased';
    ELSIF v_cursor.not_before > v_now THEN
      v_reason := 'retry_delay';
    ELSIF v_window > 0 AND v_partition.last_push_at > v_now - make_interval(secs => v_window) THEN
      v_reason := 'window_buffer';
    ELSIF v_partition.tail <= v_cursor.committed THEN
      v_reason := 'none';
    END IF;
  END IF;
  IF v_reason IS NOT NULL THEN
    RETURN QUERY SELECT NULL::text, NULL::uuid, NULL::text, NULL::bigint, NULL::uuid, NULL::text, NULL::uuid,
                        NULL::text, NULL::text, NULL::text, v_reason, NULL::integer, NULL::text;
    RETURN;
  END IF;

  -- The span: the deliverable run from the head, at most p_batch messages (pop_messages explains the walk).
  v_visible_before := CASE WHEN v_delayed > 0 THEN v_now - make_interval(secs => v_delayed) ELSE 'infinity'::timestamptz END;
  FOR v_segment IN
    SELECT s.first_offset, s.last_offset, s.created_at FROM queen.segments s
    WHERE s.partition_id = p_partition_id AND s.last_offset > v_cursor.committed
    ORDER BY s.last_offset
    LIMIT p_batch
  LOOP
    EXIT WHEN v_segment.created_at > v_visible_before;
    v_start := greatest(v_segment.first_offset, v_cursor.committed + 1);
    v_span_last := v_segment.last_offset;
    IF v_segment.last_offset - v_start + 1 >= v_take THEN
      v_end := v_start + v_take - 1;
      EXIT;
    END IF;
    v_end := v_segment.last_offset;
    v_take := v_take - (v_segment.last_offset - v_start + 1)::integer;
  END LOOP;
  IF v_end IS NULL THEN
    RETURN QUERY SELECT NULL::text, NULL::uuid, NULL::text, NULL::bigint, NULL::uuid, NULL::text, NULL::uuid,
                        NULL::text, NULL::text, NULL::text, CASE WHEN v_delayed > 0 THEN 'delayed' ELSE 'none' END,
                        NULL::integer, NULL::text;
    RETURN;
  END IF;

  RETURN QUERY
  SELECT p_queue, p_partition_id, v_partition.name, s.first_offset + m.n - 1,
         m.id, m.txn, m.trace, m.payload, m.sub,
         to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),  -- format_micros
         NULL::text, NULL::integer, m.context
  FROM queen.segments s
  CROSS JOIN LATERAL unnest(s.message_ids, s.transaction_ids, s.trace_ids, s.payloads, s.producer_subs, s.trace_contexts)
    WITH ORDINALITY AS m (id, txn, trace, payload, sub, context, n)
  WHERE s.partition_id = p_partition_id AND s.last_offset > v_cursor.committed AND s.last_offset <= v_span_last
    AND s.first_offset + m.n - 1 > v_cursor.committed AND s.first_offset + m.n - 1 <= v_end
  ORDER BY s.last_offset, m.n;
  GET DIAGNOSTICS v_delivered = ROW_COUNT;

  IF p_auto_ack THEN
    UPDATE queen.cursors c
    SET committed = v_end, lease_id = NULL, lease_span_end = NULL, lease_expires_at = NULL,
        retry_count = 0, not_before = NULL, claims_since_advance = 0,
        total_consumed = c.total_consumed + v_delivered, batches_consumed = c.batches_consumed + 1,
        last_consumed_at = v_now, last_activity_at = v_now
    WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group;
  ELSE
    -- From the claim, not the transaction's start; taken into a variable first (Citus refuses a volatile
    -- function in a distributed UPDATE).
    v_expires := clock_timestamp() + make_interval(secs => CASE WHEN p_lease_seconds > 0 THEN p_lease_seconds
                                                                WHEN v_lease_time > 0 THEN v_lease_time ELSE 60 END);
    UPDATE queen.cursors c
    SET lease_id = p_lease_id, lease_span_end = v_end, lease_expires_at = v_expires,
        claims_since_advance = c.claims_since_advance + 1, batches_consumed = c.batches_consumed + 1,
        last_activity_at = v_now
    WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group;
  END IF;
END
$$;

-- Delegated: a call runs on the worker that holds p_partition_id's shard, in one round trip.
SELECT create_distributed_function('queen.partition_claim(uuid, text, text, integer, uuid, integer, boolean)',
  'p_partition_id', colocate_with := 'queen.partitions');
