-- configure: SQL API v1 (docs/sql-api.md): sets a queue's leaseTime, retryLimit and deadLetterQueue through
-- queue_configure (the function POST /api/v1/configure calls). The queue's other options keep their values;
-- a new queue takes the /configure defaults for them (docs/api.md 4.2) and gets its Default partition. Every
-- broker process drops what it cached of the queue's configuration when the caller's transaction commits.
--   Parameters: p_queue; p_lease_time (seconds, default 300); p_retry_limit (default 3);
--     p_dead_letter_queue (default false).
--   Result: true.
--   Errors: 22023 for a bad name or a negative number.
--   Locks: the queue row (created or updated). Notifies: queen_wake (with config) at commit.
CREATE OR REPLACE FUNCTION queen.configure(
  p_queue text,
  p_lease_time integer DEFAULT 300,
  p_retry_limit integer DEFAULT 3,
  p_dead_letter_queue boolean DEFAULT false
) RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_queue queen.queues;
  v_options jsonb;
BEGIN
  PERFORM queen.api_name(p_queue, 'queen.configure: p_queue');
  IF p_lease_time IS NULL OR p_lease_time < 0 OR p_retry_limit IS NULL OR p_retry_limit < 0 OR p_dead_letter_queue IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
      MESSAGE = 'queen.configure: p_lease_time and p_retry_limit must be non-negative integers, p_dead_letter_queue a boolean';
  END IF;
  SELECT * INTO v_queue FROM queen.queues q WHERE q.name = p_queue FOR UPDATE;
  IF FOUND THEN
    v_options := jsonb_build_object(
      'ttl', v_queue.ttl, 'priority', v_queue.priority, 'maxSize', v_queue.max_size,
      'retryDelay', v_queue.retry_delay, 'delayedProcessing', v_queue.delayed_processing,
      'windowBuffer', v_queue.window_buffer, 'minPopWaitTime', v_queue.min_pop_wait_time,
      'retentionSeconds', v_queue.retention_seconds, 'completedRetentionSeconds', v_queue.completed_retention_seconds,
      'retentionEnabled', v_queue.retention_enabled, 'encryptionEnabled', v_queue.encryption_enabled,
      'maxWaitTimeSeconds', v_queue.max_wait_time_seconds, 'dlqAfterMaxRetries', v_queue.dlq_after_max_retries);
  ELSE
    -- The /configure defaults (core/queue-options.ts CONFIGURE_DEFAULTS) of the options not given here.
    v_options := jsonb_build_object(
      'ttl', 3600, 'priority', 0, 'maxSize', 0, 'retryDelay', 0, 'delayedProcessing', 0, 'windowBuffer', 0,
      'minPopWaitTime', 0, 'retentionSeconds', 0, 'completedRetentionSeconds', 0, 'retentionEnabled', false,
      'encryptionEnabled', false, 'maxWaitTimeSeconds', 0, 'dlqAfterMaxRetries', false);
    v_queue.namespace := split_part(p_queue, '.', 1);
    v_queue.task := split_part(p_queue, '.', 2);
  END IF;
  v_options := v_options || jsonb_build_object('leaseTime', p_lease_time, 'retryLimit', p_retry_limit,
                                               'deadLetterQueue', p_dead_letter_queue);
  PERFORM queen.queue_configure(p_queue, v_queue.namespace, v_queue.task, v_options);
  PERFORM queen.api_wake(p_queue, v_queue.namespace, v_queue.task, true);
  RETURN true;
END
$$;
SELECT queen.api_grant('queen.configure(text, integer, integer, boolean)', ARRAY['admin']);
