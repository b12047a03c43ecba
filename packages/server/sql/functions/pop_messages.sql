-- pop_messages: one pop attempt.
--   Parameters: p_scope 'partition' (single-partition route), 'queue' (wildcard) or 'discovery';
--     p_queue / p_partition name the target (queue-scoped routes); p_namespace / p_task filter discovery
--     (null = any); p_group is the effective group; p_batch the total message budget; p_max_partitions caps
--     the partitions claimed (<= 0: no cap); p_lease_id is the pop's lease id; p_lease_seconds overrides the
--     queue lease when > 0; p_auto_ack commits instead of leasing; p_subscribe_mode / p_subscribe_from carry
--     a named group's seeding intent ('new' | 'timestamp' | null for all); p_first_attempt allows the queue
--     creation and record write of docs/api.md 5.3 steps 4-5; p_rotate_after is where the round-robin walk over
--     partition ids starts (exclusive); p_hold_under > 0 asks for the minPopWaitTime probe first.
--   Result: the delivered messages (trace_context: the stored W3C trace context, migration 0016), grouped by
--     partition in claim order, each partition in offset order;
--     or, when nothing was claimed, a single row whose empty_reason says why ('hold' with hold_ms when the
--     probe found 0 < deliverable < p_hold_under on a queue with minPopWaitTime).
--   Locks: cursor rows FOR UPDATE SKIP LOCKED: a (partition, group) that another pop or an ack is working
--     on is skipped, never waited for. Partition rows are only read (a reader sees committed tails only),
--     except FOR SHARE SKIP LOCKED when the wildcard walk removes a caught-up backlog entry (backlog_drop:
--     a partition found caught up, or consumed to its tail by an autoAck claim).
DROP FUNCTION IF EXISTS queen.pop_messages(text, text, text, text, text, text, integer, integer, uuid, integer,
                                           boolean, text, timestamptz, boolean, uuid, integer);
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
SET enable_seqscan = off            -- see README.md: hot paths never scan a table
SET plan_cache_mode = force_generic_plan  -- and never pay for planning on a call
AS $$
#variable_conflict use_column
DECLARE
  c_queue_mode constant text := '__QUEUE_MODE__';
  v_indexed boolean := false;
  v_now timestamptz := now();
  v_queue queen.queues;
  v_rotate uuid := coalesce(p_rotate_after, '00000000-0000-0000-0000-000000000000'::uuid);
  v_candidates refcursor;
  v_candidate record;
  v_cursor queen.cursors;
  v_segment record;
  v_remaining integer := p_batch;
  v_claimed integer := 0;
  v_seen integer := 0;
  v_reason text := 'none';
  v_take integer;
  v_start bigint;
  v_end bigint;
  v_span_last bigint;
  v_visible_before timestamptz;
  v_delivered integer;
  v_deliverable bigint;
  v_lease_seconds integer;
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

  -- minPopWaitTime probe: count what the claim would take without claiming it.
  IF p_scope = 'queue' AND p_hold_under > 0 AND v_queue.min_pop_wait_time > 0 THEN
    -- Deliverable = retained, above the cursor the claim would start from (the seed on first contact),
    -- old enough for delayedProcessing; at most p_batch per partition, over at most p_max_partitions.
    v_visible_before := CASE WHEN v_queue.delayed_processing > 0
                             THEN v_now - make_interval(secs => v_queue.delayed_processing)
                             ELSE 'infinity'::timestamptz END;
    SELECT coalesce(sum(ready.n), 0) INTO v_deliverable
    FROM (
      SELECT deliverable.n
      FROM queen.partitions p
      LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = p_group
      CROSS JOIN LATERAL (
        SELECT coalesce(c.committed,
                        CASE WHEN queen.subscription_from(v_queue.id, p.name, p_group) > v_now THEN p.tail
                             ELSE queen.cursor_seed(v_queue.id, p.id, p.name, p_group) END) AS committed
      ) base
      CROSS JOIN LATERAL (
        SELECT coalesce(sum(seg.last_offset - greatest(seg.first_offset, base.committed + 1) + 1), 0) AS n
        FROM (SELECT s.first_offset, s.last_offset, s.created_at FROM queen.segments s
              WHERE s.partition_id = p.id AND s.last_offset > base.committed
              ORDER BY s.last_offset LIMIT p_batch) seg
        WHERE seg.created_at <= v_visible_before  -- outside the LIMIT: by the key only (see the span below)
      ) deliverable
      WHERE p.queue_id = v_queue.id
        AND p.tail > coalesce(c.committed, 0)
        AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= v_now)
        AND (c.not_before IS NULL OR c.not_before <= v_now)
        AND (v_queue.window_buffer = 0
             OR p.last_push_at <= v_now - make_interval(secs => v_queue.window_buffer))
        AND deliverable.n > 0
      LIMIT CASE WHEN p_max_partitions > 0 THEN p_max_partitions END
    ) ready;
    IF v_deliverable > 0 AND v_deliverable < p_hold_under THEN
      RETURN QUERY SELECT NULL::text, NULL::uuid, NULL::text, NULL::bigint, NULL::uuid, NULL::text, NULL::uuid,
                          NULL::text, NULL::text, NULL::text, 'hold'::text, v_queue.min_pop_wait_time,
                          NULL::text;
      RETURN;
    END IF;
  END IF;

  -- Candidates. The queue-scoped walk starts after p_rotate_after and wraps around (round-robin), streaming
  -- in partition-id order so that a claim that fills its budget early reads no further. It reads the backlog
  -- index of (queue, group), not every partition: backlog_prepare registers the pair on its first wildcard
  -- pop and rebuilds its entries every backlog_rebuild_every(); a pair not registered (yet) walks every partition.
  IF p_scope = 'queue' THEN
    v_indexed := queen.backlog_prepare(v_queue.id, v_queue.name, p_group, v_now, queen.backlog_rebuild_every());
  END IF;
  IF p_scope = 'partition' THEN
    OPEN v_candidates FOR
      SELECT p.id, p.name, p.tail, p.last_push_at, v_queue.id AS queue_id, v_queue.name AS queue_name,
             v_queue.lease_time, v_queue.delayed_processing, v_queue.window_buffer, false AS has_cursor
      FROM queen.partitions p
      WHERE p.queue_id::text || p.name = v_queue.id::text || p_partition; -- partitions_lookup_idx
  ELSIF v_indexed THEN
    -- Caught-up entries are walked too (no tail filter): the claim loop removes them (backlog_drop). The
    -- partition and the cursor of each entry are looked up by key (LATERAL, kept subqueries by their LIMIT),
    -- never joined (README.md, "Plans that survive any statistics").
    OPEN v_candidates FOR
      SELECT * FROM (
        (SELECT p.id, p.name, p.tail, p.last_push_at, v_queue.id AS queue_id, v_queue.name AS queue_name,
                v_queue.lease_time, v_queue.delayed_processing, v_queue.window_buffer,
                c.partition_id IS NOT NULL AS has_cursor
         FROM queen.backlog b
         CROSS JOIN LATERAL (SELECT p.* FROM queen.partitions p WHERE p.id = b.partition_id LIMIT 1) p
         LEFT JOIN LATERAL (SELECT * FROM queen.cursors c
                            WHERE c.partition_id = b.partition_id AND c.consumer_group = p_group LIMIT 1) c ON true
         WHERE b.queue_id = v_queue.id AND b.consumer_group = p_group AND b.partition_id > v_rotate
           AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= v_now)
           AND (c.not_before IS NULL OR c.not_before <= v_now)
         ORDER BY b.partition_id)
        UNION ALL
        (SELECT p.id, p.name, p.tail, p.last_push_at, v_queue.id, v_queue.name,
                v_queue.lease_time, v_queue.delayed_processing, v_queue.window_buffer,
                c.partition_id IS NOT NULL
         FROM queen.backlog b
         CROSS JOIN LATERAL (SELECT p.* FROM queen.partitions p WHERE p.id = b.partition_id LIMIT 1) p
         LEFT JOIN LATERAL (SELECT * FROM queen.cursors c
                            WHERE c.partition_id = b.partition_id AND c.consumer_group = p_group LIMIT 1) c ON true
         WHERE b.queue_id = v_queue.id AND b.consumer_group = p_group AND b.partition_id <= v_rotate
           AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= v_now)
           AND (c.not_before IS NULL OR c.not_before <= v_now)
         ORDER BY b.partition_id)
      ) walk;
  ELSIF p_scope = 'queue' THEN
    -- (queue_id, id) row comparisons, not `p.id > v_rotate`: only partitions_rotation_idx serves them, where
    -- the id bound let the generic plan walk partitions_pkey over every queue's partitions (backlog_prepare).
    -- The cursor is looked up per partition (LATERAL, kept a subquery by its LIMIT): joined, the generic plan
    -- merge-joined the group's cursors of every queue.
    OPEN v_candidates FOR
      SELECT * FROM (
        (SELECT p.id, p.name, p.tail, p.last_push_at, v_queue.id AS queue_id, v_queue.name AS queue_name,
                v_queue.lease_time, v_queue.delayed_processing, v_queue.window_buffer,
                c.partition_id IS NOT NULL AS has_cursor
         FROM queen.partitions p
         LEFT JOIN LATERAL (SELECT * FROM queen.cursors c
                            WHERE c.partition_id = p.id AND c.consumer_group = p_group LIMIT 1) c ON true
         WHERE p.queue_id = v_queue.id AND (p.queue_id, p.id) > (v_queue.id, v_rotate)
           AND p.tail > coalesce(c.committed, 0)
           AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= v_now)
           AND (c.not_before IS NULL OR c.not_before <= v_now)
         ORDER BY p.id)
        UNION ALL
        (SELECT p.id, p.name, p.tail, p.last_push_at, v_queue.id, v_queue.name,
                v_queue.lease_time, v_queue.delayed_processing, v_queue.window_buffer,
                c.partition_id IS NOT NULL
         FROM queen.partitions p
         LEFT JOIN LATERAL (SELECT * FROM queen.cursors c
                            WHERE c.partition_id = p.id AND c.consumer_group = p_group LIMIT 1) c ON true
         WHERE p.queue_id = v_queue.id AND (p.queue_id, p.id) <= (v_queue.id, v_rotate)
           AND p.tail > coalesce(c.committed, 0)
           AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= v_now)
           AND (c.not_before IS NULL OR c.not_before <= v_now)
         ORDER BY p.id)
      ) walk;
  ELSE
    OPEN v_candidates FOR
      SELECT p.id, p.name, p.tail, p.last_push_at, q.id AS queue_id, q.name AS queue_name,
             q.lease_time, q.delayed_processing, q.window_buffer, c.partition_id IS NOT NULL AS has_cursor
      FROM queen.queues q
      JOIN queen.partitions p ON p.queue_id = q.id
      LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = p_group
      WHERE (p_namespace IS NULL OR q.namespace = p_namespace)
        AND (p_task IS NULL OR q.task = p_task)
        AND p.tail > coalesce(c.committed, 0)
        AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= v_now)
        AND (c.not_before IS NULL OR c.not_before <= v_now)
      ORDER BY q.priority DESC, p.id <= v_rotate, p.id;
  END IF;

  LOOP
    FETCH v_candidates INTO v_candidate;
    EXIT WHEN NOT FOUND;
    v_seen := v_seen + 1;

    -- Lock this (partition, group), or create it seeded on first contact. Busy rows are skipped.
    SELECT * INTO v_cursor FROM queen.cursors c
    WHERE c.partition_id = v_candidate.id AND c.consumer_group = p_group
    FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
      IF v_candidate.has_cursor
         OR EXISTS (SELECT 1 FROM queen.cursors c
                    WHERE c.partition_id = v_candidate.id AND c.consumer_group = p_group) THEN
        v_reason := 'leased';
        CONTINUE;
      END IF;
      -- A subscription starting in the future: the pair is not contacted (nor seeded) before then, so
      -- nothing written before that instant can end up above its cursor.
      IF queen.subscription_from(v_candidate.queue_id, v_candidate.name, p_group) > v_now THEN
        CONTINUE;
      END IF;
      -- First contact. A concurrent pop creating the same row would make our INSERT wait for its commit:
      -- the advisory lock turns that wait into a skip, like SKIP LOCKED does for existing rows.
      IF NOT pg_try_advisory_xact_lock(queen.cursor_lock_key(v_candidate.id, p_group)) THEN
        v_reason := 'leased';
        CONTINUE;
      END IF;
      IF p_scope = 'discovery' AND p_subscribe_mode IS NOT NULL AND p_group <> c_queue_mode THEN
        PERFORM queen.subscription_record(v_candidate.queue_id, p_group, '', p_subscribe_mode, p_subscribe_from);
      END IF;
      INSERT INTO queen.cursors (partition_id, consumer_group, committed)
      VALUES (v_candidate.id, p_group,
              queen.cursor_seed(v_candidate.queue_id, v_candidate.id, v_candidate.name, p_group))
      ON CONFLICT DO NOTHING
      RETURNING * INTO v_cursor;
      IF NOT FOUND THEN
        v_reason := 'leased';
        CONTINUE;
      END IF;
    END IF;

    IF v_cursor.lease_expires_at > v_now THEN
      v_reason := 'leased';
      CONTINUE;
    END IF;
    IF v_cursor.not_before > v_now THEN
      v_reason := 'retry_delay';
      CONTINUE;
    END IF;
    IF v_candidate.window_buffer > 0
       AND v_candidate.last_push_at > v_now - make_interval(secs => v_candidate.window_buffer) THEN
      v_reason := 'window_buffer';
      CONTINUE;
    END IF;
    IF v_candidate.tail <= v_cursor.committed THEN
      IF v_indexed THEN
        PERFORM queen.backlog_drop(v_candidate.queue_id, p_group, v_candidate.id, v_cursor.committed);
      END IF;
      CONTINUE;
    END IF;

    -- The span: the deliverable run from the head, at most v_remaining messages. Segments too young for
    -- delayedProcessing are always at the tail (push_messages keeps createdAt growing with the offset), so the
    -- visible part is a prefix: the walk stops at the first young one. The age is checked here, not in the
    -- WHERE clause: there it made segments_created_idx (partition_id, created_at) a candidate index, which a
    -- generic plan on a table without statistics took, reading and sorting every segment of the partition.
    v_visible_before := CASE WHEN v_candidate.delayed_processing > 0
                             THEN v_now - make_interval(secs => v_candidate.delayed_processing)
                             ELSE 'infinity'::timestamptz END;
    v_end := NULL;
    v_take := v_remaining;
    FOR v_segment IN
      SELECT s.first_offset, s.last_offset, s.created_at FROM queen.segments s
      WHERE s.partition_id = v_candidate.id AND s.last_offset > v_cursor.committed
      ORDER BY s.last_offset
      LIMIT v_remaining
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
      IF v_candidate.delayed_processing > 0 THEN
        v_reason := 'delayed';
      END IF;
      IF v_indexed THEN  -- nothing retained above the cursor (cleared, evicted): drop the entry
        PERFORM queen.backlog_drop(v_candidate.queue_id, p_group, v_candidate.id, v_cursor.committed);
      END IF;
      CONTINUE;
    END IF;

    -- Bounded above by the span's last segment, in the index condition: `first_offset <= v_end` alone is a
    -- filter, which read every segment above the cursor (a pop of one message from a partition holding 60 000
    -- one-message segments took 8 ms instead of 1).
    -- createdAt is formatted once per segment (the subquery, kept one by its OFFSET), not once per message.
    RETURN QUERY
    SELECT v_candidate.queue_name, v_candidate.id, v_candidate.name, s.first_offset + m.n - 1,
           m.id, m.txn, m.trace, m.payload, m.sub, s.created, NULL::text, NULL::integer,
           m.context
    FROM (SELECT s.*, queen.format_micros(s.created_at) AS created FROM queen.segments s
          WHERE s.partition_id = v_candidate.id AND s.last_offset > v_cursor.committed
            AND s.last_offset <= v_span_last OFFSET 0) s
    CROSS JOIN LATERAL unnest(s.message_ids, s.transaction_ids, s.trace_ids, s.payloads, s.producer_subs,
                              s.trace_contexts)
      WITH ORDINALITY AS m (id, txn, trace, payload, sub, context, n)
    WHERE s.first_offset + m.n - 1 > v_cursor.committed AND s.first_offset + m.n - 1 <= v_end
    ORDER BY s.last_offset, m.n;
    GET DIAGNOSTICS v_delivered = ROW_COUNT;

    IF p_auto_ack THEN
      UPDATE queen.cursors c
      SET committed = v_end, lease_id = NULL, lease_span_end = NULL, lease_expires_at = NULL,
          retry_count = 0, not_before = NULL, claims_since_advance = 0,
          total_consumed = c.total_consumed + v_delivered, batches_consumed = c.batches_consumed + 1,
          last_consumed_at = v_now, last_activity_at = v_now
      WHERE c.partition_id = v_candidate.id AND c.consumer_group = p_group;
      IF v_indexed AND v_end >= v_candidate.tail THEN  -- consumed to the tail: leaves the index now
        PERFORM queen.backlog_drop(v_candidate.queue_id, p_group, v_candidate.id, v_end);
      END IF;
    ELSE
      v_lease_seconds := CASE WHEN p_lease_seconds > 0 THEN p_lease_seconds
                              WHEN v_candidate.lease_time > 0 THEN v_candidate.lease_time
                              ELSE 60 END;
      -- The lease runs from the claim (clock_timestamp), not from the transaction's start (v_now): a pop
      -- that walked for longer than the lease would otherwise hand out a lease that has already expired.
      UPDATE queen.cursors c
      SET lease_id = p_lease_id, lease_span_end = v_end,
          lease_expires_at = clock_timestamp() + make_interval(secs => v_lease_seconds),
          claims_since_advance = c.claims_since_advance + 1, batches_consumed = c.batches_consumed + 1,
          last_activity_at = v_now
      WHERE c.partition_id = v_candidate.id AND c.consumer_group = p_group;
    END IF;

    v_remaining := v_remaining - v_delivered;
    v_claimed := v_claimed + 1;
    EXIT WHEN v_remaining <= 0 OR (p_max_partitions > 0 AND v_claimed >= p_max_partitions);
  END LOOP;
  CLOSE v_candidates;

  IF v_claimed = 0 THEN
    RETURN QUERY SELECT NULL::text, NULL::uuid, NULL::text, NULL::bigint, NULL::uuid, NULL::text, NULL::uuid,
                        NULL::text, NULL::text, NULL::text,
                        CASE WHEN p_scope = 'partition' AND v_seen = 0 THEN 'no_partition'
                             WHEN p_scope = 'partition' THEN v_reason
                             ELSE 'none' END,
                        NULL::integer, NULL::text;
  END IF;
END
$$;
