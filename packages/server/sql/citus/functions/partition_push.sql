-- partition_push: push_messages (sql/functions/push_messages.sql) for the items of ONE partition, the entry point
-- a Citus deployment delegates to the worker that holds the partition (docs/scale-out.md sections 3 and 4).
-- Installed on Citus only (store/citus-schema.ts), distributed by p_partition_id co-located with
-- queen.partitions; single PostgreSQL keeps push_messages and its one call per coalesced flush.
--   Parameters: p_partition_id = queen.partition_uuid(p_queue, p_partition), computed by the broker (a parameter,
--             so Citus delegates the call); the items' arrays as push_messages takes them, item i the i-th
--             element of each; p_room: how many fresh items a capped queue still admits (null: no cap applied);
--             p_sealing: the caller's session holds the encryption key (`queen.sealing`, src/store/connections.ts),
--             so the encryption guard applies; a parameter because a delegated call does not carry the caller's
--             settings to the worker.
--   Result:   one row per item (item, status 'queued' | 'duplicate' | 'failed' | 'unsealed', message_id, error,
--             queue_namespace, queue_task), or one row (0, 'no-queue') and nothing written when the queue does not
--             exist: creating it is a reference-table write, which the broker makes on the coordinator
--             (queue_ensure) before calling again.
--   Effects:  as push_messages for one partition: the partition is created (its id is the computed one);
--             duplicates by transactionId; consecutive offsets tail+1.. in item order, one segment chunked into
--             rows of at most 200 messages; the tail moves; the partition's backlog entries for the queue's
--             registered groups.
--   Locks:    first the shard group's placement (Citus's metadata lock, shared, as its own writes take it), so a
--             shard move switches over before or after the call, never inside it (docs/scale-out.md 9a); then the
--             partition row FOR UPDATE (every writer of a partition holds it: dense offsets in commit order). One
--             partition per call, so no lock order to keep.
--   Rules for Citus (docs/scale-out.md section 3): every statement on a distributed table names p_partition_id
--             as a plain constant (custom plans, so Citus routes it to the local shard); per-item work is done
--             on arrays in statements that read no distributed table; no volatile function in a distributed
--             UPDATE; no helper function calls (they would have to exist on every worker).
--   Notifies: nothing (the broker wakes pops after the commit, as for push_messages).
-- The signature before p_sealing (databases converted before 2026-12-06): a call must not find two candidates.
DROP FUNCTION IF EXISTS queen.partition_push(uuid, text, text, uuid[], text[], uuid[], text[], text[], text[], bigint);
CREATE OR REPLACE FUNCTION queen.partition_push(
  p_partition_id uuid,
  p_queue text,
  p_partition text,
  p_message_id uuid[],
  p_transaction_id text[],
  p_trace_id uuid[],
  p_payload text[],
  p_producer_sub text[],
  p_trace_context text[],
  p_room bigint,
  p_sealing boolean
) RETURNS TABLE (item integer, status text, message_id uuid, error text, queue_namespace text, queue_task text)
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
DECLARE
  c_chunk constant integer := 200;
  v_sealing constant boolean := coalesce(p_sealing, false);
  v_queue_id uuid;
  v_namespace text;
  v_task text;
  v_encrypted boolean;
  v_tail bigint;
  v_last timestamptz;
  v_created timestamptz;
  v_known_tx text[];
  v_known_offset bigint[];
  v_groups text[];
  v_state text[];
  v_first_of bigint[];
  v_stored_offset bigint[];
  v_ids uuid[];
  v_id uuid;
  v_written integer;
  v_i integer;
