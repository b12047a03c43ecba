-- 0002_queue_functions: queue rows (implicit creation, /configure, delete) and the subscription seed.

-- queue_ensure: the queue row for p_name, created with the implicit defaults when missing.
--   namespace = text before the first '.', task = text between the first and second '.' (API.md 1.10).
--   Locks: none beyond the unique-index wait of a concurrent creator.
CREATE OR REPLACE FUNCTION queen.queue_ensure(p_name text) RETURNS queen.queues
LANGUAGE plpgsql AS $$
DECLARE
  v_queue queen.queues;
BEGIN
  SELECT * INTO v_queue FROM queen.queues WHERE name = p_name;
  IF FOUND THEN
    RETURN v_queue;
  END IF;
  INSERT INTO queen.queues (id, name, namespace, task)
  VALUES (queen.uuid_v7(), p_name, split_part(p_name, '.', 1), split_part(p_name, '.', 2))
  ON CONFLICT (name) DO NOTHING;
  SELECT * INTO STRICT v_queue FROM queen.queues WHERE name = p_name;
  RETURN v_queue;
END
$$;

-- queue_configure: create the queue or replace its whole configuration (API.md 4.2), and make sure it has a
-- 'Default' partition. p_options carries every option, already validated and defaulted by the broker.
--   Result: the stored row and the id of the Default partition.
--   Notifies: queen_wake (parked pops re-check: a changed delay or window can make messages deliverable).
CREATE OR REPLACE FUNCTION queen.queue_configure(p_name text, p_namespace text, p_task text, p_options jsonb)
RETURNS TABLE (queue queen.queues, default_partition_id uuid)
LANGUAGE plpgsql AS $$
DECLARE
  v_queue queen.queues;
  v_partition_id uuid;
BEGIN
  INSERT INTO queen.queues AS q (
    id, name, namespace, task, lease_time, retry_limit, retry_delay, max_size, ttl, priority,
    delayed_processing, window_buffer, min_pop_wait_time, retention_seconds, completed_retention_seconds,
    retention_enabled, encryption_enabled, max_wait_time_seconds, dead_letter_queue, dlq_after_max_retries)
  VALUES (
    queen.uuid_v7(), p_name, p_namespace, p_task,
    (p_options->>'leaseTime')::integer, (p_options->>'retryLimit')::integer,
    (p_options->>'retryDelay')::integer, (p_options->>'maxSize')::integer, (p_options->>'ttl')::integer,
    (p_options->>'priority')::integer, (p_options->>'delayedProcessing')::integer,
    (p_options->>'windowBuffer')::integer, (p_options->>'minPopWaitTime')::integer,
    (p_options->>'retentionSeconds')::integer, (p_options->>'completedRetentionSeconds')::integer,
    (p_options->>'retentionEnabled')::boolean, (p_options->>'encryptionEnabled')::boolean,
    (p_options->>'maxWaitTimeSeconds')::integer, (p_options->>'deadLetterQueue')::boolean,
    (p_options->>'dlqAfterMaxRetries')::boolean)
  ON CONFLICT (name) DO UPDATE SET
    namespace = EXCLUDED.namespace, task = EXCLUDED.task, lease_time = EXCLUDED.lease_time,
    retry_limit = EXCLUDED.retry_limit, retry_delay = EXCLUDED.retry_delay, max_size = EXCLUDED.max_size,
    ttl = EXCLUDED.ttl, priority = EXCLUDED.priority, delayed_processing = EXCLUDED.delayed_processing,
    window_buffer = EXCLUDED.window_buffer, min_pop_wait_time = EXCLUDED.min_pop_wait_time,
    retention_seconds = EXCLUDED.retention_seconds,
    completed_retention_seconds = EXCLUDED.completed_retention_seconds,
    retention_enabled = EXCLUDED.retention_enabled, encryption_enabled = EXCLUDED.encryption_enabled,
    max_wait_time_seconds = EXCLUDED.max_wait_time_seconds, dead_letter_queue = EXCLUDED.dead_letter_queue,
    dlq_after_max_retries = EXCLUDED.dlq_after_max_retries, updated_at = now()
  RETURNING * INTO v_queue;

  INSERT INTO queen.partitions (id, queue_id, name)
  VALUES (queen.uuid_v7(), v_queue.id, 'Default')
  ON CONFLICT (queue_id, name) DO NOTHING;
  SELECT p.id INTO STRICT v_partition_id
  FROM queen.partitions p WHERE p.queue_id = v_queue.id AND p.name = 'Default';

  PERFORM pg_notify('queen_wake', json_build_object(
    'queue', v_queue.name, 'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  RETURN QUERY SELECT v_queue, v_partition_id;
END
$$;

-- queue_delete: the queue with its partitions, segments, keys, cursors, DLQ entries and subscription
-- records (API.md 4.3). Result: whether the queue existed.
CREATE OR REPLACE FUNCTION queen.queue_delete(p_name text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_queue_id uuid;
  v_partition_ids uuid[];
BEGIN
  SELECT id INTO v_queue_id FROM queen.queues WHERE name = p_name FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  SELECT coalesce(array_agg(id), '{}') INTO v_partition_ids FROM queen.partitions WHERE queue_id = v_queue_id;
  DELETE FROM queen.segments WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.message_keys WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.cursors WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.dead_letters WHERE partition_id = ANY (v_partition_ids);
  DELETE FROM queen.queues WHERE id = v_queue_id;  -- cascades to partitions and subscriptions
  RETURN true;
END
$$;

-- subscription_from: the timestamp of the subscription record that applies to (queue, partition, group),
-- or null: the partition-scoped record wins over the queue-wide one (API.md 5.7 rule 4). Queue mode has none.
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

-- cursor_seed: the committed offset a never-contacted (partition, group) starts from (API.md 5.7).
--   Queue mode and groups without an applicable subscription record start below the oldest retained
--   message (0: reads skip what retention removed). A record with timestamp T starts after the newest
--   segment created before T.
CREATE OR REPLACE FUNCTION queen.cursor_seed(p_queue_id uuid, p_partition_id uuid, p_partition_name text,
                                             p_group text) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_from timestamptz := queen.subscription_from(p_queue_id, p_partition_name, p_group);
BEGIN
  IF v_from IS NULL THEN
    RETURN 0;
  END IF;
  RETURN coalesce((
    SELECT seg.last_offset FROM queen.segments seg
    WHERE seg.partition_id = p_partition_id AND seg.created_at < v_from
    ORDER BY seg.created_at DESC, seg.last_offset DESC
    LIMIT 1), 0);
END
$$;
