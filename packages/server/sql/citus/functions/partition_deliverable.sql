-- partition_deliverable: the minPopWaitTime probe of pop_messages (sql/functions/pop_messages.sql) for ONE partition
-- named by its computed id, delegated to the worker holding it (docs/scale-out.md section 4). Installed on Citus
-- only (store/citus-schema.ts); the broker's wildcard and discovery walk (store/citus-claims.ts) sums it over its
-- candidates and answers 'hold' when 0 < sum < the batch, as pop_messages' probe does in one statement.
--   Parameters: p_partition_id = queen.partition_uuid(p_queue, name); p_queue the queue's name; p_group the
--             effective group; p_batch the pop's message budget (at most that many segments are read).
--   Result:   how many messages a claim of this partition would take now, counted as pop_messages' probe counts
--             them: retained, above the cursor (its seed on first contact; nothing before a subscription that
--             starts in the future), old enough for delayedProcessing, at most p_batch segments from the head;
--             0 when the partition is leased, in retry delay or inside its window buffer.
--   Locks:    none (reads only; the claim that may follow takes its own locks).
--   Notifies: nothing.
CREATE OR REPLACE FUNCTION queen.partition_deliverable(
  p_partition_id uuid,
  p_queue text,
  p_group text,
  p_batch integer
) RETURNS bigint
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- every statement names p_partition_id as a constant: Citus routes it
AS $$
DECLARE
  v_now timestamptz := now();
  v_queue record;
  v_partition record;
  v_cursor record;
  v_from timestamptz;
  v_committed bigint;
  v_visible_before timestamptz;
  v_count bigint;
BEGIN
  SELECT q.id, q.delayed_processing, q.window_buffer INTO v_queue FROM queen.queues q WHERE q.name = p_queue;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  SELECT p.name, p.tail, p.last_push_at INTO v_partition FROM queen.partitions p
  WHERE p.id = p_partition_id AND p.queue_id = v_queue.id;
  IF NOT FOUND
     OR (v_queue.window_buffer > 0 AND v_partition.last_push_at > v_now - make_interval(secs => v_queue.window_buffer)) THEN
    RETURN 0;
  END IF;
  SELECT c.committed, c.lease_expires_at, c.not_before INTO v_cursor FROM queen.cursors c
  WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group;
  IF FOUND THEN
    IF v_cursor.lease_expires_at > v_now OR v_cursor.not_before > v_now THEN
      RETURN 0;
    END IF;
    v_committed := v_cursor.committed;
  ELSE
    -- subscription_from and cursor_seed, inlined as in partition_claim.
    SELECT s.subscribed_from INTO v_from FROM queen.subscriptions s
    WHERE p_group <> '__QUEUE_MODE__' AND s.queue_id = v_queue.id AND s.consumer_group = p_group
      AND s.partition_name IN (v_partition.name, '')
    ORDER BY s.partition_name DESC LIMIT 1;
    IF v_from > v_now THEN
      RETURN 0;
    END IF;
    v_committed := 0;
    IF v_from IS NOT NULL THEN
      SELECT seg.last_offset INTO v_committed FROM queen.segments seg
      WHERE seg.partition_id = p_partition_id AND seg.created_at < v_from
      ORDER BY seg.created_at DESC, seg.last_offset DESC LIMIT 1;
      v_committed := coalesce(v_committed, 0);
    END IF;
  END IF;
  IF v_partition.tail <= v_committed THEN
    RETURN 0;
  END IF;
  v_visible_before := CASE WHEN v_queue.delayed_processing > 0
                           THEN v_now - make_interval(secs => v_queue.delayed_processing)
                           ELSE 'infinity'::timestamptz END;
  SELECT coalesce(sum(seg.last_offset - greatest(seg.first_offset, v_committed + 1) + 1), 0) INTO v_count
  FROM (SELECT s.first_offset, s.last_offset, s.created_at FROM queen.segments s
        WHERE s.partition_id = p_partition_id AND s.last_offset > v_committed
        ORDER BY s.last_offset LIMIT p_batch) seg
  WHERE seg.created_at <= v_visible_before;
  RETURN v_count;
END
$$;

-- Delegated: a call runs on the worker that holds p_partition_id's shard, in one round trip.
SELECT create_distributed_function('queen.partition_deliverable(uuid, text, text, integer)',
  'p_partition_id', colocate_with := 'queen.partitions');
