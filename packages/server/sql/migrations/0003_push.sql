-- 0003_push: append one coalesced batch of messages (API.md 4.4, DESIGN.md 3).
--
-- push_messages(p_queue[], p_partition[], p_message_id[], p_transaction_id[], p_trace_id[], p_payload[],
--               p_producer_sub[])
--   Purpose:  write every item of one or more push requests in one transaction. Item i is described by the
--             i-th element of each array; items are already validated by the broker.
--   Result:   one row per item: (item, status 'queued' | 'duplicate' | 'failed', message_id, partition_id,
--             error, queue_namespace, queue_task), in no particular order.
--   Effects:  unknown queues are created with the implicit defaults, unknown partitions are created. Per
--             partition: items whose transactionId is already stored (or repeats an earlier item of the batch)
--             are duplicates; maxSize admits a capped queue's remaining items in item order (across its
--             partitions); the rest get consecutive offsets tail+1.. in item order, one segment per commit
--             (chunked into rows of at most 200 messages), and the tail moves.
--   Locks:    queue rows are created and partition rows locked (FOR UPDATE) in (queue name, partition name)
--             order, so concurrent batches cannot deadlock. Every writer of a partition holds its row lock,
--             which is what makes offsets dense and assigned in commit order.
--   Notifies: nothing. The broker wakes parked pops after the commit (see store/wake-channel.ts: a NOTIFY
--             here would serialise every push's commit behind PostgreSQL's notification lock).
-- partitions_lock: lock the rows of the named partitions FOR UPDATE, creating missing queues (implicit
-- defaults, namespace/task derived from the name) and partitions first.
--   Parameters: pair i is (p_queue[i], p_partition[i]); pairs may repeat.
--   Result: one row per distinct pair, in lock order, with the partition's id, tail and last_push_at.
--   Locks: queue rows are created in name order and partition rows locked in (queue name, partition name)
--     order. Every writer of a partition goes through here: that makes offsets dense and assigned in commit
--     order, and concurrent batches touching the same partitions in any item order deadlock-free.
CREATE OR REPLACE FUNCTION queen.partitions_lock(p_queue text[], p_partition text[])
RETURNS TABLE (queue_name text, partition_name text, partition_id uuid, tail bigint, last_push_at timestamptz)
LANGUAGE plpgsql
SET enable_seqscan = off
AS $$
#variable_conflict use_column
DECLARE
  v_key record;
  v_queue_id uuid;
  v_partition queen.partitions;
BEGIN
  INSERT INTO queen.queues (id, name, namespace, task)
  SELECT queen.uuid_v7(), n.name, split_part(n.name, '.', 1), split_part(n.name, '.', 2)
  FROM (SELECT DISTINCT u.name FROM unnest(p_queue) AS u (name)) n
  WHERE NOT EXISTS (SELECT 1 FROM queen.queues q WHERE q.name = n.name)
  ORDER BY n.name
  ON CONFLICT (name) DO NOTHING;

  FOR v_key IN
    SELECT DISTINCT t.queue_name, t.partition_name
    FROM unnest(p_queue, p_partition) AS t (queue_name, partition_name)
    ORDER BY 1, 2
  LOOP
    SELECT q.id INTO STRICT v_queue_id FROM queen.queues q WHERE q.name = v_key.queue_name;
    SELECT * INTO v_partition FROM queen.partitions p
    WHERE p.queue_id = v_queue_id AND p.name = v_key.partition_name FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO queen.partitions (id, queue_id, name)
      VALUES (queen.uuid_v7(), v_queue_id, v_key.partition_name)
      ON CONFLICT (queue_id, name) DO NOTHING;
      SELECT * INTO STRICT v_partition FROM queen.partitions p
      WHERE p.queue_id = v_queue_id AND p.name = v_key.partition_name FOR UPDATE;
    END IF;
    RETURN QUERY SELECT v_key.queue_name, v_key.partition_name, v_partition.id, v_partition.tail,
                        v_partition.last_push_at;
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION queen.push_messages(
  p_queue text[],
  p_partition text[],
  p_message_id uuid[],
  p_transaction_id text[],
  p_trace_id uuid[],
  p_payload text[],
  p_producer_sub text[]
) RETURNS TABLE (item integer, status text, message_id uuid, partition_id uuid, error text,
                 queue_namespace text, queue_task text)
