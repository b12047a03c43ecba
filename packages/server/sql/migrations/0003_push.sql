-- 0003_push: append one coalesced batch of messages (API.md 4.4, DESIGN.md 3).
--
-- push_messages(p_origin, p_queue[], p_partition[], p_message_id[], p_transaction_id[], p_trace_id[],
--               p_payload[], p_producer_sub[])
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
--   Notifies: queen_wake once per queue (NOTIFY folds identical payloads within a transaction).
-- The items of one batch that go to one partition (item numbers in input order).
CREATE TYPE queen.push_group AS (queue_name text, partition_name text, items integer[]);

CREATE OR REPLACE FUNCTION queen.push_messages(
  p_origin text,
  p_queue text[],
  p_partition text[],
  p_message_id uuid[],
  p_transaction_id text[],
  p_trace_id uuid[],
  p_payload text[],
  p_producer_sub text[]
) RETURNS TABLE (item integer, status text, message_id uuid, partition_id uuid, error text,
                 queue_namespace text, queue_task text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  c_chunk constant integer := 200;
  v_count integer := cardinality(p_queue);
  v_state text[];           -- per item: 'fresh' (to write), 'seen' (its transactionId is stored or repeated),
                            -- 'rejected' (maxSize)
  v_partition_of uuid[];    -- per item: its partition id
  v_groups queen.push_group[];
  v_group queen.push_group;
  v_queue queen.queues;
  v_partition queen.partitions;
  v_fresh integer[];
  v_room bigint;
  v_i integer;
  v_created timestamptz;
  v_first bigint;
  v_chunk integer[];
  v_subs text[];
  v_start integer;
BEGIN
  IF v_count IS NULL OR v_count = 0 THEN
    RETURN;
  END IF;
  v_state := array_fill(NULL::text, ARRAY[v_count]);
  v_partition_of := array_fill(NULL::uuid, ARRAY[v_count]);

  -- Implicit queue creation, in name order.
  INSERT INTO queen.queues (id, name, namespace, task)
  SELECT queen.uuid_v7(), n.name, split_part(n.name, '.', 1), split_part(n.name, '.', 2)
  FROM (SELECT DISTINCT u.name FROM unnest(p_queue) AS u (name)) n
  WHERE NOT EXISTS (SELECT 1 FROM queen.queues q WHERE q.name = n.name)
  ORDER BY n.name
  ON CONFLICT (name) DO NOTHING;

  SELECT array_agg(ROW(g.queue_name, g.partition_name, g.items)::queen.push_group
                   ORDER BY g.queue_name, g.partition_name) INTO v_groups
  FROM (
    SELECT t.queue_name, t.partition_name, array_agg(t.i::integer ORDER BY t.i) AS items
    FROM unnest(p_queue, p_partition) WITH ORDINALITY AS t (queue_name, partition_name, i)
    GROUP BY t.queue_name, t.partition_name
  ) g;

  -- Phase 1: lock (or create) every partition, in name order; classify each item.
  FOREACH v_group IN ARRAY v_groups LOOP
    SELECT * INTO STRICT v_queue FROM queen.queues q WHERE q.name = v_group.queue_name;
    SELECT * INTO v_partition FROM queen.partitions p
    WHERE p.queue_id = v_queue.id AND p.name = v_group.partition_name FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO queen.partitions (id, queue_id, name)
      VALUES (queen.uuid_v7(), v_queue.id, v_group.partition_name)
      ON CONFLICT (queue_id, name) DO NOTHING;
      SELECT * INTO STRICT v_partition FROM queen.partitions p
      WHERE p.queue_id = v_queue.id AND p.name = v_group.partition_name FOR UPDATE;
    END IF;
    FOREACH v_i IN ARRAY v_group.items LOOP
      v_partition_of[v_i] := v_partition.id;
      v_state[v_i] := 'seen';
    END LOOP;
    -- Fresh: the first occurrence of each transactionId that is not stored yet.
    FOR v_i IN
      SELECT f.i FROM (
        SELECT g.i, row_number() OVER (PARTITION BY p_transaction_id[g.i] ORDER BY g.i) AS occurrence
        FROM unnest(v_group.items) AS g (i)
      ) f
      WHERE f.occurrence = 1
        AND NOT EXISTS (SELECT 1 FROM queen.message_keys k
                        WHERE k.partition_id = v_partition.id AND k.transaction_id = p_transaction_id[f.i])
    LOOP
      v_state[v_i] := 'fresh';
    END LOOP;
  END LOOP;

  -- Phase 2: maxSize admits a capped queue's fresh items in input order, across its partitions.
  FOR v_queue IN
    SELECT q.* FROM queen.queues q WHERE q.name = ANY (p_queue) AND q.max_size > 0
  LOOP
    v_room := greatest(v_queue.max_size - queen.queue_mode_backlog(v_queue.id), 0);
    FOR v_i IN 1 .. v_count LOOP
      CONTINUE WHEN p_queue[v_i] <> v_queue.name OR v_state[v_i] <> 'fresh';
      IF v_room > 0 THEN
        v_room := v_room - 1;
      ELSE
        v_state[v_i] := 'rejected';
      END IF;
    END LOOP;
  END LOOP;

  -- Phase 3: write each partition's fresh items as one segment.
  FOREACH v_group IN ARRAY v_groups LOOP
    SELECT array_agg(g.i ORDER BY g.i) INTO v_fresh
    FROM unnest(v_group.items) AS g (i) WHERE v_state[g.i] = 'fresh';
    CONTINUE WHEN v_fresh IS NULL;
    SELECT * INTO STRICT v_partition FROM queen.partitions p WHERE p.id = v_partition_of[v_fresh[1]];
    SELECT * INTO STRICT v_queue FROM queen.queues q WHERE q.id = v_partition.queue_id;
    -- createdAt never decreases along a partition, even if the clock steps back.
    v_created := greatest(clock_timestamp(), v_partition.last_push_at);
    v_first := v_partition.tail + 1;

    INSERT INTO queen.message_keys (partition_id, transaction_id, message_offset)
    SELECT v_partition.id, p_transaction_id[f.i], v_first + f.n - 1
    FROM unnest(v_fresh) WITH ORDINALITY AS f (i, n);

    v_start := 1;
    WHILE v_start <= cardinality(v_fresh) LOOP
      v_chunk := v_fresh[v_start:v_start + c_chunk - 1];
      SELECT CASE WHEN bool_or(p_producer_sub[c.i] IS NOT NULL)
                  THEN array_agg(p_producer_sub[c.i] ORDER BY c.n) END
      INTO v_subs
      FROM unnest(v_chunk) WITH ORDINALITY AS c (i, n);
      INSERT INTO queen.segments (partition_id, first_offset, last_offset, created_at, message_ids,
                                  transaction_ids, trace_ids, payloads, producer_subs)
      SELECT v_partition.id, v_first + v_start - 1, v_first + v_start + cardinality(v_chunk) - 2, v_created,
             array_agg(p_message_id[c.i] ORDER BY c.n), array_agg(p_transaction_id[c.i] ORDER BY c.n),
             array_agg(p_trace_id[c.i] ORDER BY c.n), array_agg(p_payload[c.i] ORDER BY c.n), v_subs
      FROM unnest(v_chunk) WITH ORDINALITY AS c (i, n);
      v_start := v_start + c_chunk;
    END LOOP;

    UPDATE queen.partitions p
    SET tail = v_partition.tail + cardinality(v_fresh), last_push_at = v_created
    WHERE p.id = v_partition.id;

    PERFORM pg_notify('queen_wake', json_build_object(
      'origin', p_origin, 'queue', v_queue.name, 'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  END LOOP;

  -- Each item answers after the first occurrence of its transactionId in its partition: queued when that is
  -- itself, duplicate of it (or of the stored message) otherwise, failed when maxSize refused it.
  RETURN QUERY
  WITH batch AS (
    SELECT b.i, min(b.i) OVER (PARTITION BY v_partition_of[b.i], p_transaction_id[b.i]) AS first_i
    FROM generate_series(1, v_count) AS b (i)
  )
  SELECT batch.i::integer,
         CASE WHEN v_state[batch.first_i] = 'rejected' THEN 'failed'
              WHEN v_state[batch.first_i] = 'fresh' AND batch.i = batch.first_i THEN 'queued'
              ELSE 'duplicate' END,
         CASE WHEN v_state[batch.first_i] = 'rejected' THEN NULL
              WHEN v_state[batch.first_i] = 'fresh' THEN p_message_id[batch.first_i]
              ELSE (SELECT s.message_ids[k.message_offset - s.first_offset + 1]
                    FROM queen.message_keys k
                    JOIN queen.segments s ON s.partition_id = k.partition_id
                                         AND s.last_offset >= k.message_offset
                                         AND s.first_offset <= k.message_offset
                    WHERE k.partition_id = v_partition_of[batch.i] AND k.transaction_id = p_transaction_id[batch.i]
                    LIMIT 1) END,
         v_partition_of[batch.i],
         CASE WHEN v_state[batch.first_i] = 'rejected'
              THEN format('Queue ''%s'' would exceed max capacity', p_queue[batch.i]) END,
         q.namespace,
         q.task
  FROM batch
  JOIN queen.queues q ON q.name = p_queue[batch.i];
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
