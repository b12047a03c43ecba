-- 0007_consumer_groups_resources_traces: the trace events table (docs/api.md 7.6). The consumer-group
-- administration functions released with it (docs/api.md 7.7) live in sql/functions/.

-- One row per trace event a consumer recorded for a message. Keyed by (partition_id, transaction_id) like
-- every message look-up; message_id pins the event to the message that held the key when it was recorded.
-- Readers join the message retained now (queen.message_find), so a message removed by any path and
-- later re-pushed under the same transactionId never inherits old events. The rows themselves go with
-- their message: message delete and queue clear through message_traces_delete, queue delete in queue_delete.
-- data is the JSON text the client sent (like payloads: never parsed by PostgreSQL, NUL escapes allowed).
CREATE TABLE queen.traces (
  id             uuid        PRIMARY KEY,
  partition_id   uuid        NOT NULL,
  transaction_id text        NOT NULL,
  message_id     uuid        NOT NULL,
  consumer_group text        NOT NULL,
  event_type     text        NOT NULL,
  data           text        NOT NULL,
  trace_names    text[]      NOT NULL DEFAULT '{}',
  worker_id      text        NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX traces_message_idx ON queen.traces (partition_id, transaction_id, created_at);
CREATE INDEX traces_names_idx ON queen.traces USING gin (trace_names);
