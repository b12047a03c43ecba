-- queue_configure: create the queue or replace its whole configuration (docs/api.md 4.2), and make sure it has a
-- 'Default' partition. p_options carries every option, already validated and defaulted by the broker.
-- encryption_used (whether the queue may hold sealed payloads, read by core/pop-payloads.ts) becomes true with
-- encryption_enabled and never goes back: switching the option off leaves the sealed messages. This function is
-- the only writer of encryption_enabled (implicit creation leaves both false).
--   Parameters: p_name text, p_namespace text, p_task text, p_options jsonb.
--   Result: the stored row and the id of the Default partition.
--   Notifies: queen_wake (parked pops re-check: a changed delay or window can make messages deliverable).
--   Locks: the queue row (created or updated); the Default partition row when it is created.
CREATE OR REPLACE FUNCTION queen.queue_configure(p_name text, p_namespace text, p_task text, p_options jsonb)
RETURNS TABLE (queue queen.queues, default_partition_id uuid)
LANGUAGE plpgsql AS $$
DECLARE
  v_queue queen.queues;
  v_partition_id uuid;
  v_now constant timestamptz := now();  -- a variable: Citus refuses a function call in DO UPDATE SET
BEGIN
  INSERT INTO queen.queues AS q (
    id, name, namespace, task, lease_time, retry_limit, retry_delay, max_size, ttl, priority,
    delayed_processing, window_buffer, min_pop_wait_time, retention_seconds, completed_retention_seconds,
    retention_enabled, encryption_enabled, encryption_used, max_wait_time_seconds, dead_letter_queue,
    dlq_after_max_retries)
  VALUES (
    queen.uuid_v7(), p_name, p_namespace, p_task,
    (p_options->>'leaseTime')::integer, (p_options->>'retryLimit')::integer,
    (p_options->>'retryDelay')::integer, (p_options->>'maxSize')::integer, (p_options->>'ttl')::integer,
    (p_options->>'priority')::integer, (p_options->>'delayedProcessing')::integer,
    (p_options->>'windowBuffer')::integer, (p_options->>'minPopWaitTime')::integer,
    (p_options->>'retentionSeconds')::integer, (p_options->>'completedRetentionSeconds')::integer,
    (p_options->>'retentionEnabled')::boolean, (p_options->>'encryptionEnabled')::boolean,
    (p_options->>'encryptionEnabled')::boolean, (p_options->>'maxWaitTimeSeconds')::integer,
    (p_options->>'deadLetterQueue')::boolean, (p_options->>'dlqAfterMaxRetries')::boolean)
  ON CONFLICT (name) DO UPDATE SET
    namespace = EXCLUDED.namespace, task = EXCLUDED.task, lease_time = EXCLUDED.lease_time,
    retry_limit = EXCLUDED.retry_limit, retry_delay = EXCLUDED.retry_delay, max_size = EXCLUDED.max_size,
    ttl = EXCLUDED.ttl, priority = EXCLUDED.priority, delayed_processing = EXCLUDED.delayed_processing,
    window_buffer = EXCLUDED.window_buffer, min_pop_wait_time = EXCLUDED.min_pop_wait_time,
    retention_seconds = EXCLUDED.retention_seconds,
    completed_retention_seconds = EXCLUDED.completed_retention_seconds,
    retention_enabled = EXCLUDED.retention_enabled, encryption_enabled = EXCLUDED.encryption_enabled,
    encryption_used = q.encryption_used OR EXCLUDED.encryption_enabled,
    max_wait_time_seconds = EXCLUDED.max_wait_time_seconds, dead_letter_queue = EXCLUDED.dead_letter_queue,
    dlq_after_max_retries = EXCLUDED.dlq_after_max_retries, updated_at = v_now
  RETURNING * INTO v_queue;

  INSERT INTO queen.partitions (id, queue_id, name)
  VALUES (queen.partition_uuid(v_queue.name, 'Default'), v_queue.id, 'Default')
  ON CONFLICT DO NOTHING;  -- the name's key or the computed id's (Citus keeps only the latter)
  SELECT p.id INTO STRICT v_partition_id
  FROM queen.partitions p WHERE p.queue_id = v_queue.id AND p.name = 'Default';

  PERFORM pg_notify('queen_wake', json_build_object(
    'queue', v_queue.name, 'namespace', v_queue.namespace, 'task', v_queue.task)::text);
  RETURN QUERY SELECT v_queue, v_partition_id;
END
$$;
