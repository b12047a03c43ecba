-- 0019_buffer_holds: what each broker's failover buffer still holds, per partition, so that brokers replay the
-- records of one partition in the order they were buffered (issue 41, docs/decisions.md "Replay keeps a
-- partition's order across brokers"). During an outage a producer may move from one broker to another (a broker
-- rolled or lost): the partition's older records are then in the first broker's buffer, the newer ones in the
-- second's. `oldest_at` is when the oldest record of the partition still pending in that broker's buffer was
-- buffered; a broker replays a file only once no other broker's fresh row (`updated_at`) holds one of its
-- partitions from earlier. Rows are replaced by their broker as its buffer changes; stale rows are ignored.
CREATE TABLE queen.buffer_holds (
  queue_name text NOT NULL,
  partition_name text NOT NULL,
  server_id text NOT NULL,
  oldest_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (queue_name, partition_name, server_id)
);
CREATE INDEX buffer_holds_server_idx ON queen.buffer_holds (server_id);
