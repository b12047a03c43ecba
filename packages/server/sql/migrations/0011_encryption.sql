-- 0011_encryption: encryption at rest (API.md 9.6).
--
-- The broker seals payloads itself (AES-256-GCM in Node, core/payload-cipher.ts): the key never reaches
-- PostgreSQL. A sealed payload is stored in the payload slot of its segment as 'enc:v1:' + base64(iv | tag |
-- ciphertext); no stored plaintext payload can start like that, because every payload is JSON text and a JSON
-- text never starts with 'e'. That prefix is each message's own encrypted flag: no column changes, and every
-- function that moves payloads around (segment_cut, message_requeue, the readers) carries it along as is.
--
-- This migration adds the guard that keeps plaintext out of encrypted queues whatever the broker's view of
-- the queue options: a session that holds the key (the broker sets queen.sealing = on on its connections when
-- QUEEN_ENCRYPTION_KEY is set) has its plaintext items for a queue with encryption_enabled refused by
-- push_messages with the internal status 'unsealed'. Nothing of such an item is written; the broker refreshes
-- its view and re-submits the item sealed. A broker without the key stores plaintext, as API.md 4.2 rule 4
-- says (configure warns about it).
--
-- Replaced here: push_messages (the guard; otherwise unchanged from 0003, still set-based: the guard reuses
-- the one queues look-up the maxSize rule already made, so a batch with no capped or encrypted queue runs
-- exactly the statements it ran before) and message_requeue (the copy keeps the stored form). Added: the
-- column queues.encryption_used (has the queue ever been encrypted), kept by a trigger, at the end.

-- push_messages: as in 0003_push.sql, plus the encryption guard.
--   Result: status also 'unsealed' (error 'Payload must be encrypted for this queue', message_id null) for a
--     fresh item of a queue with encryption_enabled whose payload is not sealed, when the session has
--     queen.sealing = on; repeats of such an item in the batch answer the same. Nothing of them is written.
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

  -- The queues of the batch that need a per-queue rule: encryption (only when the session holds the key)
  -- and maxSize. One look-up by name, as before; queues with neither rule are not returned.
  FOR v_queue IN SELECT q.* FROM queen.queues q
                 WHERE q.name = ANY (p_queue) AND (q.max_size > 0 OR (v_sealing AND q.encryption_enabled)) LOOP
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
  JOIN queen.queues q ON q.name = a.queue_name;
END
$$;

-- message_requeue: as in 0006_transactions_dlq_messages.sql; the copy keeps the stored form of the payload
-- (sealed or not), whatever the queue's encryption setting is now.
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
  v_sealing text := current_setting('queen.sealing', true);
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

  -- The copy keeps the stored form of the payload: sealed stays sealed (no key needed), plaintext stays
  -- plaintext even if the queue has turned encryption on since (no plaintext crosses the wire: it is
  -- already stored). The encryption guard is suspended for this one push, then restored.
  PERFORM set_config('queen.sealing', 'off', true);
  SELECT r.status, r.error INTO v_pushed
  FROM queen.push_messages(ARRAY[v_partition.queue_name], ARRAY[v_partition.name], ARRAY[p_message_id],
                           ARRAY[p_new_transaction_id], ARRAY[v_message.trace_id], ARRAY[v_message.payload],
                           ARRAY[v_message.producer_sub]) r;
  PERFORM set_config('queen.sealing', coalesce(v_sealing, ''), true);
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


-- encryption_used: whether the queue has ever had encryption_enabled, so whether it may hold sealed payloads.
-- It never goes back to false (switching the option off leaves the sealed messages). The broker reads it to
-- decide whether an autoAck pop must run its claim and the decryption in one explicit transaction (see
-- core/pop-payloads.ts): queues that never had encryption keep the single-statement pop. Kept by a trigger,
-- so every writer of the option (queue_configure, or anything later) maintains it.
ALTER TABLE queen.queues ADD COLUMN encryption_used boolean NOT NULL DEFAULT false;
UPDATE queen.queues SET encryption_used = true WHERE encryption_enabled;

CREATE OR REPLACE FUNCTION queen.queues_encryption_used() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.encryption_used := NEW.encryption_enabled;
  IF TG_OP = 'UPDATE' THEN
    NEW.encryption_used := NEW.encryption_used OR OLD.encryption_used;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER queues_encryption_used BEFORE INSERT OR UPDATE OF encryption_enabled, encryption_used ON queen.queues
FOR EACH ROW EXECUTE FUNCTION queen.queues_encryption_used();
