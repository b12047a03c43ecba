-- consume_one: SQL API v1 (docs/sql-api.md): one pop as rows, for psql and scripts, with an optional long
-- poll that waits inside the statement. Each attempt is api_claim (pop_messages). Between attempts it sleeps
-- 10 ms, doubling up to 100 ms, and re-checks with pop_ready (the broker's readiness test of parked pops), so
-- a message committed by any producer (HTTP or SQL) is claimed within about 100 ms. The wait ends at
-- p_timeout_seconds, and before the session's statement_timeout (250 ms of margin), so a timeout answers no
-- rows instead of cancelling the statement. While waiting it holds no lock: an attempt that claims nothing
-- is rolled back (api_claim p_keep_empty false), and the subscription record of a named group is written
-- first (it must outlive an empty wait). On a queue that does not exist yet it does not wait: creating the
-- queue would hold its producers until this statement ends; the call creates it and returns.
--   Parameters: p_queue; p_consumer_group (default '__QUEUE_MODE__'); p_batch_size (default 1, clamped to
--     1..10000); p_partition (null: any partition of the queue); p_timeout_seconds (default 0: one attempt);
--     p_auto_commit (default false: lease; true: committed as delivered); p_subscription_mode ('new',
--     'new-only', 'all', 'now' or a timestamp: where a named group's never-contacted cursors start).
--   Result: one row per message (partition_id, id, transaction_id, payload, created_at, lease_id: null with
--     p_auto_commit), in delivery order; no rows when nothing was claimed (or pop maintenance is on).
--   Errors: 22023 bad argument; 0A000 encrypted queue; 25000 a wait (p_timeout_seconds > 0) in a transaction
--     whose isolation is above READ COMMITTED (its snapshot would never show a new message).
--   Locks: those of pop_messages; none while sleeping (but a claim made by an earlier statement of the
--     caller's transaction stays locked until that transaction ends).
CREATE OR REPLACE FUNCTION queen.consume_one(
  p_queue text,
  p_consumer_group text DEFAULT '__QUEUE_MODE__',
  p_batch_size integer DEFAULT 1,
  p_partition text DEFAULT NULL,
  p_timeout_seconds integer DEFAULT 0,
  p_auto_commit boolean DEFAULT false,
  p_subscription_mode text DEFAULT NULL
) RETURNS TABLE (partition_id uuid, id uuid, transaction_id text, payload jsonb, created_at timestamptz,
                 lease_id text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  v_group text := coalesce(nullif(p_consumer_group, ''), '__QUEUE_MODE__');
  v_limit_ms bigint := (SELECT s.setting::bigint FROM pg_settings s WHERE s.name = 'statement_timeout');
  v_deadline timestamptz := clock_timestamp() + make_interval(secs => greatest(coalesce(p_timeout_seconds, 0), 0));
  v_lease_id uuid := queen.uuid_v7();
  v_wait boolean;
  v_queue record;
  v_sleep double precision;
  v_result jsonb;
BEGIN
  PERFORM queen.api_name(p_queue, 'queen.consume_one: p_queue'),
          queen.api_name(v_group, 'queen.consume_one: p_consumer_group'),
          queen.api_name(p_partition, 'queen.consume_one: p_partition', true);
  IF p_timeout_seconds > 0 AND current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION USING ERRCODE = '25000',
      MESSAGE = 'queen.consume_one: p_timeout_seconds > 0 needs READ COMMITTED isolation';
  END IF;
  SELECT q.id, q.name INTO v_queue FROM queen.queues q WHERE q.name = p_queue;
  v_wait := FOUND AND v_deadline > clock_timestamp();
  IF v_wait THEN
    PERFORM queen.subscription_record(v_queue.id, v_group, coalesce(p_partition, ''), i.mode, i.from_at)
    FROM queen.api_intent(v_group,
                          CASE WHEN p_subscription_mode IN ('new', 'new-only', 'all') THEN p_subscription_mode END,
                          CASE WHEN p_subscription_mode NOT IN ('new', 'new-only', 'all') THEN p_subscription_mode END) i;
  ELSE
    v_deadline := clock_timestamp();
  END IF;
  IF v_limit_ms > 0 THEN
    v_deadline := least(v_deadline, statement_timestamp() + make_interval(secs => (v_limit_ms - 250) / 1000.0));
  END IF;

  LOOP
    v_result := queen.api_claim(
      p_scope => CASE WHEN p_partition IS NULL THEN 'queue' ELSE 'partition' END, p_queue => p_queue,
      p_partition => p_partition, p_namespace => NULL, p_task => NULL, p_group => v_group,
      p_batch => least(greatest(coalesce(p_batch_size, 1), 1), 10000), p_max_partitions => 1,
      p_lease_id => v_lease_id, p_lease_seconds => 0, p_auto_ack => coalesce(p_auto_commit, false),
      p_sub_mode => CASE WHEN p_subscription_mode IN ('new', 'new-only', 'all') THEN p_subscription_mode END,
      p_sub_from => CASE WHEN p_subscription_mode NOT IN ('new', 'new-only', 'all') THEN p_subscription_mode END,
      p_first_attempt => true, p_keep_empty => NOT v_wait);
    EXIT WHEN jsonb_array_length(v_result -> 'messages') > 0 OR v_result ->> 'emptyReason' = 'paused'
              OR clock_timestamp() >= v_deadline;
    -- Park: sleep, then ask pop_ready (one key look-up) until the key may have something, or the deadline.
    v_sleep := 0.01;
    LOOP
      EXIT WHEN clock_timestamp() >= v_deadline;
      PERFORM pg_sleep(least(v_sleep, extract(epoch FROM v_deadline - clock_timestamp())));
      v_sleep := least(v_sleep * 2, 0.1);
      EXIT WHEN EXISTS (SELECT 1 FROM queen.pop_ready(ARRAY[p_queue], ARRAY[p_partition], ARRAY[v_group]));
    END LOOP;
  END LOOP;

  RETURN QUERY
  SELECT (m ->> 'partitionId')::uuid, (m ->> 'id')::uuid, m ->> 'transactionId', m -> 'data',
         (m ->> 'createdAt')::timestamptz, nullif(m ->> 'leaseId', '')
  FROM jsonb_array_elements(v_result -> 'messages') AS m;
END
$$;
SELECT queen.api_grant('queen.consume_one(text, text, integer, text, integer, boolean, text)', ARRAY['consumer']);
