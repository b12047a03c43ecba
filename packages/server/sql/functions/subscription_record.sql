-- subscription_record: write the durable subscription record of a named group when no applicable record
-- exists (docs/api.md 5.7 rule 5). p_partition_name '' is the queue-wide scope; a partition-scoped write also
-- yields to an existing queue-wide record. p_mode is 'new' (timestamp = now) or 'timestamp'.
--   Parameters: p_queue_id uuid, p_group text, p_partition_name text, p_mode text, p_from timestamptz.
--   Result: none.
--   Locks: the subscription row's unique-index entry (a concurrent writer of the same record waits, then does nothing).
CREATE OR REPLACE FUNCTION queen.subscription_record(p_queue_id uuid, p_group text, p_partition_name text,
                                                     p_mode text, p_from timestamptz) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO queen.subscriptions (queue_id, consumer_group, partition_name, mode, subscribed_from)
  SELECT p_queue_id, p_group, p_partition_name, p_mode, CASE WHEN p_mode = 'new' THEN now() ELSE p_from END
  WHERE NOT EXISTS (SELECT 1 FROM queen.subscriptions s
                    WHERE s.queue_id = p_queue_id AND s.consumer_group = p_group
                      AND s.partition_name IN (p_partition_name, ''))
  ON CONFLICT DO NOTHING
$$;
