-- push_messages: append one coalesced batch of messages (docs/api.md 4.4, docs/architecture.md).
--   Parameters: every item of one or more push requests, written in one transaction. Item i is the i-th
--             element of each array (queue, partition, message id, transactionId, traceId, payload text,
--             producerSub, trace context: the stored form of docs/api.md 4.4's traceparent and tracestate,
--             see migration 0016; null when the item has none, and the whole array may be null or omitted);
--             items are already validated by the broker.
--   Result:   one row per item: (item, status 'queued' | 'duplicate' | 'failed', message_id, partition_id,
--             error, queue_namespace, queue_task), in no particular order.
--   Effects:  unknown queues are created with the implicit defaults, unknown partitions are created. Per
--             partition: items whose transactionId is already stored (or repeats an earlier item of the batch)
--             are duplicates; maxSize admits a capped queue's remaining items in item order (across its
--             partitions); the rest get consecutive offsets tail+1.. in item order, one segment per commit
--             (chunked into rows of at most 200 messages), and the tail moves. A batch without per-queue
--             rules writes its keys first and is classified only when that insert meets a duplicate
--             (one subtransaction per call; docs/decisions.md, "Duplicates found by the key insert").
--   Locks:    queue rows are created and partition rows locked (FOR UPDATE) in (queue name, partition name)
--             order, so concurrent batches cannot deadlock. Every writer of a partition holds its row lock,
--             which is what makes offsets dense and assigned in commit order.
--   Notifies: nothing. The broker wakes parked pops after the commit (see store/wake-channel.ts: a NOTIFY
--             here would serialise every push's commit behind PostgreSQL's notification lock).
--   Guard:    status 'unsealed' (error 'Payload must be encrypted for this queue', message_id null) for a
--             fresh item of a queue with encryption_enabled whose payload is not sealed, when the session has
--             queen.sealing = on (docs/api.md 9.6); repeats of such an item in the batch answer the same. Nothing
--             of them is written; the broker re-reads the queue's options and re-submits them sealed.
DROP FUNCTION IF EXISTS queen.push_messages(text[], text[], uuid[], text[], uuid[], text[], text[]);
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
SET enable_seqscan = off            -- see README.md: hot paths never scan a table
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
  -- has its transactionId), 'stored' (already in the partition), 'rejected' (refused by maxSize),
  -- 'unsealed' (plaintext for an encrypted queue, refused by the encryption guard).
  v_state text[];
  v_partition_of uuid[];
  v_first_of bigint[];
  v_stored_offset bigint[];
  v_key record;
  v_queue queen.queues;
  v_room bigint;
  v_i integer;
  v_sealing constant boolean := coalesce(current_setting('queen.sealing', true) = 'on', false);
  v_fast boolean;
  v_named text[];
  v_namespaces text[];
  v_tasks text[];
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

  -- Each item's partition, in item order.
  SELECT array_agg(g.partition_id ORDER BY t.i) INTO v_partition_of
  FROM unnest(p_queue, p_partition) WITH ORDINALITY AS t (queue_name, partition_name, i)
  JOIN unnest(v_group_queue, v_group_partition, v_group_id) AS g (queue_name, partition_name, partition_id)
    ON g.queue_name = t.queue_name AND g.partition_name = t.partition_name;

  -- The common batch: no queue of it has a per-queue rule (maxSize, or encryption with the key held), and
  -- every transactionId is new to its partition. Its keys are inserted straight away, offsets tail+1.. in
  -- item order: the primary key of message_keys finds any repeat or stored transactionId on the way (the
  -- insert descends the index anyway), so the batch pays no separate look-up per item. When it does find
  -- one, the subtransaction undoes the insert and the batch is classified item by item below
  -- (docs/decisions.md, "Duplicates found by the key insert").
  v_fast := NOT EXISTS (SELECT 1 FROM queen.queues q
                        WHERE q.name = ANY (v_group_queue) AND (q.max_size > 0 OR (v_sealing AND q.encryption_enabled)));
  IF v_fast THEN
    BEGIN
      INSERT INTO queen.message_keys (partition_id, transaction_id, message_offset)
      SELECT t.partition_id, t.transaction_id, g.tail + row_number() OVER (PARTITION BY t.partition_id ORDER BY t.i)
      FROM unnest(v_partition_of, p_transaction_id) WITH ORDINALITY AS t (partition_id, transaction_id, i)
      JOIN unnest(v_group_id, v_group_tail) AS g (partition_id, tail) ON g.partition_id = t.partition_id;
      v_state := array_fill('fresh'::text, ARRAY[v_count]);
    EXCEPTION WHEN unique_violation THEN
      v_fast := false;
    END;
  END IF;

  IF NOT v_fast THEN
    -- Classify every item against the stored keys and the earlier items of the batch. The stored key is
    -- looked up per item (a scalar subquery, both key columns bound), never joined: see README.md, "Plans
    -- that survive any statistics".
    WITH items AS (
      SELECT t.i, t.transaction_id, t.partition_id,
             min(t.i) OVER (PARTITION BY t.partition_id, t.transaction_id) AS first_i
      FROM unnest(v_partition_of, p_transaction_id) WITH ORDINALITY AS t (partition_id, transaction_id, i)
    ), keyed AS (
      SELECT items.*,
             (SELECT k.message_offset FROM queen.message_keys k
              WHERE k.partition_id = items.partition_id AND k.transaction_id = items.transaction_id) AS stored_offset
      FROM items
    )
    SELECT array_agg(CASE WHEN keyed.stored_offset IS NOT NULL THEN 'stored'
                          WHEN keyed.i = keyed.first_i THEN 'fresh'
                          ELSE 'repeat' END ORDER BY keyed.i),
           array_agg(keyed.first_i ORDER BY keyed.i),
           array_agg(keyed.stored_offset ORDER BY keyed.i)
    INTO v_state, v_first_of, v_stored_offset
    FROM keyed;

    -- The queues of the batch that need a per-queue rule: encryption (only when the session holds the key)
    -- and maxSize. One look-up by name, as before; queues with neither rule are not returned.
    FOR v_queue IN SELECT q.* FROM queen.queues q
                   WHERE q.name = ANY (v_group_queue) AND (q.max_size > 0 OR (v_sealing AND q.encryption_enabled)) LOOP
      -- Encryption guard first (a refused item takes no room under maxSize): a fresh item of an encrypted
      -- queue whose payload is not sealed ('enc:v1:' prefix, core/payload-cipher.ts; JSON text never starts
      -- with 'e') is refused as 'unsealed' and written nowhere. The broker re-submits it sealed.
      IF v_sealing AND v_queue.encryption_enabled THEN
        SELECT array_agg(CASE WHEN t.state = 'fresh' AND t.queue_name = v_queue.name AND left(t.payload, 7) <> 'enc:v1:'
                              THEN 'unsealed' ELSE t.state END ORDER BY t.i)
        INTO v_state
        FROM unnest(v_state, p_queue, p_payload) WITH ORDINALITY AS t (state, queue_name, payload, i);
      END IF;
      -- maxSize admits a capped queue's fresh items in input order, across its partitions.
      CONTINUE WHEN v_queue.max_size <= 0;
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

    -- Each partition's fresh items get tail+1.. in item order.
    WITH fresh AS (
      SELECT t.*, row_number() OVER (PARTITION BY t.partition_id ORDER BY t.i) AS n
      FROM unnest(v_state, v_partition_of, p_transaction_id) WITH ORDINALITY AS t (state, partition_id, transaction_id, i)
      WHERE t.state = 'fresh'
    )
    INSERT INTO queen.message_keys (partition_id, transaction_id, message_offset)
    SELECT fresh.partition_id, fresh.transaction_id, g.tail + fresh.n
    FROM fresh JOIN unnest(v_group_id, v_group_tail) AS g (partition_id, tail) ON g.partition_id = fresh.partition_id;
  END IF;

  -- Write: one segment per partition, chunked, offsets as in message_keys. The arrays are aggregated in
  -- the order of their input, which the subquery sorts by (partition, chunk, item): the grouping keys are a
  -- prefix of that order, so no sort comes between it and the aggregates, and each group sees its items in
  -- item order. An ORDER BY inside each aggregate would sort every aggregate of every group again
  -- (PostgreSQL 15: six sorts a segment; docs/performance-analysis.md, issue 40).
  INSERT INTO queen.segments (partition_id, first_offset, last_offset, created_at, message_ids, transaction_ids,
                              trace_ids, payloads, producer_subs, trace_contexts)
  SELECT c.partition_id, g.tail + c.first_n, g.tail + c.last_n, g.created_at, c.message_ids, c.transaction_ids,
         c.trace_ids, c.payloads, c.producer_subs, c.trace_contexts
  FROM (SELECT f.partition_id, min(f.n) AS first_n, max(f.n) AS last_n,
               array_agg(f.message_id) AS message_ids, array_agg(f.transaction_id) AS transaction_ids,
               array_agg(f.trace_id) AS trace_ids, array_agg(f.payload) AS payloads,
               CASE WHEN bool_or(f.producer_sub IS NOT NULL) THEN array_agg(f.producer_sub) END AS producer_subs,
               CASE WHEN bool_or(f.trace_context IS NOT NULL) THEN array_agg(f.trace_context) END AS trace_contexts
        FROM (SELECT n.*, (n.n - 1) / c_chunk AS chunk
              FROM (SELECT t.*, row_number() OVER (PARTITION BY t.partition_id ORDER BY t.i) AS n
                    FROM unnest(v_state, v_partition_of, p_message_id, p_transaction_id, p_trace_id, p_payload,
                                p_producer_sub, p_trace_context)
                      WITH ORDINALITY AS t (state, partition_id, message_id, transaction_id, trace_id, payload,
                                            producer_sub, trace_context, i)
                    WHERE t.state = 'fresh') n
              ORDER BY n.partition_id, chunk, n.i) f
        GROUP BY f.partition_id, f.chunk) c
  JOIN unnest(v_group_id, v_group_tail, v_group_created) AS g (partition_id, tail, created_at)
    ON g.partition_id = c.partition_id;

  -- Bump the tails, and give each written partition its backlog entry for every (queue, group) registered
  -- with the wildcard pops' index (backlog_prepare): a partition that already has its entry writes nothing,
  -- so the cost is one write per partition that turns non-empty for a group, not one per message. Entries
  -- are inserted in (queue, group, partition) order, as backlog_prepare inserts them.
  -- `p.id = ANY (v_group_id)` bounds every plan of the UPDATE to the batch's partitions (README.md), and the
  -- registrations are read per written partition (LATERAL, kept a subquery by its OFFSET), never joined.
  WITH bumped AS (
    UPDATE queen.partitions p
    SET tail = g.tail + written.count, last_push_at = g.created_at
    FROM (SELECT t.partition_id, count(*) AS count
          FROM unnest(v_state, v_partition_of) AS t (state, partition_id)
          WHERE t.state = 'fresh' GROUP BY t.partition_id) written
    JOIN unnest(v_group_id, v_group_tail, v_group_created) AS g (partition_id, tail, created_at)
      ON g.partition_id = written.partition_id
    WHERE p.id = ANY (v_group_id) AND p.id = written.partition_id
    RETURNING p.queue_id, p.id
  )
  INSERT INTO queen.backlog (queue_id, consumer_group, partition_id)
  SELECT bumped.queue_id, r.consumer_group, bumped.id
  FROM bumped
  CROSS JOIN LATERAL (SELECT g.consumer_group FROM queen.backlog_groups g
                      WHERE g.queue_id = bumped.queue_id OFFSET 0) r
  ORDER BY 1, 2, 3
  ON CONFLICT DO NOTHING;

  -- The queues' namespace and task, read once per queue name of the batch, by name.
  SELECT array_agg(n.name), array_agg(q.namespace), array_agg(q.task) INTO v_named, v_namespaces, v_tasks
  FROM (SELECT DISTINCT u.name FROM unnest(v_group_queue) AS u (name)) n
  CROSS JOIN LATERAL (SELECT q.namespace, q.task FROM queen.queues q WHERE q.name = n.name LIMIT 1) q;

  IF v_fast THEN  -- every item queued, under the id it came with
    RETURN QUERY
    SELECT t.i::integer, 'queued'::text, t.message_id, t.partition_id, NULL::text, q.namespace, q.task
    FROM unnest(p_message_id, v_partition_of, p_queue) WITH ORDINALITY AS t (message_id, partition_id, queue_name, i)
    JOIN unnest(v_named, v_namespaces, v_tasks) AS q (name, namespace, task) ON q.name = t.queue_name;
    RETURN;
  END IF;

  -- Each item answers after the first occurrence of its transactionId in its partition: queued when that is
  -- itself, duplicate of it (or of the stored message) otherwise, failed when maxSize refused it.
  RETURN QUERY
  WITH items AS (
    SELECT t.* FROM unnest(v_state, v_partition_of, v_first_of, v_stored_offset, p_message_id, p_queue)
      WITH ORDINALITY AS t (state, partition_id, first_i, stored_offset, message_id, queue_name, i)
  )
  SELECT a.i::integer,
         CASE WHEN f.state = 'rejected' THEN 'failed'
              WHEN f.state = 'unsealed' THEN 'unsealed'
              WHEN a.state = 'fresh' THEN 'queued'
              ELSE 'duplicate' END,
         CASE WHEN f.state IN ('rejected', 'unsealed') THEN NULL
              WHEN f.state = 'fresh' THEN f.message_id
              ELSE (SELECT s.message_ids[a.stored_offset - s.first_offset + 1]
                    FROM queen.segments s
                    WHERE s.partition_id = a.partition_id AND s.last_offset >= a.stored_offset
                    ORDER BY s.last_offset
                    LIMIT 1) END,
         a.partition_id,
         CASE WHEN f.state = 'rejected' THEN format('Queue ''%s'' would exceed max capacity', a.queue_name)
              WHEN f.state = 'unsealed' THEN 'Payload must be encrypted for this queue' END,
         q.namespace,
         q.task
  FROM items a
  JOIN items f ON f.i = a.first_i
  JOIN unnest(v_named, v_namespaces, v_tasks) AS q (name, namespace, task) ON q.name = a.queue_name;
END
$$;
