-- 0006_transactions_dlq_messages: transactions (API.md 7.1), message administration and the dead-letter
-- queue (API.md 7.3, 7.4, 7.5, 9.1). A transaction takes its locks with transaction_lock, then runs
-- push_messages and ack_messages one operation after the other inside one database transaction.
--
-- Deleting a message keeps its offset. The partition's tail never moves back and every later message keeps
-- its offset; the segment row that held the message is cut in two around it (both halves keep the commit's
-- created_at), so the offset simply holds no message any more. Every reader walks segments by offset range
-- (pop_messages, ack_messages, queue_mode_backlog, the queue detail), and a gap in the middle of a partition
-- is skipped exactly like the gap retention leaves at the front. No function of 0001-0005 is replaced here.
--
-- Every function below that removes messages or appends to a partition takes the partition row lock
-- (FOR UPDATE) first, the lock push_messages takes, so it is serialised with the writers of that partition.
--
-- Traces live in queen.traces, created by the next migration (0007). PL/pgSQL resolves table names when a
-- function first runs, not when it is created, and every start-up applies all migrations before serving, so
-- message_traces_delete can name that table here.

-- transaction_lock: take every lock a transaction's operations will need, in the global order, before the
-- first operation runs (API.md 7.1). Operations run in the client's order; without this, two transactions
-- touching the same partitions in opposite orders would deadlock.
--   Parameters: the (queue, partition) of every push item (already checked), the (partition id, group) of
--     every ack.
--   Effects: missing queues are created (implicit defaults) and missing partitions created, as push_messages
--     would; everything rolls back with the transaction.
--   Locks: queue rows created in name order; partition rows FOR UPDATE in (queue name, partition name)
--     order; then per (partition id, group) in that order the cursor row FOR UPDATE, or, for a pair not
--     contacted yet, the advisory lock under which ack_messages creates it. push_messages and ack_messages
--     later take the same locks again, which they already hold.
CREATE OR REPLACE FUNCTION queen.transaction_lock(p_queue text[], p_partition text[], p_ack_partition_id uuid[],
                                                 p_ack_group text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_key record;
BEGIN
  PERFORM queen.partitions_lock(p_queue, p_partition);

  FOR v_key IN
    SELECT DISTINCT t.partition_id, t.consumer_group
    FROM unnest(p_ack_partition_id, p_ack_group) AS t (partition_id, consumer_group)
    ORDER BY 1, 2
  LOOP
    PERFORM 1 FROM queen.cursors c
    WHERE c.partition_id = v_key.partition_id AND c.consumer_group = v_key.consumer_group FOR UPDATE;
    IF NOT FOUND THEN
      PERFORM pg_advisory_xact_lock(queen.cursor_lock_key(v_key.partition_id, v_key.consumer_group));
    END IF;
  END LOOP;
END
$$;

-- message_traces_delete: remove the trace events of the given messages of a partition; p_transaction_ids
-- null means every trace event of the partition.
CREATE OR REPLACE FUNCTION queen.message_traces_delete(p_partition_id uuid, p_transaction_ids text[])
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM queen.traces t
  WHERE t.partition_id = p_partition_id
    AND (p_transaction_ids IS NULL OR t.transaction_id = ANY (p_transaction_ids));
END
$$;

-- segment_at: the segment row holding offset p_offset of the partition, or no row (a removed message).
--   Reads the first row whose last_offset reaches p_offset through the primary key, then checks its start:
--   a filter inside the LIMIT would walk every later row when the offset falls in a gap.
CREATE OR REPLACE FUNCTION queen.segment_at(p_partition_id uuid, p_offset bigint) RETURNS SETOF queen.segments
LANGUAGE sql STABLE AS $$
  SELECT first.* FROM (
    SELECT s.* FROM queen.segments s
    WHERE s.partition_id = p_partition_id AND s.last_offset >= p_offset
    ORDER BY s.last_offset
    LIMIT 1
  ) first
  WHERE first.first_offset <= p_offset
$$;

-- message_at: the message at offset p_offset of the partition, or no row.
CREATE OR REPLACE FUNCTION queen.message_at(p_partition_id uuid, p_offset bigint)
RETURNS TABLE (message_id uuid, transaction_id text, trace_id uuid, payload text, producer_sub text,
               created_at timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT s.message_ids[x.i], s.transaction_ids[x.i], s.trace_ids[x.i], s.payloads[x.i], s.producer_subs[x.i],
         s.created_at
  FROM queen.segment_at(p_partition_id, p_offset) s
  CROSS JOIN LATERAL (SELECT (p_offset - s.first_offset + 1)::integer AS i) x
$$;

-- message_find: the retained message with this transactionId in this partition, with its offset, or no row.
CREATE OR REPLACE FUNCTION queen.message_find(p_partition_id uuid, p_transaction_id text)
RETURNS TABLE (message_offset bigint, message_id uuid, trace_id uuid, payload text, producer_sub text,
               created_at timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT k.message_offset, m.message_id, m.trace_id, m.payload, m.producer_sub, m.created_at
  FROM queen.message_keys k
  CROSS JOIN LATERAL queen.message_at(k.partition_id, k.message_offset) m
  WHERE k.partition_id = p_partition_id AND k.transaction_id = p_transaction_id
$$;

-- segment_cut: take the message at p_offset out of its segment row, leaving every other message at its
-- offset: the row is replaced by the run before p_offset and the run after it (either may be empty), both
-- with the row's created_at. The caller holds the partition row lock.
--   Result: true when a message was at p_offset.
CREATE OR REPLACE FUNCTION queen.segment_cut(p_partition_id uuid, p_offset bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_segment queen.segments;
  v_i integer;
  v_n integer;
BEGIN
  DELETE FROM queen.segments s
  USING queen.segment_at(p_partition_id, p_offset) found
  WHERE s.partition_id = p_partition_id AND s.last_offset = found.last_offset
  RETURNING s.* INTO v_segment;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  v_i := (p_offset - v_segment.first_offset + 1)::integer;
  v_n := (v_segment.last_offset - v_segment.first_offset + 1)::integer;
  INSERT INTO queen.segments (partition_id, first_offset, last_offset, created_at, message_ids, transaction_ids,
                              trace_ids, payloads, producer_subs)
  SELECT p_partition_id, r.first_offset, r.last_offset, v_segment.created_at,
         v_segment.message_ids[r.lo:r.hi], v_segment.transaction_ids[r.lo:r.hi], v_segment.trace_ids[r.lo:r.hi],
         v_segment.payloads[r.lo:r.hi], v_segment.producer_subs[r.lo:r.hi]
  FROM (VALUES (v_segment.first_offset, p_offset - 1, 1, v_i - 1),
               (p_offset + 1, v_segment.last_offset, v_i + 1, v_n)) AS r (first_offset, last_offset, lo, hi)
  WHERE r.first_offset <= r.last_offset;
  RETURN true;
END
$$;

-- message_delete: delete one message (API.md 7.4). Its offset stays and pops skip it; its transactionId is
-- freed (the message_keys row goes); its DLQ entries and traces go. Cursors and leases are untouched: an ack
-- of the deleted message answers "Message not found", acks of its neighbours work as before.
--   Result: true when the message existed.
--   Locks: the partition row (FOR UPDATE).
CREATE OR REPLACE FUNCTION queen.message_delete(p_partition_id uuid, p_transaction_id text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_offset bigint;
BEGIN
  PERFORM 1 FROM queen.partitions p WHERE p.id = p_partition_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  DELETE FROM queen.message_keys k
  WHERE k.partition_id = p_partition_id AND k.transaction_id = p_transaction_id
  RETURNING k.message_offset INTO v_offset;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM queen.segment_cut(p_partition_id, v_offset);
  DELETE FROM queen.dead_letters d WHERE d.partition_id = p_partition_id AND d.message_offset = v_offset;
  PERFORM queen.message_traces_delete(p_partition_id, ARRAY[p_transaction_id]);
  RETURN true;
END
$$;

-- message_requeue: requeue a dead-lettered message (API.md 7.4 retry): push a new message with the same
-- payload, traceId and producerSub to the same partition through push_messages (new message id
-- p_message_id, new transactionId p_new_transaction_id), then delete every DLQ entry of the original. The
-- original stays where it is; every group sees the new message at the tail.
--   Result: one row (outcome 'requeued' | 'not_found' | 'not_in_dlq' | 'failed', dlq_entries_removed, error
--     (the push failure, e.g. maxSize), queue_name, queue_namespace, queue_task).
--   Locks: the partition row (FOR UPDATE) before anything is read, so two requeues of one message cannot
--     both push.
--   Notifies: nothing; the broker wakes the queue's parked pops after the commit.
CREATE OR REPLACE FUNCTION queen.message_requeue(p_partition_id uuid, p_transaction_id text, p_message_id uuid,
                                                p_new_transaction_id text)
RETURNS TABLE (outcome text, dlq_entries_removed integer, error text, queue_name text, queue_namespace text,
               queue_task text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_partition record;
  v_message record;
  v_pushed record;
  v_removed integer;
BEGIN
  SELECT p.name, q.name AS queue_name, q.namespace, q.task INTO v_partition
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  WHERE p.id = p_partition_id
  FOR UPDATE OF p;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_found'::text, 0, NULL::text, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  SELECT * INTO v_message FROM queen.message_find(p_partition_id, p_transaction_id);
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_found'::text, 0, NULL::text, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM queen.dead_letters d
                 WHERE d.partition_id = p_partition_id AND d.message_offset = v_message.message_offset) THEN
    RETURN QUERY SELECT 'not_in_dlq'::text, 0, NULL::text, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;

  SELECT r.status, r.error INTO v_pushed
  FROM queen.push_messages(ARRAY[v_partition.queue_name], ARRAY[v_partition.name], ARRAY[p_message_id],
                           ARRAY[p_new_transaction_id], ARRAY[v_message.trace_id], ARRAY[v_message.payload],
                           ARRAY[v_message.producer_sub]) r;
  IF v_pushed.status <> 'queued' THEN
    RETURN QUERY SELECT 'failed'::text, 0, coalesce(v_pushed.error, 'Push failed'), v_partition.queue_name,
                        v_partition.namespace, v_partition.task;
    RETURN;
  END IF;
  DELETE FROM queen.dead_letters d
  WHERE d.partition_id = p_partition_id AND d.message_offset = v_message.message_offset;
  GET DIAGNOSTICS v_removed = ROW_COUNT;
  RETURN QUERY SELECT 'requeued'::text, v_removed, NULL::text, v_partition.queue_name, v_partition.namespace,
                      v_partition.task;
END
$$;

-- message_dead_letter: move a group's head message to the DLQ (API.md 7.4 dlq). Only the head can move:
-- moving a later message would silently settle the ones before it. Effects, like a `dlq` ack: a DLQ entry
-- (error p_error, else 'Moved to DLQ by operator'; retry count = the group's counter), the cursor moves to
-- the message, the retry counter and not-before reset, and a live lease whose span is then settled is
-- released. A never-contacted (partition, group) starts from its seed and is created only when the move
-- succeeds.
--   Result: one row (outcome 'moved' | 'not_found' | 'consumed' | 'not_head', lease_released, queue_name,
--     queue_namespace, queue_task).
--   Locks: the cursor row (FOR UPDATE), as ack_messages does; creation under the cursor's advisory lock.
--   Notifies: queen_wake for the queue when the lease was released.
CREATE OR REPLACE FUNCTION queen.message_dead_letter(p_origin text, p_partition_id uuid, p_transaction_id text,
                                                    p_group text, p_error text)
RETURNS TABLE (outcome text, lease_released boolean, queue_name text, queue_namespace text, queue_task text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := now();
  v_message record;
  v_partition record;
  v_cursor queen.cursors;
  v_new boolean;
  v_head bigint;
  v_release boolean;
BEGIN
  SELECT * INTO v_message FROM queen.message_find(p_partition_id, p_transaction_id);
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_found'::text, false, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  SELECT p.name, q.id AS queue_id, q.name AS queue_name, q.namespace, q.task INTO STRICT v_partition
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  WHERE p.id = p_partition_id;

  SELECT * INTO v_cursor FROM queen.cursors c
  WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group FOR UPDATE;
  v_new := NOT FOUND;
  IF v_new THEN
    -- Nobody can create the row while we hold its advisory lock; re-check for a creator that just committed.
    PERFORM pg_advisory_xact_lock(queen.cursor_lock_key(p_partition_id, p_group));
    SELECT * INTO v_cursor FROM queen.cursors c
    WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group FOR UPDATE;
    v_new := NOT FOUND;
    IF v_new THEN
      v_cursor.committed := queen.cursor_seed(v_partition.queue_id, p_partition_id, v_partition.name, p_group);
      v_cursor.retry_count := 0;
    END IF;
  END IF;

  IF v_message.message_offset <= v_cursor.committed THEN
    RETURN QUERY SELECT 'consumed'::text, false, v_partition.queue_name, v_partition.namespace, v_partition.task;
    RETURN;
  END IF;
  SELECT greatest(s.first_offset, v_cursor.committed + 1) INTO v_head
  FROM queen.segments s
  WHERE s.partition_id = p_partition_id AND s.last_offset > v_cursor.committed
  ORDER BY s.last_offset
  LIMIT 1;
  IF v_head IS DISTINCT FROM v_message.message_offset THEN
    RETURN QUERY SELECT 'not_head'::text, false, v_partition.queue_name, v_partition.namespace, v_partition.task;
    RETURN;
  END IF;

  INSERT INTO queen.dead_letters (partition_id, consumer_group, message_offset, message_id, transaction_id,
                                  error_message, retry_count)
  VALUES (p_partition_id, p_group, v_message.message_offset, v_message.message_id, p_transaction_id,
          coalesce(p_error, 'Moved to DLQ by operator'), v_cursor.retry_count);

  v_release := coalesce(v_cursor.lease_expires_at > v_now, false)
               AND v_message.message_offset >= v_cursor.lease_span_end;
  IF v_new THEN
    INSERT INTO queen.cursors (partition_id, consumer_group, committed, total_consumed, last_consumed_at,
                               last_activity_at)
    VALUES (p_partition_id, p_group, v_message.message_offset, v_message.message_offset - v_cursor.committed,
            v_now, v_now);
  ELSE
    UPDATE queen.cursors c
    SET committed = v_message.message_offset, retry_count = 0, not_before = NULL, claims_since_advance = 0,
        lease_id = CASE WHEN v_release THEN NULL ELSE c.lease_id END,
        lease_span_end = CASE WHEN v_release THEN NULL ELSE c.lease_span_end END,
        lease_expires_at = CASE WHEN v_release THEN NULL ELSE c.lease_expires_at END,
        total_consumed = c.total_consumed + (v_message.message_offset - c.committed),
        last_consumed_at = v_now, last_activity_at = v_now
    WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group;
  END IF;
  IF v_release THEN
    PERFORM pg_notify('queen_wake', json_build_object('origin', p_origin, 'queue', v_partition.queue_name,
                      'namespace', v_partition.namespace, 'task', v_partition.task)::text);
  END IF;
  RETURN QUERY SELECT 'moved'::text, v_release, v_partition.queue_name, v_partition.namespace, v_partition.task;
END
$$;

-- queue_clear: delete every retained message of a queue, or of one of its partitions (API.md 7.3), with
-- their keys (transactionIds are freed), DLQ entries and traces, and release the live leases on the
-- affected partitions. Cursors, subscription records, configuration and tails stay: offsets keep growing.
--   Result: one row (outcome 'cleared' | 'queue_not_found' | 'partition_not_found', deleted_messages,
--     queue_namespace, queue_task).
--   Locks: the affected partition rows (FOR UPDATE, in name order, as push_messages locks them).
--   Notifies: queen_wake for the queue when a lease was released.
CREATE OR REPLACE FUNCTION queen.queue_clear(p_origin text, p_queue text, p_partition text)
RETURNS TABLE (outcome text, deleted_messages bigint, queue_namespace text, queue_task text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_queue queen.queues;
  v_partition_ids uuid[];
  v_deleted bigint;
  v_released integer;
BEGIN
  SELECT * INTO v_queue FROM queen.queues q WHERE q.name = p_queue;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'queue_not_found'::text, 0::bigint, NULL::text, NULL::text;
    RETURN;
  END IF;
  SELECT array_agg(locked.id) INTO v_partition_ids
  FROM (SELECT p.id FROM queen.partitions p
        WHERE p.queue_id = v_queue.id AND (p_partition IS NULL OR p.name = p_partition)
        ORDER BY p.name
        FOR UPDATE) locked;
  IF v_partition_ids IS NULL AND p_partition IS NOT NULL THEN
    RETURN QUERY SELECT 'partition_not_found'::text, 0::bigint, v_queue.namespace, v_queue.task;
    RETURN;
  END IF;
  v_partition_ids := coalesce(v_partition_ids, '{}');

  WITH removed AS (
    DELETE FROM queen.segments s WHERE s.partition_id = ANY (v_partition_ids)
    RETURNING s.last_offset - s.first_offset + 1 AS n
  )
  SELECT coalesce(sum(removed.n), 0)::bigint INTO v_deleted FROM removed;
  DELETE FROM queen.message_keys k WHERE k.partition_id = ANY (v_partition_ids);
  DELETE FROM queen.dead_letters d WHERE d.partition_id = ANY (v_partition_ids);
  PERFORM queen.message_traces_delete(pid.id, NULL) FROM unnest(v_partition_ids) AS pid (id);

  UPDATE queen.cursors c
  SET lease_id = NULL, lease_span_end = NULL, lease_expires_at = NULL
  WHERE c.partition_id = ANY (v_partition_ids) AND c.lease_expires_at > now();
  GET DIAGNOSTICS v_released = ROW_COUNT;
  IF v_released > 0 THEN
    PERFORM pg_notify('queen_wake', json_build_object('origin', p_origin, 'queue', v_queue.name,
                      'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  END IF;
  RETURN QUERY SELECT 'cleared'::text, v_deleted, v_queue.namespace, v_queue.task;
END
$$;

-- cursor_facts: for every contacted (partition, group) of the given partitions, what the message views of
-- API.md 7.4 need: the committed offset; the head (first retained offset above it, null when none); the
-- live lease's span end and expiry (null when no lease is live); the last recorded span end (kept after
-- expiry until the next claim); the retry counter; the claims since the cursor last advanced.
CREATE OR REPLACE FUNCTION queen.cursor_facts(p_partition_ids uuid[])
RETURNS TABLE (partition_id uuid, consumer_group text, committed bigint, head bigint, live_span_end bigint,
               lease_expires_at text, recorded_span_end bigint, retry_count integer, claims_since_advance integer)
LANGUAGE sql STABLE AS $$
  SELECT c.partition_id, c.consumer_group, c.committed,
         (SELECT greatest(s.first_offset, c.committed + 1) FROM queen.segments s
          WHERE s.partition_id = c.partition_id AND s.last_offset > c.committed
          ORDER BY s.last_offset LIMIT 1),
         CASE WHEN c.lease_expires_at > now() THEN c.lease_span_end END,
         CASE WHEN c.lease_expires_at > now() THEN queen.format_millis(c.lease_expires_at) END,
         c.lease_span_end, c.retry_count, c.claims_since_advance
  FROM queen.cursors c
  WHERE c.partition_id = ANY (p_partition_ids)
  ORDER BY c.partition_id, c.consumer_group
$$;

-- queue_consumer_mode: who consumes a queue (API.md 7.4 mode): whether queue mode contacted any of its
-- partitions, and how many named groups did. A missing queue has neither.
CREATE OR REPLACE FUNCTION queen.queue_consumer_mode(p_queue text)
RETURNS TABLE (has_queue_mode boolean, bus_groups_count integer)
LANGUAGE sql STABLE AS $$
  SELECT coalesce(bool_or(c.consumer_group = '__QUEUE_MODE__'), false),
         (count(DISTINCT c.consumer_group) FILTER (WHERE c.consumer_group <> '__QUEUE_MODE__'))::integer
  FROM queen.queues q
  JOIN queen.partitions p ON p.queue_id = q.id
  JOIN queen.cursors c ON c.partition_id = p.id
  WHERE q.name = p_queue
$$;
