-- 0012_streams: the state store of the streaming SDK (docs/streams.md): schema queen_streams with one row per
-- registered query and one row per (query, source partition, key) of operator state (window accumulators,
-- session state, gate state, and the event-time watermark under the reserved key `__wm__`).
--
-- A cycle (POST /streams/v1/cycle) commits a shard's state ops, its sink pushes (queen.push_messages, through
-- the broker's sealing step) and the source ack (queen.ack_messages) in one transaction. Fencing: the ack is
-- checked against the source lease under the cursor row lock, with the wall clock (clock_timestamp(), not the
-- transaction start), so a worker whose lease ran out commits nothing (docs/streams.md).
--
-- Clean-up: deleting a query cascades to its state; deleting a queue deletes the state of its partitions (the
-- trigger of sql/functions/streams_queue_state_delete.sql). Partition clean-up by retention deliberately keeps
-- state (docs/streams.md). The functions are in sql/functions/streams_*.sql.

CREATE SCHEMA IF NOT EXISTS queen_streams;

-- One row per registered query (SDK queryId = name). Source and sink are informational, not foreign keys.
CREATE TABLE queen_streams.queries (
  id           uuid        PRIMARY KEY,
  name         text        NOT NULL UNIQUE,
  source_queue text        NOT NULL,
  sink_queue   text,
  config_hash  text        NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- One row per (query, source partition, key). Keys compare byte-wise (COLLATE "C"), so a shard is one
-- contiguous, byte-ordered range of the primary key and a key prefix is a range of it. partition_id has no
-- foreign key on purpose: partition clean-up never drops operator state.
CREATE TABLE queen_streams.state (
  query_id     uuid        NOT NULL REFERENCES queen_streams.queries (id) ON DELETE CASCADE,
  partition_id uuid        NOT NULL,
  key          text        COLLATE "C" NOT NULL,
  value        jsonb       NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (query_id, partition_id, key)
);
CREATE INDEX state_partition_idx ON queen_streams.state (partition_id);
CREATE INDEX state_updated_at_idx ON queen_streams.state (updated_at);
