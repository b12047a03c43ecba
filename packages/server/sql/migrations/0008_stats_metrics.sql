-- 0008_stats_metrics: broker heartbeats, per-minute operation counters and system samples (docs/api.md 9.2).
--
-- Nothing here is on a hot path. Counters are accumulated in process memory and written by each broker's
-- stats service at most once per STATS_INTERVAL_MS (one call of stats_flush); heartbeats once every 5 s.
-- Rows are keyed by server_id and never updated by another process, so these writes never contend.

-- One row per broker process incarnation (docs/api.md 9.2 rule 4). A restarted process replaces the row of its
-- predecessor (same server_id, or same hostname and port) and carries its counters over.
--   stopped_at: set by a clean shutdown; a stopped process is neither alive nor dead.
--   parked_by_queue: {"<queue>": n} of the last heartbeat (discovery pops under "*discovery*").
CREATE TABLE queen.server_heartbeats (
  server_id         text        PRIMARY KEY,
  hostname          text        NOT NULL,
  pid               integer     NOT NULL,
  port              integer     NOT NULL,
  started_at        timestamptz NOT NULL,
  last_heartbeat_at timestamptz NOT NULL,
  stopped_at        timestamptz,
  parked_pops       integer     NOT NULL DEFAULT 0,
  parked_by_queue   jsonb       NOT NULL DEFAULT '{}',
  heartbeats        bigint      NOT NULL DEFAULT 0,
  restarts          integer     NOT NULL DEFAULT 0
);

-- Per-minute operation counters of one broker process for one queue (queue_name '' holds what belongs to
-- no queue: transactions, failed requests). ack_messages: ack items applied, any status; ack_completed:
-- messages processed (completed acks, autoAck deliveries); ack_failed: applied failed and retry acks.
-- Lag is the pop time minus the segment createdAt of each popped message: its count is pop_messages.
CREATE TABLE queen.stats_counters (
  bucket        timestamptz NOT NULL,
  server_id     text        NOT NULL,
  queue_name    text        NOT NULL,
  hostname      text        NOT NULL,
  push_requests bigint      NOT NULL DEFAULT 0,
  push_messages bigint      NOT NULL DEFAULT 0,
  pop_requests  bigint      NOT NULL DEFAULT 0,
  pop_messages  bigint      NOT NULL DEFAULT 0,
  ack_requests  bigint      NOT NULL DEFAULT 0,
  ack_messages  bigint      NOT NULL DEFAULT 0,
  ack_completed bigint      NOT NULL DEFAULT 0,
  ack_failed    bigint      NOT NULL DEFAULT 0,
  transactions  bigint      NOT NULL DEFAULT 0,
  dlq_moved     bigint      NOT NULL DEFAULT 0,
  errors        bigint      NOT NULL DEFAULT 0,
  db_errors     bigint      NOT NULL DEFAULT 0,
  lag_sum_ms    bigint      NOT NULL DEFAULT 0,
  lag_max_ms    bigint      NOT NULL DEFAULT 0,
  PRIMARY KEY (bucket, server_id, queue_name)
);

-- One sample of a broker process's resources per flush.
CREATE TABLE queen.system_metrics (
  sampled_at         timestamptz      NOT NULL,
  server_id          text             NOT NULL,
  hostname           text             NOT NULL,
  port               integer          NOT NULL,
  cpu_user_percent   double precision NOT NULL,
  cpu_system_percent double precision NOT NULL,
  rss                bigint           NOT NULL,
  heap_used          bigint           NOT NULL,
  pool_size          integer          NOT NULL,
  pool_idle          integer          NOT NULL,
  pool_active        integer          NOT NULL,
  pool_waiting       integer          NOT NULL,
  event_loop_lag_ms  double precision NOT NULL,
  parked_pops        integer          NOT NULL,
  inflight_requests  integer          NOT NULL,
  PRIMARY KEY (sampled_at, server_id)
);
