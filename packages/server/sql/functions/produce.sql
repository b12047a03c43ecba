-- produce: SQL API v1 (docs/sql-api.md). Appends messages in the caller's transaction: they are visible to
-- consumers, and parked pops of every broker process are woken, when that transaction commits; nothing of
-- them exists if it rolls back.
--   Parameters: p_items a JSON array of {queue, partition?, payload?, transactionId?, traceId?} (the items
--     of POST /api/v1/push; an object counts as one item).
--   Result: the push results of docs/api.md 4.4, one per item in item order ('queued' | 'duplicate' | 'failed':
--     maxSize).
--   Errors: 22023 for a malformed item, 0A000 for an encrypted queue: nothing is written (api_push_items).
--   Locks: those of push_messages. Notifies: queen_wake at commit (api_wake).
CREATE OR REPLACE FUNCTION queen.produce(p_items jsonb) RETURNS jsonb
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce(jsonb_agg(CASE r.status
      WHEN 'queued' THEN jsonb_build_object('index', r.item, 'transaction_id', r.transaction_id,
        'status', r.status, 'message_id', r.message_id, 'partition_id', r.partition_id, 'trace_id', r.trace_id,
        'queueName', r.queue_name)
      WHEN 'duplicate' THEN jsonb_build_object('index', r.item, 'transaction_id', r.transaction_id,
        'status', r.status, 'message_id', r.message_id, 'queueName', r.queue_name)
      ELSE jsonb_build_object('index', r.item, 'transaction_id', r.client_transaction_id, 'status', r.status,
        'queueName', r.queue_name, 'queue', r.queue_name, 'partition', r.partition_name, 'error', r.error)
    END ORDER BY r.item), '[]'::jsonb)
  FROM queen.api_push_items(p_items, 'queen.produce: p_items') r
$$;
SELECT queen.api_grant('queen.produce(jsonb)', ARRAY['producer']);