BEGIN
  IF coalesce(cardinality(p_transaction_id), 0) = 0 THEN
    RETURN;
  END IF;
  -- The placement lock (Locks, above): Citus locks no reads, so a move could switch between a read and a write.
  PERFORM lock_shard_metadata(5, ARRAY[get_shard_id_for_distribution_column('queen.partitions', p_partition_id)]);
  -- queues is a reference table: read locally on the worker.
  SELECT q.id, q.namespace, q.task, q.encryption_enabled INTO v_queue_id, v_namespace, v_task, v_encrypted
  FROM queen.queues q WHERE q.name = p_queue;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 0, 'no-queue'::text, NULL::uuid, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;

  SELECT p.tail, p.last_push_at INTO v_tail, v_last FROM queen.partitions p WHERE p.id = p_partition_id FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO queen.partitions (id, queue_id, name) VALUES (p_partition_id, v_queue_id, p_partition) ON CONFLICT DO NOTHING;
    SELECT p.tail, p.last_push_at INTO STRICT v_tail, v_last FROM queen.partitions p WHERE p.id = p_partition_id FOR UPDATE;
  END IF;
  -- createdAt never decreases along a partition, even if the clock steps back.
  v_created := greatest(clock_timestamp(), v_last);

  -- The stored keys among the batch's transactionIds: one statement on the shard, then arrays only.
  SELECT array_agg(k.transaction_id), array_agg(k.message_offset) INTO v_known_tx, v_known_offset
  FROM queen.message_keys k WHERE k.partition_id = p_partition_id AND k.transaction_id = ANY (p_transaction_id);

  -- Each item: 'stored' (already in the partition), 'fresh' (first of its transactionId in the batch),
  -- 'repeat'; then the encryption guard and maxSize on the fresh ones, in item order.
  SELECT array_agg(CASE WHEN s.stored_offset IS NOT NULL THEN 'stored'
                        WHEN s.i <> s.first_i THEN 'repeat'
                        WHEN v_sealing AND v_encrypted AND left(s.payload, 7) <> 'enc:v1:' THEN 'unsealed'
                        WHEN p_room IS NOT NULL AND s.fresh_n > p_room THEN 'rejected'
                        ELSE 'fresh' END ORDER BY s.i),
         array_agg(s.first_i ORDER BY s.i), array_agg(s.stored_offset ORDER BY s.i)
  INTO v_state, v_first_of, v_stored_offset
  FROM (SELECT t.*, count(*) FILTER (WHERE t.stored_offset IS NULL AND t.i = t.first_i
                                     AND NOT (v_sealing AND v_encrypted AND left(t.payload, 7) <> 'enc:v1:'))
                      OVER (ORDER BY t.i) AS fresh_n
        FROM (SELECT u.i, u.payload, min(u.i) OVER (PARTITION BY u.transaction_id) AS first_i, known.message_offset AS stored_offset
              FROM unnest(p_transaction_id, p_payload) WITH ORDINALITY AS u (transaction_id, payload, i)
              LEFT JOIN unnest(v_known_tx, v_known_offset) AS known (transaction_id, message_offset)
                ON known.transaction_id = u.transaction_id) t) s;

  -- Write: the fresh items get tail+1.. in item order.
  INSERT INTO queen.message_keys (partition_id, transaction_id, message_offset)
  SELECT p_partition_id, f.transaction_id, v_tail + f.n
  FROM (SELECT t.transaction_id, row_number() OVER (ORDER BY t.i) AS n
        FROM unnest(v_state, p_transaction_id) WITH ORDINALITY AS t (state, transaction_id, i) WHERE t.state = 'fresh') f;
  GET DIAGNOSTICS v_written = ROW_COUNT;

  IF v_written > 0 THEN
    INSERT INTO queen.segments (partition_id, first_offset, last_offset, created_at, message_ids, transaction_ids,
                                trace_ids, payloads, producer_subs, trace_contexts)
    SELECT p_partition_id, v_tail + min(f.n), v_tail + max(f.n), v_created,
           array_agg(f.message_id ORDER BY f.n), array_agg(f.transaction_id ORDER BY f.n),
           array_agg(f.trace_id ORDER BY f.n), array_agg(f.payload ORDER BY f.n),
           CASE WHEN bool_or(f.producer_sub IS NOT NULL) THEN array_agg(f.producer_sub ORDER BY f.n) END,
           CASE WHEN bool_or(f.trace_context IS NOT NULL) THEN array_agg(f.trace_context ORDER BY f.n) END
    FROM (SELECT t.*, row_number() OVER (ORDER BY t.i) AS n
          FROM unnest(v_state, p_message_id, p_transaction_id, p_trace_id, p_payload, p_producer_sub, p_trace_context)
            WITH ORDINALITY AS t (state, message_id, transaction_id, trace_id, payload, producer_sub, trace_context, i)
          WHERE t.state = 'fresh') f
    GROUP BY (f.n - 1) / c_chunk;

    UPDATE queen.partitions SET tail = v_tail + v_written, last_push_at = v_created WHERE id = p_partition_id;

    -- The partition's backlog entry for every (queue, group) registered with the wildcard pops' index.
    SELECT array_agg(g.consumer_group ORDER BY g.consumer_group) INTO v_groups
    FROM queen.backlog_groups g WHERE g.queue_id = v_queue_id;
    IF v_groups IS NOT NULL THEN
      INSERT INTO queen.backlog (queue_id, consumer_group, partition_id)
      SELECT v_queue_id, u.consumer_group, p_partition_id FROM unnest(v_groups) AS u (consumer_group)
      ON CONFLICT DO NOTHING;
    END IF;
  END IF;

  -- Message ids: a fresh item's own; a stored one's from its segment (rare: one look-up each); a repeat's that
  -- of the first item with its transactionId.
  v_ids := p_message_id;
  FOR v_i IN 1 .. cardinality(v_state) LOOP
    CONTINUE WHEN v_state[v_i] <> 'stored';
    SELECT s.message_ids[v_stored_offset[v_i] - s.first_offset + 1] INTO v_id
    FROM queen.segments s
    WHERE s.partition_id = p_partition_id AND s.last_offset >= v_stored_offset[v_i]
    ORDER BY s.last_offset LIMIT 1;
    v_ids[v_i] := v_id;
  END LOOP;

  RETURN QUERY
  SELECT a.i::integer,
         CASE WHEN f.state = 'rejected' THEN 'failed'
              WHEN f.state = 'unsealed' THEN 'unsealed'
              WHEN a.state = 'fresh' THEN 'queued'
              ELSE 'duplicate' END,
         CASE WHEN f.state IN ('rejected', 'unsealed') THEN NULL ELSE f.id END,
         CASE WHEN f.state = 'rejected' THEN format('Queue ''%s'' would exceed max capacity', p_queue)
              WHEN f.state = 'unsealed' THEN 'Payload must be encrypted for this queue' END,
         v_namespace, v_task
  FROM unnest(v_state, v_first_of) WITH ORDINALITY AS a (state, first_i, i)
  JOIN unnest(v_state, v_ids) WITH ORDINALITY AS f (state, id, i) ON f.i = a.first_i;
END
$$;

-- Delegated: a call runs on the worker that holds p_partition_id's shard, in one round trip.
SELECT create_distributed_function('queen.partition_push(uuid, text, text, uuid[], text[], uuid[], text[], text[], text[], bigint, boolean)',
  'p_partition_id', colocate_with := 'queen.partitions');
