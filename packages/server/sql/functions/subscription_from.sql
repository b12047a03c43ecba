-- subscription_from: the timestamp of the subscription record that applies to (queue, partition, group),
-- or null: the partition-scoped record wins over the queue-wide one (docs/api.md 5.7 rule 4). Queue mode has none.
--   Parameters: p_queue_id uuid, p_partition_name text, p_group text.
--   Result: the timestamp, or null.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.subscription_from(p_queue_id uuid, p_partition_name text, p_group text)
RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT s.subscribed_from
  FROM queen.subscriptions s
  WHERE p_group <> '__QUEUE_MODE__'
    AND s.queue_id = p_queue_id AND s.consumer_group = p_group AND s.partition_name IN (p_partition_name, '')
  ORDER BY s.partition_name DESC
  LIMIT 1
$$;
