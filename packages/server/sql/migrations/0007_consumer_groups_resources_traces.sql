-- 0007_consumer_groups_resources_traces: consumer-group administration (API.md 7.7: deletion, subscription
-- re-timing, seek) and trace events (API.md 7.6). The resource views (API.md 7.2) only read, from store/.
--
-- Cursor locks follow the global order of CONTRIBUTING.md: cursor rows FOR UPDATE in (partition id, group)
-- order; a (partition, group) row is first created under the advisory lock queen.cursor_lock_key, as pops and
-- acks do, so a seek never races a pop's first contact into a duplicate-key wait.

-- One row per trace event a consumer recorded for a message. Keyed by (partition_id, transaction_id) like
-- every message look-up; message_id pins the event to the message that held the key when it was recorded.
-- Readers join the message retained now (queen.message_find, 0006), so a message removed by any path and
-- later re-pushed under the same transactionId never inherits old events. The rows themselves go with
-- their message: message delete and queue clear through message_traces_delete, queue delete below.
-- data is the JSON text the client sent (like payloads: never parsed by PostgreSQL, NUL escapes allowed).
CREATE TABLE queen.traces (
  id             uuid        PRIMARY KEY,
  partition_id   uuid        NOT NULL,
  transaction_id text        NOT NULL,
  message_id     uuid        NOT NULL,
  consumer_group text        NOT NULL,
  event_type     text        NOT NULL,
  data           text        NOT NULL,
  trace_names    text[]      NOT NULL DEFAULT '{}',
  worker_id      text        NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX traces_message_idx ON queen.traces (partition_id, transaction_id, created_at);
CREATE INDEX traces_names_idx ON queen.traces USING gin (trace_names);

-- message_traces_delete (the hook of 0006): remove the traces of the given messages of a partition;
-- p_transaction_ids null means every trace of the partition.
CREATE OR REPLACE FUNCTION queen.message_traces_delete(p_partition_id uuid, p_transaction_ids text[])
RETURNS void
LANGUAGE sql AS $$
  DELETE FROM queen.traces t
  WHERE t.partition_id = p_partition_id
    AND (p_transaction_ids IS NULL OR t.transaction_id = ANY (p_transaction_ids))
$$;

-- queue_delete: as in 0002_queue_functions.sql, and also the queue's trace events (API.md 4.3).
CREATE OR REPLACE FUNCTION queen.queue_delete(p_name text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_queue_id uuid;
  v_partition_ids uuid[];
BEGIN
  SELECT id INTO v_queue_id FROM queen.queues WHERE name = p_name FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  SELECT coalesce(array_agg(id), '{}') INTO v_partition_ids FROM queen.partitions WHERE queue_id = v_queue_id;
  DELETE FROM queen.segments WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.message_keys WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.cursors WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.dead_letters WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.traces WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.queues WHERE id = v_queue_id;  -- cascades to partitions and subscriptions
  RETURN true;
END
$$;

-- consumer_group_delete: forget a consumer group on every queue (p_queue null) or on one queue (API.md 7.7
-- rule 1): its cursors, with their leases and counters, and with p_delete_metadata its subscription records.
-- A later pop of the group starts as a new group, seeded per API.md 5.7.
--   Result: the number of (partition, group) cursor rows deleted.
--   Locks: the group's cursor rows FOR UPDATE in partition-id order, then deleted.
--   Notifies: queen_wake (origin '': every process, this one included) for each queue that lost cursors:
--     a released lease or a cursor that now restarts from its seed can make messages claimable again.
CREATE OR REPLACE FUNCTION queen.consumer_group_delete(p_group text, p_queue text, p_delete_metadata boolean)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_deleted integer := 0;
  v_queue record;
BEGIN
  PERFORM 1
  FROM queen.cursors c
  JOIN queen.partitions p ON p.id = c.partition_id
  JOIN queen.queues q ON q.id = p.queue_id
  WHERE c.consumer_group = p_group AND (p_queue IS NULL OR q.name = p_queue)
  ORDER BY c.partition_id
  FOR UPDATE OF c;

  FOR v_queue IN
    WITH deleted AS (
      DELETE FROM queen.cursors c
      USING queen.partitions p, queen.queues q
      WHERE c.consumer_group = p_group AND p.id = c.partition_id AND q.id = p.queue_id
        AND (p_queue IS NULL OR q.name = p_queue)
      RETURNING q.name, q.namespace, q.task
    )
    SELECT d.name, d.namespace, d.task, count(*)::integer AS cursors
    FROM deleted d GROUP BY d.name, d.namespace, d.task
  LOOP
    v_deleted := v_deleted + v_queue.cursors;
    PERFORM pg_notify('queen_wake', json_build_object(
      'origin', '', 'queue', v_queue.name, 'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  END LOOP;

  IF p_delete_metadata THEN
    DELETE FROM queen.subscriptions s
    USING queen.queues q
    WHERE s.consumer_group = p_group AND q.id = s.queue_id AND (p_queue IS NULL OR q.name = p_queue);
  END IF;
  RETURN v_deleted;
END
$$;

-- subscription_retime: give every subscription record of p_group (all queues, all scopes) the timestamp
-- p_from (null: now) and mode 'timestamp' (API.md 7.7 rule 2). Existing cursors do not move.
--   Result: one row (rows_updated, new_timestamp in milliseconds with a Z).
--   Notifies: queen_wake for each queue whose records changed (a record moved out of the future makes that
--     group's never-contacted partitions claimable).
CREATE OR REPLACE FUNCTION queen.subscription_retime(p_group text, p_from timestamptz)
RETURNS TABLE (rows_updated integer, new_timestamp text)
LANGUAGE plpgsql AS $$
DECLARE
  v_from timestamptz := coalesce(p_from, now());
  v_rows integer := 0;
  v_queue record;
BEGIN
  FOR v_queue IN
    WITH updated AS (
      UPDATE queen.subscriptions s SET mode = 'timestamp', subscribed_from = v_from
      WHERE s.consumer_group = p_group
      RETURNING s.queue_id
    )
    SELECT q.name, q.namespace, q.task, count(*)::integer AS records
    FROM updated u JOIN queen.queues q ON q.id = u.queue_id
    GROUP BY q.name, q.namespace, q.task
  LOOP
    v_rows := v_rows + v_queue.records;
    PERFORM pg_notify('queen_wake', json_build_object(
      'origin', '', 'queue', v_queue.name, 'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  END LOOP;
  RETURN QUERY SELECT v_rows, queen.format_millis(v_from);
END
$$;

-- seek_offset: the committed offset a seek to p_target sets on a partition (API.md 7.7 rule 3): the last
-- offset of the newest retained segment created at or before p_target; when none is that old, just below the
-- oldest retained message (everything retained is replayed); when nothing is retained, p_tail.
CREATE OR REPLACE FUNCTION queen.seek_offset(p_partition_id uuid, p_tail bigint, p_target timestamptz)
RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    (SELECT s.last_offset FROM queen.segments s
     WHERE s.partition_id = p_partition_id AND s.created_at <= p_target
     ORDER BY s.created_at DESC, s.last_offset DESC
     LIMIT 1),
    (SELECT s.first_offset - 1 FROM queen.segments s
     WHERE s.partition_id = p_partition_id
     ORDER BY s.last_offset
     LIMIT 1),
    p_tail)
$$;

-- cursor_seek: move p_group's cursor on every partition of p_queue, or on the partition p_partition only
-- (API.md 7.7 rule 3). Partitions the group never contacted are contacted at the target (no seeding from
-- subscription records). Per partition: the live lease is released, the retry counter, not-before and the
-- claims counter are reset, and the cursor is set to the tail (p_to_end) or to seek_offset(p_target).
--   Result: one row: outcome 'updated' | 'queue_not_found' | 'partition_not_found'; the partitions moved, in
--     partition-id order, with the id of the message at each new cursor (null when that offset is 0 or not
--     retained); p_target in milliseconds with a Z (null with p_to_end).
--   Locks: the queue row FOR KEY SHARE (a concurrent queue_delete waits, or has already won); cursor rows
--     FOR UPDATE in partition-id order; the advisory lock cursor_lock_key before creating a cursor row.
--   Notifies: queen_wake (origin '') for the queue when a lease was released, a cursor moved backwards or a
--     new cursor has messages above it (API.md 7.7 rule 4).
CREATE OR REPLACE FUNCTION queen.cursor_seek(p_group text, p_queue text, p_partition text, p_to_end boolean,
                                             p_target timestamptz)
RETURNS TABLE (outcome text, partition_names text[], cursors_moved_to uuid[], target_at text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := now();
  v_target_at text := CASE WHEN p_to_end THEN NULL ELSE queen.format_millis(p_target) END;
  v_queue queen.queues;
  v_partition record;
  v_cursor queen.cursors;
  v_target bigint;
  v_created boolean;
  v_live boolean;
  v_moved_to uuid;
  v_names text[] := '{}';
  v_moved uuid[] := '{}';
  v_wake boolean := false;
BEGIN
  SELECT * INTO v_queue FROM queen.queues q WHERE q.name = p_queue FOR KEY SHARE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'queue_not_found'::text, v_names, v_moved, v_target_at;
    RETURN;
  END IF;

  FOR v_partition IN
    SELECT p.id, p.name, p.tail FROM queen.partitions p
    WHERE p.queue_id = v_queue.id AND (p_partition IS NULL OR p.name = p_partition)
    ORDER BY p.id
  LOOP
    v_target := CASE WHEN p_to_end THEN v_partition.tail
                     ELSE queen.seek_offset(v_partition.id, v_partition.tail, p_target) END;

    SELECT * INTO v_cursor FROM queen.cursors c
    WHERE c.partition_id = v_partition.id AND c.consumer_group = p_group FOR UPDATE;
    v_created := false;
    IF NOT FOUND THEN
      PERFORM pg_advisory_xact_lock(queen.cursor_lock_key(v_partition.id, p_group));
      INSERT INTO queen.cursors (partition_id, consumer_group, committed)
      VALUES (v_partition.id, p_group, v_target)
      ON CONFLICT DO NOTHING;
      v_created := FOUND;
      SELECT * INTO STRICT v_cursor FROM queen.cursors c
      WHERE c.partition_id = v_partition.id AND c.consumer_group = p_group FOR UPDATE;
    END IF;
    v_live := coalesce(v_cursor.lease_expires_at > v_now, false);

    UPDATE queen.cursors c
    SET committed = v_target,
        lease_id = CASE WHEN v_live THEN NULL ELSE c.lease_id END,
        lease_span_end = CASE WHEN v_live THEN NULL ELSE c.lease_span_end END,
        lease_expires_at = CASE WHEN v_live THEN NULL ELSE c.lease_expires_at END,
        retry_count = 0,
        not_before = NULL,
        claims_since_advance = 0
    WHERE c.partition_id = v_partition.id AND c.consumer_group = p_group;
    v_wake := v_wake OR v_live OR v_target < v_cursor.committed OR (v_created AND v_target < v_partition.tail);

    SELECT s.message_ids[v_target - s.first_offset + 1] INTO v_moved_to
    FROM queen.segments s
    WHERE s.partition_id = v_partition.id AND s.last_offset >= v_target AND s.first_offset <= v_target;
    v_names := v_names || v_partition.name;
    v_moved := v_moved || v_moved_to;
  END LOOP;

  IF v_wake THEN
    PERFORM pg_notify('queen_wake', json_build_object(
      'origin', '', 'queue', v_queue.name, 'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  END IF;
  RETURN QUERY SELECT CASE WHEN p_partition IS NOT NULL AND cardinality(v_names) = 0 THEN 'partition_not_found'
                           ELSE 'updated' END,
                      v_names, v_moved, v_target_at;
END
$$;
