-- ack_messages: apply a batch of acks.
--   Parameters: item i is (p_transaction_id[i], p_partition_id[i] (null when not a UUID), p_status[i],
--     p_group[i] (effective group), p_lease_id[i] (null when absent), p_error[i]).
--   Result: one row per item, in item order: (item, success, error, queue_name, partition_name,
--     lease_released, dlq).
--   Rules: every item is checked against the state of its (partition, group) as it was when the call started
--     (C1-C6 of docs/api.md 6.3); items that pass are applied per pair in ascending offset order. The cursor is
--     cumulative, never moves back and never passes a message this call failed or retried.
--   Locks: cursor rows FOR UPDATE, in (partition id, group) order; when an ack reaches the partition's tail,
--     its backlog entry is removed under the partition row FOR SHARE SKIP LOCKED (backlog_drop).
--   Notifies: nothing; the broker wakes the queue's parked pops after the commit when a lease was released
--     (lease_released in the result).
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
SET enable_seqscan = off            -- see README.md: hot paths never scan a table
SET plan_cache_mode = force_generic_plan  -- and never pay for planning on a call
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
BEGIN
  IF v_count IS NULL OR v_count = 0 THEN
    RETURN;
  END IF;
  v_success := array_fill(false, ARRAY[v_count]);
  v_error := array_fill(NULL::text, ARRAY[v_count]);
  v_released := array_fill(false, ARRAY[v_count]);
  v_dlq := array_fill(false, ARRAY[v_count]);

  -- C2: resolve each transactionId to its offset in the named partition. Every table is read by key, per
  -- item or per distinct partition, never joined (README.md, "Plans that survive any statistics").
  WITH named AS MATERIALIZED (
    SELECT d.pid, p.name AS partition_name,
           (SELECT q.name FROM queen.queues q WHERE q.id = p.queue_id) AS queue_name
    FROM (SELECT DISTINCT u.pid FROM unnest(p_partition_id) AS u (pid)) d
    CROSS JOIN LATERAL (SELECT p.name, p.queue_id FROM queen.partitions p WHERE p.id = d.pid LIMIT 1) p
  ), keyed AS MATERIALIZED (
    SELECT t.i, t.pid,
           (SELECT k.message_offset FROM queen.message_keys k
            WHERE k.partition_id = t.pid AND k.transaction_id = t.txn) AS message_offset
    FROM unnest(p_transaction_id, p_partition_id) WITH ORDINALITY AS t (txn, pid, i)
  )
  SELECT array_agg(keyed.message_offset ORDER BY keyed.i),
         array_agg(CASE WHEN keyed.message_offset IS NOT NULL THEN n.queue_name END ORDER BY keyed.i),
         array_agg(CASE WHEN keyed.message_offset IS NOT NULL THEN n.partition_name END ORDER BY keyed.i)
  INTO v_offset, v_queue_name, v_partition_name
  FROM keyed
  LEFT JOIN named n ON n.pid = keyed.pid;

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
    SELECT a.pid, a.grp, q.id AS queue_id, q.name AS queue_name, q.namespace, q.task, q.retry_limit, q.retry_delay,
           p.name AS pname, p.tail, a.items
    FROM (SELECT t.pid, t.grp, array_agg(t.i::integer ORDER BY t.k, t.i) AS items
          FROM unnest(p_partition_id, p_group, v_offset) WITH ORDINALITY AS t (pid, grp, k, i)
          WHERE t.k IS NOT NULL
          GROUP BY t.pid, t.grp) a
    CROSS JOIN LATERAL (SELECT p.name, p.tail, p.queue_id FROM queen.partitions p WHERE p.id = a.pid LIMIT 1) p
    CROSS JOIN LATERAL (SELECT q.* FROM queen.queues q WHERE q.id = p.queue_id LIMIT 1) q
    ORDER BY a.pid, a.grp
  LOOP
    SELECT * INTO v_cursor FROM queen.cursors c
    WHERE c.partition_id = v_pair.pid AND c.consumer_group = v_pair.grp FOR UPDATE;
    IF NOT FOUND THEN
      PERFORM pg_advisory_xact_lock(queen.cursor_lock_key(v_pair.pid, v_pair.grp));
      INSERT INTO queen.cursors (partition_id, consumer_group, committed)
      VALUES (v_pair.pid, v_pair.grp, queen.cursor_seed(v_pair.queue_id, v_pair.pid, v_pair.pname, v_pair.grp))
      ON CONFLICT DO NOTHING;
      SELECT * INTO STRICT v_cursor FROM queen.cursors c
      WHERE c.partition_id = v_pair.pid AND c.consumer_group = v_pair.grp FOR UPDATE;
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
      ELSIF v_status = 'retry' OR (v_status = 'failed' AND v_retries < v_pair.retry_limit) THEN
        IF v_status = 'failed' THEN
          v_retries := v_retries + 1;
          v_not_before := CASE WHEN v_pair.retry_delay > 0
                               THEN v_now + make_interval(secs => v_pair.retry_delay / 1000.0) END;
        END IF;
        v_released[v_i] := true;
        v_lease_open := false;
        v_blocked := true;
        CONTINUE;
      ELSE                                 -- 'dlq', or 'failed' with the retry budget spent
        INSERT INTO queen.dead_letters (partition_id, consumer_group, message_offset, message_id,
                                        transaction_id, error_message, retry_count)
        SELECT v_pair.pid, v_pair.grp, v_k, s.message_ids[v_k - s.first_offset + 1], p_transaction_id[v_i],
               coalesce(p_error[v_i], CASE WHEN v_status = 'dlq' THEN 'Moved to DLQ by consumer'
                                           ELSE 'Retries exhausted' END),
               v_retries
        FROM (SELECT * FROM queen.segments s
              WHERE s.partition_id = v_pair.pid AND s.last_offset >= v_k
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
    WHERE c.partition_id = v_pair.pid AND c.consumer_group = v_pair.grp;

    -- Caught up with the tail this call saw: the partition leaves the wildcard pops' index now, instead of
    -- being walked and dropped by a later pop (backlog_drop checks again under the partition lock).
    IF v_committed > v_cursor.committed AND v_committed >= v_pair.tail THEN
      PERFORM queen.backlog_drop(v_pair.queue_id, v_pair.grp, v_pair.pid, v_committed);
    END IF;
  END LOOP;

  RETURN QUERY
  SELECT t.i::integer, v_success[t.i], v_error[t.i], v_queue_name[t.i], v_partition_name[t.i],
         v_released[t.i], v_dlq[t.i]
  FROM generate_series(1, v_count) AS t (i);
END
$$;
