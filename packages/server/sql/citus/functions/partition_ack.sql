-- partition_ack: ack_messages (sql/functions/ack_messages.sql) for the items of ONE partition, the entry point a
-- Citus deployment delegates to the worker holding the partition (docs/scale-out.md sections 3 and 4). Installed
-- on Citus only (store/citus-schema.ts); single PostgreSQL keeps ack_messages. The rules C1-C6 and the effects
-- are ack_messages' (its header is the contract); here every statement names p_partition_id as a constant, and
-- the helpers (cursor_lock_key, cursor_seed, backlog_drop) are inlined: a delegated function may only call
-- functions that exist on every worker.
--   Parameters: p_partition_id (the items' partitionId, every item's); item i is the i-th element of the arrays.
--   Result:   ack_messages' rows for these items, item numbered within this call.
--   Locks:    first the shard group's placement (Citus's metadata lock, shared, as its own writes take it), so a
--             shard move switches over before or after the call, never inside it (docs/scale-out.md 9a); then
--             cursor rows of (p_partition_id, group) FOR UPDATE in group order.
CREATE OR REPLACE FUNCTION queen.partition_ack(
  p_partition_id uuid,
  p_transaction_id text[],
  p_status text[],
  p_group text[],
  p_lease_id text[],
  p_error text[]
) RETURNS TABLE (item integer, success boolean, error text, queue_name text, partition_name text,
                 lease_released boolean, dlq boolean)
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- every statement names p_partition_id as a constant: Citus routes it
AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := now();
  v_count integer := cardinality(p_transaction_id);
  v_offset bigint[];
  v_queue_name text[];
  v_partition_name text[];
  v_success boolean[];
  v_error text[];
  v_released boolean[];
  v_dlq boolean[];
  v_pair record;
  v_cursor queen.cursors;
  v_live boolean;
  v_i integer;
  v_k bigint;
  v_status text;
  v_blocked boolean;
  v_committed bigint;
  v_retries integer;
  v_not_before timestamptz;
  v_lease_open boolean;
  v_partition record;
  v_queue record;
  v_known_tx text[];
  v_known_offset bigint[];
  v_seed bigint;
  v_from timestamptz;
