-- streams_cycle_apply: everything of one cycle except its sink pushes, which the broker appends next in the
-- same transaction (queen.push_messages through its sealing step), then commits (docs/streams.md).
--   Parameters: the shard (p_query_id, p_partition_id) and the stream group; the state ops as parallel arrays
--     (type 'upsert' | 'delete', key, value as JSON text; types already checked); the (queue, partition) of
--     every sink push item that passed its checks (locked here, in the global order); the ack (p_ack_txn null
--     = no ack; status already one of completed, success, failed, dlq; lease id null = none given) and
--     p_release_lease.
--   Result: one row (queue_name, queue_namespace, queue_task of the source partition or nulls;
--     state_ops_applied; lease_released; dlq). A failure raises SQLSTATE QS001 with the failure text as the
--     message and the source queue name (or '') as the detail, so whatever the function wrote is undone with
--     it: a cycle without sink pushes runs as this one statement, outside an explicit transaction.
--   Locks, in this order: the shard's advisory lock; the query row FOR KEY SHARE (a reset or delete of the
--     query waits); the source queue row FOR KEY SHARE (a queue delete waits, so it cannot miss state written
--     here); the locks of the pushes and of the ack's cursor in the global order (queen.transaction_lock).
--     Then the ack checks of docs/streams.md against the locked cursor row and the wall clock, the state ops
--     in order, the ack through queen.ack_messages, and with p_release_lease the release of a lease the ack
--     left live.
--   Fencing: while this transaction holds the cursor row no pop can re-lease the partition, so a lease found
--     live here stays this worker's until the commit.
DROP FUNCTION IF EXISTS queen.streams_cycle_apply(uuid, uuid, text, text[], text[], text[], text[], text[], text, text, text, text, boolean);
CREATE OR REPLACE FUNCTION queen.streams_cycle_apply(
  p_query_id uuid,
  p_partition_id uuid,
  p_group text,
  p_op_type text[],
  p_op_key text[],
  p_op_value text[],
  p_push_queue text[],
  p_push_partition text[],
  p_ack_txn text,
  p_ack_lease_id text,
  p_ack_status text,
  p_ack_error text,
  p_release_lease boolean
) RETURNS TABLE (queue_name text, queue_namespace text, queue_task text, state_ops_applied integer,
                 lease_released boolean, dlq boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_source record;
  v_offset bigint;
  v_cursor queen.cursors;
  v_committed bigint;
  v_live boolean;
  v_ack record;
  v_released boolean := false;
  v_dlq boolean := false;
  v_has_ack boolean := p_ack_txn IS NOT NULL;
  v_n integer := coalesce(cardinality(p_op_type), 0);
  v_i integer;
  v_now timestamptz;
BEGIN
  PERFORM pg_advisory_xact_lock(queen.streams_shard_lock_key(p_query_id, p_partition_id));

  PERFORM 1 FROM queen_streams.queries q WHERE q.id = p_query_id FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'QS001', MESSAGE = 'Query not found', DETAIL = '';
  END IF;

  SELECT q.name, q.namespace, q.task INTO v_source
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  WHERE p.id = p_partition_id
  FOR KEY SHARE OF q;

  PERFORM queen.transaction_lock(coalesce(p_push_queue, '{}'), coalesce(p_push_partition, '{}'),
                                 CASE WHEN v_has_ack THEN ARRAY[p_partition_id] ELSE '{}'::uuid[] END,
                                 CASE WHEN v_has_ack THEN ARRAY[p_group] ELSE '{}'::text[] END);

  IF v_has_ack THEN
    SELECT k.message_offset INTO v_offset FROM queen.message_keys k
    WHERE k.partition_id = p_partition_id AND k.transaction_id = p_ack_txn;
    IF NOT FOUND THEN
      RAISE EXCEPTION USING ERRCODE = 'QS001', MESSAGE = 'Message not found', DETAIL = coalesce(v_source.name, '');
    END IF;
    SELECT * INTO v_cursor FROM queen.cursors c WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group;
    IF FOUND THEN
      v_committed := v_cursor.committed;
      v_live := coalesce(v_cursor.lease_expires_at > clock_timestamp(), false);
    ELSE
      SELECT queen.cursor_seed(p.queue_id, p.id, p.name, p_group) INTO v_committed
      FROM queen.partitions p WHERE p.id = p_partition_id;
      v_live := false;
    END IF;
    IF p_ack_lease_id IS NOT NULL AND (NOT v_live OR v_cursor.lease_id::text IS DISTINCT FROM lower(p_ack_lease_id)) THEN
      RAISE EXCEPTION USING ERRCODE = 'QS001', MESSAGE = 'Invalid or expired lease', DETAIL = coalesce(v_source.name, '');
    END IF;
    IF v_offset <= v_committed THEN
      RAISE EXCEPTION USING ERRCODE = 'QS001', MESSAGE = 'Message already acknowledged', DETAIL = coalesce(v_source.name, '');
    END IF;
    IF p_ack_lease_id IS NOT NULL AND v_offset > v_cursor.lease_span_end THEN
      RAISE EXCEPTION USING ERRCODE = 'QS001', MESSAGE = 'Message is outside the leased span', DETAIL = coalesce(v_source.name, '');
    END IF;
    IF p_ack_lease_id IS NULL AND v_live THEN
      RAISE EXCEPTION USING ERRCODE = 'QS001', MESSAGE = 'leaseId required: partition is leased', DETAIL = coalesce(v_source.name, '');
    END IF;
  END IF;

  FOR v_i IN 1 .. v_n LOOP
    IF p_op_type[v_i] = 'upsert' THEN
      IF v_source IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QS001', MESSAGE = 'Partition not found', DETAIL = '';
      END IF;
      INSERT INTO queen_streams.state AS s (query_id, partition_id, key, value, updated_at)
      VALUES (p_query_id, p_partition_id, p_op_key[v_i], p_op_value[v_i]::jsonb, now())
      ON CONFLICT (query_id, partition_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at;
    ELSE
      DELETE FROM queen_streams.state s
      WHERE s.query_id = p_query_id AND s.partition_id = p_partition_id AND s.key = p_op_key[v_i];
    END IF;
  END LOOP;

  IF v_has_ack THEN
    SELECT a.success, a.error, a.lease_released, a.dlq INTO v_ack
    FROM queen.ack_messages(ARRAY[p_ack_txn], ARRAY[p_partition_id], ARRAY[p_ack_status], ARRAY[p_group],
                            ARRAY[p_ack_lease_id], ARRAY[p_ack_error]) a;
    IF NOT v_ack.success THEN
      RAISE EXCEPTION USING ERRCODE = 'QS001', MESSAGE = coalesce(v_ack.error, 'Ack failed'), DETAIL = coalesce(v_source.name, '');
    END IF;
    v_released := v_ack.lease_released;
    v_dlq := v_ack.dlq;
    IF p_release_lease AND NOT v_released THEN
      -- The clock is read into a variable: Citus refuses a volatile function in a distributed UPDATE.
      v_now := clock_timestamp();
      UPDATE queen.cursors c
      SET lease_id = NULL, lease_span_end = NULL, lease_expires_at = NULL
      WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group AND c.lease_expires_at > v_now;
      v_released := FOUND;
    END IF;
  END IF;

  RETURN QUERY SELECT v_source.name, v_source.namespace, v_source.task, v_n, v_released, v_dlq;
END
$$;
