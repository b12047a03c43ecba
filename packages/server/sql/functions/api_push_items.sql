-- api_push_items: the write path of the SQL API (produce, produce_one, transaction, forward). It checks the
-- items like POST /api/v1/push (docs/api.md 4.4), appends them through push_messages (the function the broker's
-- push calls: same deduplication, maxSize, offsets, implicit creation) and owes the wake-up the broker
-- sends after its own commits (api_wake, delivered at the caller's commit).
--   Parameters: p_items a JSON array of items {queue, partition?, payload?, transactionId?, traceId?,
--     traceparent?, tracestate?} (an
--     object counts as an array of one; other keys are ignored, as on the wire); p_where the argument's
--     name for error messages.
--   Result: one row per item in item order: item (0-based), queue and partition names, the effective and
--     the client's transactionId, traceId, status ('queued' | 'duplicate' | 'failed'), message_id,
--     partition_id, error (maxSize refusals: 'failed', nothing written for that item).
--   Errors: 22023 for a malformed item (nothing is written: the check covers every item first); 0A000 for
--     an item of a queue with encryption enabled (the key lives in the broker; plaintext never reaches the
--     table, docs/api.md 9.6): push_messages' guard refuses it because this function sets queen.sealing.
--   Locks: those of push_messages. Notifies: api_wake once per queue that received messages, unless the
--     session set queen.wake = off: PostgreSQL serialises the commits of notifying transactions, and a
--     producer that commits at a high rate may prefer consumers to find its messages at their next re-check.
--     The flag only ever withholds a hint: nothing written depends on it.
DROP FUNCTION IF EXISTS queen.api_push_items(jsonb, text);
CREATE OR REPLACE FUNCTION queen.api_push_items(p_items jsonb, p_where text)
RETURNS TABLE (item integer, queue_name text, partition_name text, transaction_id text,
               client_transaction_id text, trace_id uuid, status text, message_id uuid, partition_id uuid,
               error text)
LANGUAGE plpgsql
SET queen.sealing = 'on'            -- push_messages refuses plaintext for encrypted queues ('unsealed')
AS $$
#variable_conflict use_column
DECLARE
  c_uuid constant text := '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
  v_items jsonb := CASE WHEN jsonb_typeof(p_items) = 'object' THEN jsonb_build_array(p_items) ELSE p_items END;
  v_problem text;
  v_queue text[];
  v_partition text[];
  v_txn text[];
  v_client_txn text[];
  v_trace uuid[];
  v_payload text[];
  v_context text[];
  v_ids uuid[];
  v_row record;
  v_woken text[] := '{}';
  v_wake constant boolean := coalesce(current_setting('queen.wake', true), '') <> 'off';
BEGIN
  IF jsonb_typeof(v_items) IS DISTINCT FROM 'array' THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('%s must be a JSON array of items', p_where);
  END IF;
  IF jsonb_array_length(v_items) = 0 THEN
    RETURN;
  END IF;

  -- Every item is checked before anything is written: the first problem, in item order, is raised.
  SELECT format('%s[%s]%s', p_where, t.i - 1, problem.text) INTO v_problem
  FROM jsonb_array_elements(v_items) WITH ORDINALITY AS t (e, i)
  CROSS JOIN LATERAL (SELECT CASE
      WHEN jsonb_typeof(t.e) <> 'object' THEN ' must be an object'
      WHEN jsonb_typeof(t.e -> 'queue') IS DISTINCT FROM 'string' THEN '.queue must be a string'
      WHEN queen.name_problem(t.e ->> 'queue') IS NOT NULL THEN '.queue ' || queen.name_problem(t.e ->> 'queue')
      WHEN coalesce(jsonb_typeof(t.e -> 'partition'), 'null') NOT IN ('string', 'null')
        THEN '.partition must be a string'
      WHEN t.e ->> 'partition' IS NOT NULL AND queen.name_problem(t.e ->> 'partition') IS NOT NULL
        THEN '.partition ' || queen.name_problem(t.e ->> 'partition')
      WHEN coalesce(jsonb_typeof(t.e -> 'transactionId'), 'null') NOT IN ('string', 'null')
        THEN '.transactionId must be a string'
      WHEN length(t.e ->> 'transactionId') > 255 THEN '.transactionId must be at most 255 characters'
      WHEN coalesce(jsonb_typeof(t.e -> 'traceId'), 'null') NOT IN ('string', 'null')
        THEN '.traceId must be a string'
      WHEN (t.e ->> 'traceId') !~ c_uuid THEN '.traceId must be a UUID'
      ELSE queen.trace_context_problem(t.e)
    END AS text) problem
  WHERE problem.text IS NOT NULL
  ORDER BY t.i
  LIMIT 1;
  IF v_problem IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = v_problem;
  END IF;

  -- The stored form (core/push.ts toAppendItem): ids minted, an absent or empty transactionId minted, the
  -- traceId lowercased, an absent payload stored as JSON null; producerSub is null (no JWT in SQL); the trace
  -- context in its stored form (migration 0016: traceparent, then a space and a non-empty tracestate).
  SELECT array_agg(t.e ->> 'queue' ORDER BY t.i),
         array_agg(coalesce(t.e ->> 'partition', 'Default') ORDER BY t.i),
         array_agg(coalesce(nullif(t.e ->> 'transactionId', ''), queen.uuid_v7()::text) ORDER BY t.i),
         array_agg(t.e ->> 'transactionId' ORDER BY t.i),
         array_agg(lower(t.e ->> 'traceId')::uuid ORDER BY t.i),
         array_agg(coalesce(t.e -> 'payload', 'null'::jsonb)::text ORDER BY t.i),
         array_agg(queen.uuid_v7() ORDER BY t.i),
         array_agg(t.e ->> 'traceparent' || coalesce(' ' || nullif(btrim(t.e ->> 'tracestate', E' \t'), ''), '')
                   ORDER BY t.i)
  INTO v_queue, v_partition, v_txn, v_client_txn, v_trace, v_payload, v_ids, v_context
  FROM jsonb_array_elements(v_items) WITH ORDINALITY AS t (e, i);

  FOR v_row IN
    SELECT r.item, r.status, r.message_id, r.partition_id, r.error, r.queue_namespace, r.queue_task
    FROM queen.push_messages(v_queue, v_partition, v_ids, v_txn, v_trace, v_payload,
                             array_fill(NULL::text, ARRAY[cardinality(v_queue)]), v_context) r
    ORDER BY r.item
  LOOP
    IF v_row.status = 'unsealed' THEN
      RAISE EXCEPTION USING ERRCODE = '0A000',
        MESSAGE = format('%s[%s]: queue %s has encryption enabled; the SQL API cannot encrypt payloads',
                         p_where, v_row.item - 1, v_queue[v_row.item]),
        HINT = 'Produce to encrypted queues over HTTP (the broker holds the key).';
    END IF;
    IF v_row.status = 'queued' AND v_wake AND NOT v_queue[v_row.item] = ANY (v_woken) THEN
      v_woken := v_woken || v_queue[v_row.item];
      PERFORM queen.api_wake(v_queue[v_row.item], v_row.queue_namespace, v_row.queue_task);
    END IF;
    item := v_row.item - 1;
    queue_name := v_queue[v_row.item];
    partition_name := v_partition[v_row.item];
    transaction_id := v_txn[v_row.item];
    client_transaction_id := v_client_txn[v_row.item];
    trace_id := v_trace[v_row.item];
    status := v_row.status;
    message_id := v_row.message_id;
    partition_id := v_row.partition_id;
    error := v_row.error;
    RETURN NEXT;
  END LOOP;
END
$$;
