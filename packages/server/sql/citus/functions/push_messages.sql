-- push_messages, Citus override: the contract of sql/functions/push_messages.sql (same signature and result),
-- built on partition_push, one call per partition of the batch. Installed over the single-PostgreSQL function on
-- Citus only (store/citus-schema.ts). The broker's own pushes never call it (store/citus-routing.ts delegates per
-- partition); it serves the callers inside the database: the SQL API (produce*, transaction, forward:
-- api_push_items), the streams cycle (streams_cycle_apply) and message_requeue.
--   Runs on the coordinator, in the caller's transaction: partition_push is not delegated there, each of its
--   statements is routed to the partition's shard (its custom plans name the computed id), and a transaction
--   that wrote to several workers commits with two-phase commit (docs/scale-out.md sections 3, 4 and 6).
--   Differences from single PostgreSQL: maxSize as the broker's Citus path applies it (the room is read once per
--   capped queue of the batch, then handed to its partitions in order); the backlog advisory lock is not taken
--   (no wildcard backlog index on Citus).
--   Locks: queue rows created in name order, then partition rows FOR UPDATE one partition at a time in
--   (queue name, partition name) order (byte order), as push_messages.
CREATE OR REPLACE FUNCTION queen.push_messages(
  p_queue text[],
  p_partition text[],
  p_message_id uuid[],
  p_transaction_id text[],
  p_trace_id uuid[],
  p_payload text[],
  p_producer_sub text[],
  p_trace_context text[] DEFAULT NULL
) RETURNS TABLE (item integer, status text, message_id uuid, partition_id uuid, error text,
                 queue_namespace text, queue_task text)
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- statements planned with their values: Citus routes them
AS $$
#variable_conflict use_column
DECLARE
  v_queue queen.queues;
  v_rooms jsonb := '{}';
  v_room bigint;
  v_pair record;
  v_items integer[];
  v_row record;
BEGIN
  IF coalesce(cardinality(p_queue), 0) = 0 THEN
    RETURN;
  END IF;
  -- Queues first (reference-table writes), in name order; the room of each capped queue (none on a replay).
  FOR v_queue IN
    SELECT (queen.queue_ensure(n.name)).*
    FROM (SELECT DISTINCT u.name FROM unnest(p_queue) AS u (name)) n ORDER BY n.name COLLATE "C"
  LOOP
    CONTINUE WHEN v_queue.max_size <= 0 OR coalesce(current_setting('queen.replay', true), '') = 'on';
    SELECT greatest(v_queue.max_size - coalesce(sum(s.last_offset - greatest(s.first_offset, coalesce(c.committed, 0) + 1) + 1), 0), 0)
    INTO v_room
    FROM queen.partitions p
    LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = '__QUEUE_MODE__'
    JOIN queen.segments s ON s.partition_id = p.id AND s.last_offset > coalesce(c.committed, 0)
    WHERE p.queue_id = v_queue.id;
    v_rooms := v_rooms || jsonb_build_object(v_queue.name, v_room);
  END LOOP;

  FOR v_pair IN
    SELECT t.queue_name, t.partition_name, array_agg(t.i::integer ORDER BY t.i) AS items
    FROM unnest(p_queue, p_partition) WITH ORDINALITY AS t (queue_name, partition_name, i)
    GROUP BY t.queue_name, t.partition_name
    ORDER BY t.queue_name COLLATE "C", t.partition_name COLLATE "C"
  LOOP
    v_items := v_pair.items;
    v_room := (v_rooms ->> v_pair.queue_name)::bigint;
    FOR v_row IN
      SELECT r.*, queen.partition_uuid(v_pair.queue_name, v_pair.partition_name) AS id
      FROM queen.partition_push(
        queen.partition_uuid(v_pair.queue_name, v_pair.partition_name), v_pair.queue_name, v_pair.partition_name,
        ARRAY(SELECT p_message_id[i] FROM unnest(v_items) AS i), ARRAY(SELECT p_transaction_id[i] FROM unnest(v_items) AS i),
        ARRAY(SELECT p_trace_id[i] FROM unnest(v_items) AS i), ARRAY(SELECT p_payload[i] FROM unnest(v_items) AS i),
        ARRAY(SELECT p_producer_sub[i] FROM unnest(v_items) AS i),
        CASE WHEN p_trace_context IS NOT NULL THEN ARRAY(SELECT p_trace_context[i] FROM unnest(v_items) AS i) END,
        v_room, coalesce(current_setting('queen.sealing', true) = 'on', false)) r
    LOOP
      IF v_room IS NOT NULL AND v_row.status = 'queued' THEN
        v_room := v_room - 1;
      END IF;
      RETURN QUERY SELECT v_items[v_row.item], v_row.status, v_row.message_id, v_row.id, v_row.error,
                          v_row.queue_namespace, v_row.queue_task;
    END LOOP;
    IF v_room IS NOT NULL THEN
      v_rooms := v_rooms || jsonb_build_object(v_pair.queue_name, v_room);
    END IF;
  END LOOP;
END
$$;
