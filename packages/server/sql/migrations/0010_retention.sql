-- 0010_retention: the retention history written by retention, eviction and partition cleanup (docs/api.md 9.3,
-- 7.10 /analytics/retention), and the once-per-interval gate of cluster-wide jobs (docs/api.md 9.2 rule 3).

-- One row per (cycle, partition, kind) of a job cycle that deleted something. `deleted` counts messages, or
-- 1 for a partition removed by partition cleanup. Rows are written in the transaction of the deletion they
-- record, so the history is exact: never a deletion without its row, never a row without its deletion.
-- Queue and partition are kept by name: the partition may be gone since.
CREATE TABLE queen.retention_history (
  cycle_id       uuid        NOT NULL,
  partition_id   uuid        NOT NULL,
  kind           text        NOT NULL CHECK (kind IN ('retention', 'completed', 'eviction', 'partition_cleanup')),
  queue_name     text        NOT NULL,
  partition_name text        NOT NULL,
  deleted        bigint      NOT NULL,
  recorded_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (cycle_id, partition_id, kind)
);
-- The history route reads a time range newest first; the metrics cleanup deletes the oldest rows.
CREATE INDEX retention_history_recorded_idx ON queen.retention_history (recorded_at);

-- When each cluster-wide job last started a cycle (job_start).
CREATE TABLE queen.job_runs (
  job             text        PRIMARY KEY,
  last_started_at timestamptz NOT NULL
);