BEGIN
  IF v_count IS NULL OR v_count = 0 THEN
    RETURN;
  END IF;
  -- The placement lock (Locks, above): Citus locks no reads, so a move could switch between a read and a write.
  PERFORM lock_shard_metadata(5, ARRAY[get_shard_id_for_distribution_column('queen.partitions', p_partition_id)]);
  v_success := array_fill(false, ARRAY[v_count]);
  v_error := array_fill(NULL::text, ARRAY[v_count]);
  v_released := array_fill(false, ARRAY[v_count]);
  v_dlq := array_fill(false, ARRAY[v_count]);

  -- C2: resolve each transactionId to its offset in the partition: one statement on the shard, then arrays.
  -- Not found: both records hold nulls, and every item is 'Message not found'.
  SELECT p.name, p.tail, p.queue_id INTO v_partition FROM queen.partitions p WHERE p.id = p_partition_id;
  SELECT q.id, q.name, q.retry_limit, q.retry_delay INTO v_queue FROM queen.queues q WHERE q.id = v_partition.queue_id;
  IF v_partition.queue_id IS NOT NULL THEN
    SELECT array_agg(k.transaction_id), array_agg(k.message_offset) INTO v_known_tx, v_known_offset
    FROM queen.message_keys k WHERE k.partition_id = p_partition_id AND k.transaction_id = ANY (p_transaction_id);
  END IF;
  SELECT array_agg(known.message_offset ORDER BY t.i),
         array_agg(CASE WHEN known.message_offset IS NOT NULL THEN v_queue.name END ORDER BY t.i),
         array_agg(CASE WHEN known.message_offset IS NOT NULL THEN v_partition.name END ORDER BY t.i)
  INTO v_offset, v_queue_name, v_partition_name
  FROM unnest(p_transaction_id) WITH ORDINALITY AS t (txn, i)
  LEFT JOIN unnest(v_known_tx, v_known_offset) AS known (transaction_id, message_offset) ON known.transaction_id = t.txn;

  FOR v_i IN 1 .. v_count LOOP
    IF p_status[v_i] NOT IN ('completed', 'success', 'failed', 'dlq', 'retry') THEN
      v_error[v_i] := 'Invalid status: ' || coalesce(p_status[v_i], '');
      v_queue_name[v_i] := NULL;
      v_partition_name[v_i] := NULL;
      v_offset[v_i] := NULL;
    ELSIF v_offset[v_i] IS NULL THEN
      v_error[v_i] := 'Message not found';
    END IF;
  END LOOP;

  FOR v_pair IN
    SELECT t.grp, array_agg(t.i::integer ORDER BY t.k, t.i) AS items
    FROM unnest(p_group, v_offset) WITH ORDINALITY AS t (grp, k, i)
    WHERE t.k IS NOT NULL
    GROUP BY t.grp
    ORDER BY t.grp
  LOOP
    SELECT * INTO v_cursor FROM queen.cursors c
    WHERE c.partition_id = p_partition_id AND c.consumer_group = v_pair.grp FOR UPDATE;
    IF NOT FOUND THEN
      -- cursor_lock_key and cursor_seed, inlined.
      PERFORM pg_advisory_xact_lock(hashtextextended(p_partition_id::text || '/' || v_pair.grp, 0));
      SELECT s.subscribed_from INTO v_from FROM queen.subscriptions s
      WHERE v_pair.grp <> '__QUEUE_MODE__' AND s.queue_id = v_queue.id AND s.consumer_group = v_pair.grp
        AND s.partition_name IN (v_partition.name, '')
      ORDER BY s.partition_name DESC LIMIT 1;
      v_seed := NULL;
      IF v_from IS NOT NULL THEN
        SELECT seg.last_offset INTO v_seed FROM queen.segments seg
        WHERE seg.partition_id = p_partition_id AND seg.created_at < v_from
        ORDER BY seg.created_at DESC, seg.last_offset DESC LIMIT 1;
      END IF;
      INSERT INTO queen.cursors (partition_id, consumer_group, committed)
      VALUES (p_partition_id, v_pair.grp, coalesce(v_seed, 0))
      ON CONFLICT DO NOTHING;
      SELECT * INTO STRICT v_cursor FROM queen.cursors c
      WHERE c.partition_id = p_partition_id AND c.consumer_group = v_pair.grp FOR UPDATE;
    END IF;
    v_live := coalesce(v_cursor.lease_expires_at > v_now, false);

    -- Checks C3-C6 against the state at the start of the call. v_error stays NULL for items to apply.
    FOREACH v_i IN ARRAY v_pair.items LOOP
      v_k := v_offset[v_i];
      IF v_k <= v_cursor.committed THEN
        v_success[v_i] := true;            -- C3: already settled, idempotent
        v_offset[v_i] := NULL;             -- nothing to apply
      ELSIF p_lease_id[v_i] IS NOT NULL THEN
        IF NOT v_live OR v_cursor.lease_id::text IS DISTINCT FROM lower(p_lease_id[v_i]) THEN
          v_error[v_i] := 'Invalid or expired lease';
        ELSIF v_k > v_cursor.lease_span_end THEN
          v_error[v_i] := 'Message is outside the leased span';
        END IF;
      ELSIF v_live THEN
        v_error[v_i] := 'leaseId required: partition is leased';
      END IF;
    END LOOP;

    -- Effects, in offset order.
    v_committed := v_cursor.committed;
    v_retries := v_cursor.retry_count;
    v_not_before := v_cursor.not_before;
    v_lease_open := v_live;
    v_blocked := false;
    FOREACH v_i IN ARRAY v_pair.items LOOP
      CONTINUE WHEN v_offset[v_i] IS NULL OR v_error[v_i] IS NOT NULL;
      v_k := v_offset[v_i];
      v_status := p_status[v_i];
      IF v_blocked THEN
        v_error[v_i] := 'Not applied: an earlier message of this partition failed in this request';
        CONTINUE;
      END IF;
      v_success[v_i] := true;
      IF v_k <= v_committed THEN
        CONTINUE;                          -- settled by an earlier item of this call
      END IF;
      IF v_status IN ('completed', 'success') THEN
        v_committed := v_k;
        v_retries := 0;
        v_not_before := NULL;
      ELSIF v_status = 'retry' OR (v_status = 'failed' AND v_retries < v_queue.retry_limit) THEN
        IF v_status = 'failed' THEN
          v_retries := v_retries + 1;
          v_not_before := CASE WHEN v_queue.retry_delay > 0
                               THEN v_now + make_interval(secs => v_queue.retry_delay / 1000.0) END;
        END IF;
        v_released[v_i] := true;
        v_lease_open := false;
        v_blocked := true;
        CONTINUE;
      ELSE                                 -- 'dlq', or 'failed' with the retry budget spent
        INSERT INTO queen.dead_letters (partition_id, consumer_group, message_offset, message_id,
                                        transaction_id, error_message, retry_count)
        SELECT p_partition_id, v_pair.grp, v_k, s.message_ids[v_k - s.first_offset + 1], p_transaction_id[v_i],
               coalesce(p_error[v_i], CASE WHEN v_status = 'dlq' THEN 'Moved to DLQ by consumer'
                                           ELSE 'Retries exhausted' END),
               v_retries
        FROM (SELECT * FROM queen.segments s
              WHERE s.partition_id = p_partition_id AND s.last_offset >= v_k
              ORDER BY s.last_offset LIMIT 1) s
        WHERE s.first_offset <= v_k;
        v_dlq[v_i] := true;
        v_committed := v_k;
        v_retries := 0;
        v_not_before := NULL;
      END IF;
      IF v_lease_open AND v_committed >= v_cursor.lease_span_end THEN
        v_released[v_i] := true;
        v_lease_open := false;
      END IF;
    END LOOP;

    UPDATE queen.cursors c
    SET committed = v_committed,
        retry_count = v_retries,
        not_before = v_not_before,
        lease_id = CASE WHEN v_live AND NOT v_lease_open THEN NULL ELSE c.lease_id END,
        lease_span_end = CASE WHEN v_live AND NOT v_lease_open THEN NULL ELSE c.lease_span_end END,
        lease_expires_at = CASE WHEN v_live AND NOT v_lease_open THEN NULL ELSE c.lease_expires_at END,
        claims_since_advance = CASE WHEN v_committed > v_cursor.committed THEN 0 ELSE c.claims_since_advance END,
        total_consumed = c.total_consumed + (v_committed - v_cursor.committed),
        last_consumed_at = CASE WHEN v_committed > v_cursor.committed THEN v_now ELSE c.last_consumed_at END,
        last_activity_at = v_now
    WHERE c.partition_id = p_partition_id AND c.consumer_group = v_pair.grp;

    -- Caught up with the tail this call saw: the partition leaves the wildcard pops' index now, instead of
    -- being walked and dropped by a later pop (backlog_drop checks again under the partition lock).
    -- backlog_drop, inlined (no SQL API calls reach here: they are not delegated).
    IF v_committed > v_cursor.committed AND v_committed >= v_partition.tail
       AND EXISTS (SELECT 1 FROM queen.backlog b WHERE b.partition_id = p_partition_id AND b.queue_id = v_queue.id
                   AND b.consumer_group = v_pair.grp) THEN
      PERFORM 1 FROM queen.partitions p WHERE p.id = p_partition_id FOR SHARE SKIP LOCKED;
      IF FOUND AND NOT EXISTS (SELECT 1 FROM queen.segments s WHERE s.partition_id = p_partition_id AND s.last_offset > v_committed) THEN
        DELETE FROM queen.backlog b
        WHERE b.partition_id = p_partition_id AND b.queue_id = v_queue.id AND b.consumer_group = v_pair.grp;
      END IF;
    END IF;
  END LOOP;

  RETURN QUERY
  SELECT t.i::integer, v_success[t.i], v_error[t.i], v_queue_name[t.i], v_partition_name[t.i],
         v_released[t.i], v_dlq[t.i]
  FROM generate_series(1, v_count) AS t (i);
END
$$;

-- Delegated: a call runs on the worker that holds p_partition_id's shard, in one round trip.
SELECT create_distributed_function('queen.partition_ack(uuid, text[], text[], text[], text[], text[])',
  'p_partition_id', colocate_with := 'queen.partitions');
