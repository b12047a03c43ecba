-- stats_flush: adds one process's accumulated counters and stores its system sample, in one round trip.
--   Parameters: p_server_id text, p_hostname text, p_port integer, p_counters jsonb, p_sample jsonb.
--   p_counters: [{bucket, queue, pushRequests, pushMessages, popRequests, popMessages, ackRequests,
--   ackMessages, ackCompleted, ackFailed, transactions, dlqMoved, errors, dbErrors, lagSumMs, lagMaxMs}],
--   at most one element per (bucket, queue). Counters already stored for a (bucket, server, queue) are added
--   to; the lag maximum is kept.
--   p_sample: {cpuUserPercent, cpuSystemPercent, rss, heapUsed, poolSize, poolIdle, poolActive, poolWaiting,
--   eventLoopLagMs, parkedPops, inflightRequests}, or null.
--   Locks: the process's own counter rows.
--   Result: none.
CREATE OR REPLACE FUNCTION queen.stats_flush(p_server_id text, p_hostname text, p_port integer,
                                             p_counters jsonb, p_sample jsonb) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO queen.stats_counters AS c (
    bucket, server_id, queue_name, hostname, push_requests, push_messages, pop_requests, pop_messages,
    ack_requests, ack_messages, ack_completed, ack_failed, transactions, dlq_moved, errors, db_errors,
    lag_sum_ms, lag_max_ms)
  SELECT x."bucket", p_server_id, x."queue", p_hostname, x."pushRequests", x."pushMessages", x."popRequests",
         x."popMessages", x."ackRequests", x."ackMessages", x."ackCompleted", x."ackFailed", x."transactions",
         x."dlqMoved", x."errors", x."dbErrors", x."lagSumMs", x."lagMaxMs"
  FROM jsonb_to_recordset(p_counters) AS x(
    "bucket" timestamptz, "queue" text, "pushRequests" bigint, "pushMessages" bigint, "popRequests" bigint,
    "popMessages" bigint, "ackRequests" bigint, "ackMessages" bigint, "ackCompleted" bigint, "ackFailed" bigint,
    "transactions" bigint, "dlqMoved" bigint, "errors" bigint, "dbErrors" bigint, "lagSumMs" bigint,
    "lagMaxMs" bigint)
  ON CONFLICT (bucket, server_id, queue_name) DO UPDATE SET
    push_requests = c.push_requests + EXCLUDED.push_requests,
    push_messages = c.push_messages + EXCLUDED.push_messages,
    pop_requests  = c.pop_requests + EXCLUDED.pop_requests,
    pop_messages  = c.pop_messages + EXCLUDED.pop_messages,
    ack_requests  = c.ack_requests + EXCLUDED.ack_requests,
    ack_messages  = c.ack_messages + EXCLUDED.ack_messages,
    ack_completed = c.ack_completed + EXCLUDED.ack_completed,
    ack_failed    = c.ack_failed + EXCLUDED.ack_failed,
    transactions  = c.transactions + EXCLUDED.transactions,
    dlq_moved     = c.dlq_moved + EXCLUDED.dlq_moved,
    errors        = c.errors + EXCLUDED.errors,
    db_errors     = c.db_errors + EXCLUDED.db_errors,
    lag_sum_ms    = c.lag_sum_ms + EXCLUDED.lag_sum_ms,
    lag_max_ms    = greatest(c.lag_max_ms, EXCLUDED.lag_max_ms);

  INSERT INTO queen.system_metrics (
    sampled_at, server_id, hostname, port, cpu_user_percent, cpu_system_percent, rss, heap_used, pool_size,
    pool_idle, pool_active, pool_waiting, event_loop_lag_ms, parked_pops, inflight_requests)
  SELECT now(), p_server_id, p_hostname, p_port, s."cpuUserPercent", s."cpuSystemPercent", s."rss", s."heapUsed",
         s."poolSize", s."poolIdle", s."poolActive", s."poolWaiting", s."eventLoopLagMs", s."parkedPops",
         s."inflightRequests"
  FROM jsonb_to_record(p_sample) AS s(
    "cpuUserPercent" double precision, "cpuSystemPercent" double precision, "rss" bigint, "heapUsed" bigint,
    "poolSize" integer, "poolIdle" integer, "poolActive" integer, "poolWaiting" integer,
    "eventLoopLagMs" double precision, "parkedPops" integer, "inflightRequests" integer)
  WHERE p_sample IS NOT NULL
  ON CONFLICT (sampled_at, server_id) DO NOTHING;
$$;