LANGUAGE plpgsql
SET enable_seqscan = off            -- see 0001_tables.sql: hot paths never scan a table
SET plan_cache_mode = force_generic_plan  -- and never pay for planning on a call
AS $$
#variable_conflict use_column
DECLARE
  c_chunk constant integer := 200;
  v_count integer := cardinality(p_queue);
  -- One entry per partition of the batch, in lock order.
  v_group_queue text[] := '{}';
  v_group_partition text[] := '{}';
  v_group_id uuid[] := '{}';
  v_group_tail bigint[] := '{}';
  v_group_created timestamptz[] := '{}';
  -- One entry per item, in item order. State: 'fresh' (to write), 'repeat' (an earlier item of the batch
  -- has its transactionId), 'stored' (already in the partition), 'rejected' (refused by maxSize).
  v_state text[];
  v_partition_of uuid[];
  v_first_of bigint[];
  v_stored_offset bigint[];
  v_key record;
  v_queue queen.queues;
  v_room bigint;
  v_i integer;
BEGIN
  IF v_count IS NULL OR v_count = 0 THEN
    RETURN;
  END IF;
  -- Arrays are only ever read through unnest() in SQL: subscripting a large array parameter inside a
  -- statement walks it from the start on every access.

  -- Lock (or create) every partition of the batch. createdAt is taken under the lock and never decreases
  -- along a partition, even if the clock steps back.
  FOR v_key IN SELECT * FROM queen.partitions_lock(p_queue, p_partition) LOOP
    v_group_queue := v_group_queue || v_key.queue_name;
    v_group_partition := v_group_partition || v_key.partition_name;
    v_group_id := v_group_id || v_key.partition_id;
    v_group_tail := v_group_tail || v_key.tail;
    v_group_created := v_group_created || greatest(clock_timestamp(), v_key.last_push_at);
  END LOOP;

  -- Classify every item against the stored keys and the earlier items of the batch.
  WITH items AS (
    SELECT t.i, t.transaction_id, g.partition_id,
           min(t.i) OVER (PARTITION BY g.partition_id, t.transaction_id) AS first_i
    FROM unnest(p_queue, p_partition, p_transaction_id) WITH ORDINALITY AS t (queue_name, partition_name, transaction_id, i)
    JOIN unnest(v_group_queue, v_group_partition, v_group_id) AS g (queue_name, partition_name, partition_id)
      ON g.queue_name = t.queue_name AND g.partition_name = t.partition_name
  ), stored AS MATERIALIZED (
    SELECT k.partition_id, k.transaction_id, k.message_offset
    FROM (SELECT DISTINCT items.partition_id, items.transaction_id FROM items) wanted
    JOIN queen.message_keys k ON k.partition_id = wanted.partition_id AND k.transaction_id = wanted.transaction_id
  )
  SELECT array_agg(CASE WHEN s.message_offset IS NOT NULL THEN 'stored'
                        WHEN items.i = items.first_i THEN 'fresh'
                        ELSE 'repeat' END ORDER BY items.i),
         array_agg(items.partition_id ORDER BY items.i),
         array_agg(items.first_i ORDER BY items.i),
         array_agg(s.message_offset ORDER BY items.i)
  INTO v_state, v_partition_of, v_first_of, v_stored_offset
  FROM items
  LEFT JOIN stored s ON s.partition_id = items.partition_id AND s.transaction_id = items.transaction_id;

  -- maxSize admits a capped queue's fresh items in input order, across its partitions.
  FOR v_queue IN SELECT q.* FROM queen.queues q WHERE q.name = ANY (p_queue) AND q.max_size > 0 LOOP
    v_room := greatest(v_queue.max_size - queen.queue_mode_backlog(v_queue.id), 0);
    FOR v_i IN 1 .. v_count LOOP
      CONTINUE WHEN v_state[v_i] <> 'fresh' OR p_queue[v_i] <> v_queue.name;
      IF v_room > 0 THEN
        v_room := v_room - 1;
      ELSE
        v_state[v_i] := 'rejected';
      END IF;
    END LOOP;
  END LOOP;

  -- Write: each partition's fresh items get tail+1.. in item order; one segment per partition, chunked.
  WITH fresh AS (
    SELECT t.*, row_number() OVER (PARTITION BY t.partition_id ORDER BY t.i) AS n
    FROM unnest(v_state, v_partition_of, p_transaction_id) WITH ORDINALITY AS t (state, partition_id, transaction_id, i)
    WHERE t.state = 'fresh'
  )
  INSERT INTO queen.message_keys (partition_id, transaction_id, message_offset)
  SELECT fresh.partition_id, fresh.transaction_id, g.tail + fresh.n
  FROM fresh JOIN unnest(v_group_id, v_group_tail) AS g (partition_id, tail) ON g.partition_id = fresh.partition_id;

  WITH fresh AS (
    SELECT t.*, row_number() OVER (PARTITION BY t.partition_id ORDER BY t.i) AS n
    FROM unnest(v_state, v_partition_of, p_message_id, p_transaction_id, p_trace_id, p_payload, p_producer_sub)
      WITH ORDINALITY AS t (state, partition_id, message_id, transaction_id, trace_id, payload, producer_sub, i)
    WHERE t.state = 'fresh'
  )
  INSERT INTO queen.segments (partition_id, first_offset, last_offset, created_at, message_ids, transaction_ids,
                              trace_ids, payloads, producer_subs)
  SELECT fresh.partition_id, g.tail + min(fresh.n), g.tail + max(fresh.n), g.created_at,
         array_agg(fresh.message_id ORDER BY fresh.n), array_agg(fresh.transaction_id ORDER BY fresh.n),
         array_agg(fresh.trace_id ORDER BY fresh.n), array_agg(fresh.payload ORDER BY fresh.n),
         CASE WHEN bool_or(fresh.producer_sub IS NOT NULL) THEN array_agg(fresh.producer_sub ORDER BY fresh.n) END
  FROM fresh
  JOIN unnest(v_group_id, v_group_tail, v_group_created) AS g (partition_id, tail, created_at)
    ON g.partition_id = fresh.partition_id
  GROUP BY fresh.partition_id, g.tail, g.created_at, (fresh.n - 1) / c_chunk;

  UPDATE queen.partitions p
  SET tail = g.tail + written.count, last_push_at = g.created_at
  FROM (SELECT t.partition_id, count(*) AS count
        FROM unnest(v_state, v_partition_of) AS t (state, partition_id)
        WHERE t.state = 'fresh' GROUP BY t.partition_id) written
  JOIN unnest(v_group_id, v_group_tail, v_group_created) AS g (partition_id, tail, created_at)
    ON g.partition_id = written.partition_id
  WHERE p.id = written.partition_id;

  -- Each item answers after the first occurrence of its transactionId in its partition: queued when that is
  -- itself, duplicate of it (or of the stored message) otherwise, failed when maxSize refused it.
  RETURN QUERY
  WITH items AS (
    SELECT t.* FROM unnest(v_state, v_partition_of, v_first_of, v_stored_offset, p_message_id, p_queue)
      WITH ORDINALITY AS t (state, partition_id, first_i, stored_offset, message_id, queue_name, i)
  )
  SELECT a.i::integer,
         CASE WHEN f.state = 'rejected' THEN 'failed'
              WHEN a.state = 'fresh' THEN 'queued'
              ELSE 'duplicate' END,
         CASE WHEN f.state = 'rejected' THEN NULL
              WHEN f.state = 'fresh' THEN f.message_id
              ELSE (SELECT s.message_ids[a.stored_offset - s.first_offset + 1]
                    FROM queen.segments s
                    WHERE s.partition_id = a.partition_id AND s.last_offset >= a.stored_offset
                    ORDER BY s.last_offset
                    LIMIT 1) END,
         a.partition_id,
         CASE WHEN f.state = 'rejected' THEN format('Queue ''%s'' would exceed max capacity', a.queue_name) END,
         q.namespace,
         q.task
  FROM items a
  JOIN items f ON f.i = a.first_i
  JOIN queen.queues q ON q.name = a.queue_name;
END
$$;

-- queue_mode_backlog: retained messages above the __QUEUE_MODE__ cursor, summed over the queue's partitions
-- (every retained message of a partition queue mode never contacted). Used by maxSize.
CREATE OR REPLACE FUNCTION queen.queue_mode_backlog(p_queue_id uuid) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT coalesce(sum(s.last_offset - greatest(s.first_offset, coalesce(c.committed, 0) + 1) + 1), 0)
  FROM queen.partitions p
  LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = '__QUEUE_MODE__'
  JOIN queen.segments s ON s.partition_id = p.id AND s.last_offset > coalesce(c.committed, 0)
  WHERE p.queue_id = p_queue_id
$$;
