-- 0003_push: append one coalesced batch of messages (API.md 4.4, DESIGN.md 3).
--
-- push_messages(p_origin, p_queue[], p_partition[], p_message_id[], p_transaction_id[], p_trace_id[],
--               p_payload[], p_producer_sub[])
--   Purpose:  write every item of one or more push requests in one transaction. Item i is described by the
--             i-th element of each array; items are already validated by the broker.
--   Result:   one row per item: (item, status 'queued' | 'duplicate' | 'failed', message_id, partition_id,
--             error, queue_namespace, queue_task). Rows come grouped by partition, not in item order.
--   Effects:  unknown queues are created with the implicit defaults, unknown partitions are created. Per
--             partition: items whose transactionId is already stored (or repeats an earlier item of the batch)
--             are duplicates; the rest get consecutive offsets tail+1.. in item order, one segment per commit
--             (chunked into rows of at most 200 messages), and the tail moves.
--   Locks:    queue rows are created and partition rows locked (FOR UPDATE) in (queue name, partition name)
--             order, so concurrent batches cannot deadlock. Every writer of a partition holds its row lock,
--             which is what makes offsets dense and assigned in commit order.
--   Notifies: queen_wake once per queue (NOTIFY folds identical payloads within a transaction).
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
DECLARE
  c_chunk constant integer := 200;
  v_group record;
  v_queue queen.queues;
  v_partition queen.partitions;
  v_fresh integer[];       -- items to write, in item order
  v_rejected integer[];    -- items refused by maxSize
  v_room bigint;
  v_created timestamptz;
  v_first bigint;
  v_chunk integer[];
  v_subs text[];
  v_start integer;
BEGIN
  -- Implicit queue creation, in name order.
  INSERT INTO queen.queues (id, name, namespace, task)
  SELECT queen.uuid_v7(), n.name, split_part(n.name, '.', 1), split_part(n.name, '.', 2)
  FROM (SELECT DISTINCT u.name FROM unnest(p_queue) AS u (name)) n
  WHERE NOT EXISTS (SELECT 1 FROM queen.queues q WHERE q.name = n.name)
  ORDER BY n.name
  ON CONFLICT (name) DO NOTHING;

  FOR v_group IN
    SELECT t.queue_name, t.partition_name, array_agg(t.i ORDER BY t.i) AS items
    FROM unnest(p_queue, p_partition) WITH ORDINALITY AS t (queue_name, partition_name, i)
    GROUP BY t.queue_name, t.partition_name
    ORDER BY t.queue_name, t.partition_name
  LOOP
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

    -- First occurrence of each transactionId that is not stored yet.
    SELECT coalesce(array_agg(f.i ORDER BY f.i), '{}') INTO v_fresh
    FROM (
      SELECT g.i, row_number() OVER (PARTITION BY p_transaction_id[g.i] ORDER BY g.i) AS occurrence
      FROM unnest(v_group.items) AS g (i)
    ) f
    WHERE f.occurrence = 1
      AND NOT EXISTS (SELECT 1 FROM queen.message_keys k
                      WHERE k.partition_id = v_partition.id AND k.transaction_id = p_transaction_id[f.i]);

    -- maxSize: admit items while the queue-mode backlog stays under the cap.
    v_rejected := '{}';
    IF v_queue.max_size > 0 AND cardinality(v_fresh) > 0 THEN
      v_room := greatest(v_queue.max_size - queen.queue_mode_backlog(v_queue.id), 0);
      IF cardinality(v_fresh) > v_room THEN
        v_rejected := v_fresh[v_room + 1:];
        v_fresh := v_fresh[1:v_room];
      END IF;
    END IF;

    IF cardinality(v_fresh) > 0 THEN
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
    END IF;

    -- Each item answers after the first occurrence of its transactionId in the batch: queued when that is
    -- itself, duplicate of it (or of the stored message) otherwise, failed when maxSize refused it.
    RETURN QUERY
    WITH batch AS (
      SELECT b.i, min(b.i) OVER (PARTITION BY p_transaction_id[b.i]) AS first_i
      FROM unnest(v_group.items) AS b (i)
    )
    SELECT batch.i::integer,
           CASE WHEN fresh.i IS NOT NULL AND batch.i = batch.first_i THEN 'queued'
                WHEN rejected.i IS NOT NULL THEN 'failed'
                ELSE 'duplicate' END,
           CASE WHEN fresh.i IS NOT NULL THEN p_message_id[batch.first_i]
                WHEN rejected.i IS NOT NULL THEN NULL
                ELSE (SELECT s.message_ids[k.message_offset - s.first_offset + 1]
                      FROM queen.message_keys k
                      JOIN queen.segments s ON s.partition_id = k.partition_id
                                           AND s.last_offset >= k.message_offset
                                           AND s.first_offset <= k.message_offset
                      WHERE k.partition_id = v_partition.id AND k.transaction_id = p_transaction_id[batch.i]
                      LIMIT 1) END,
           v_partition.id,
           CASE WHEN rejected.i IS NOT NULL
                THEN format('Queue ''%s'' would exceed max capacity', v_queue.name) END,
           v_queue.namespace,
           v_queue.task
    FROM batch
    LEFT JOIN unnest(v_fresh) AS fresh (i) ON fresh.i = batch.first_i
    LEFT JOIN unnest(v_rejected) AS rejected (i) ON rejected.i = batch.first_i;
  END LOOP;
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
