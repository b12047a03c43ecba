-- 0001_tables: the storage model.
--
-- A queue is a set of partitions; a partition is a log of segments; a segment is one commit's run of
-- consecutive offsets, stored as parallel arrays (one element per message). Consumer groups read the log
-- through one cursor row per (partition, group). Tables are private to the broker: every path goes through
-- the functions of sql/functions/ (their README says how they use these tables).
--
-- Hot tables (segments, message_keys, cursors, dead_letters) carry no foreign keys on purpose: their rows are
-- written by those functions only, under the partition lock, and removed explicitly by queue_delete. An FK
-- check per segment insert would be pure overhead.

-- One row per queue with its options (docs/api.md 2.2). Column defaults are the implicit-creation defaults
-- (push, pop, transaction); /configure writes every column explicitly.
CREATE TABLE queen.queues (
  id                          uuid        PRIMARY KEY,
  name                        text        NOT NULL UNIQUE,
  namespace                   text        NOT NULL,
  task                        text        NOT NULL,
  lease_time                  integer     NOT NULL DEFAULT 60,
  retry_limit                 integer     NOT NULL DEFAULT 3,
  retry_delay                 integer     NOT NULL DEFAULT 0,
  max_size                    integer     NOT NULL DEFAULT 0,
  ttl                         integer     NOT NULL DEFAULT 3600,
  priority                    integer     NOT NULL DEFAULT 0,
  delayed_processing          integer     NOT NULL DEFAULT 0,
  window_buffer               integer     NOT NULL DEFAULT 0,
  min_pop_wait_time           integer     NOT NULL DEFAULT 0,
  retention_seconds           integer     NOT NULL DEFAULT 0,
  completed_retention_seconds integer     NOT NULL DEFAULT 0,
  retention_enabled           boolean     NOT NULL DEFAULT false,
  encryption_enabled          boolean     NOT NULL DEFAULT false,
  max_wait_time_seconds       integer     NOT NULL DEFAULT 0,
  dead_letter_queue           boolean     NOT NULL DEFAULT false,
  dlq_after_max_retries       boolean     NOT NULL DEFAULT false,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX queues_scope_idx ON queen.queues (namespace, task);

-- One row per (queue, name). `tail` is the last committed offset: writers take it under FOR UPDATE, so
-- offsets are dense and assigned in commit order. `last_push_at` is the newest segment's createdAt
-- (windowBuffer, and the floor that keeps createdAt non-decreasing).
CREATE TABLE queen.partitions (
  id           uuid        PRIMARY KEY,
  queue_id     uuid        NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,
  name         text        NOT NULL,
  tail         bigint      NOT NULL DEFAULT 0,
  last_push_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (queue_id, name)
);
-- Wildcard pops walk a queue's partitions in id order from a rotating start (round-robin fairness).
CREATE INDEX partitions_rotation_idx ON queen.partitions (queue_id, id);

-- One row per chunk of a commit: offsets first_offset..last_offset, all with the commit's created_at.
-- Element i of each array is the message at offset first_offset + i - 1.
CREATE TABLE queen.segments (
  partition_id    uuid        NOT NULL,
  first_offset    bigint      NOT NULL,
  last_offset     bigint      NOT NULL,
  created_at      timestamptz NOT NULL,
  message_ids     uuid[]      NOT NULL,
  transaction_ids text[]      NOT NULL,
  trace_ids       uuid[]      NOT NULL,
  payloads        text[]      NOT NULL,
  producer_subs   text[],
  PRIMARY KEY (partition_id, last_offset)
);
-- Seeding and seek by timestamp, retention by age.
CREATE INDEX segments_created_idx ON queen.segments (partition_id, created_at);

-- Idempotency and ack look-ups: (partition, transactionId) -> offset, one row per retained message.
CREATE TABLE queen.message_keys (
  partition_id   uuid   NOT NULL,
  transaction_id text   NOT NULL,
  message_offset bigint NOT NULL,
  PRIMARY KEY (partition_id, transaction_id)
);

-- One row per contacted (partition, consumer group). Queue mode is the group '__QUEUE_MODE__'.
-- A lease is live while lease_expires_at > now(); an expired lease keeps its id until the next claim
-- overwrites it, so lease extend can tell "expired" from "not found".
CREATE TABLE queen.cursors (
  partition_id         uuid        NOT NULL,
  consumer_group       text        NOT NULL,
  committed            bigint      NOT NULL DEFAULT 0,
  lease_id             uuid,
  lease_span_end       bigint,
  lease_expires_at     timestamptz,
  retry_count          integer     NOT NULL DEFAULT 0,
  not_before           timestamptz,
  claims_since_advance integer     NOT NULL DEFAULT 0,
  total_consumed       bigint      NOT NULL DEFAULT 0,
  batches_consumed     bigint      NOT NULL DEFAULT 0,
  last_consumed_at     timestamptz,
  last_activity_at     timestamptz NOT NULL DEFAULT now(),
  created_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (partition_id, consumer_group)
);
CREATE INDEX cursors_lease_idx ON queen.cursors (lease_id) WHERE lease_id IS NOT NULL;

-- One row per DLQ event: the message stays in its partition; only the group's cursor moved past it.
CREATE TABLE queen.dead_letters (
  id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  partition_id   uuid        NOT NULL,
  consumer_group text        NOT NULL,
  message_offset bigint      NOT NULL,
  message_id     uuid        NOT NULL,
  transaction_id text        NOT NULL,
  error_message  text,
  retry_count    integer     NOT NULL,
  failed_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dead_letters_message_idx ON queen.dead_letters (partition_id, message_offset);
CREATE INDEX dead_letters_failed_idx ON queen.dead_letters (failed_at);

-- Durable subscription records: where a never-contacted cursor of a named group starts.
-- partition_name '' is the queue-wide scope (real partition names are never empty).
CREATE TABLE queen.subscriptions (
  queue_id        uuid        NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,
  consumer_group  text        NOT NULL,
  partition_name  text        NOT NULL DEFAULT '',
  mode            text        NOT NULL CHECK (mode IN ('new', 'timestamp')),
  subscribed_from timestamptz NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (queue_id, consumer_group, partition_name)
);
