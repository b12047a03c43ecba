-- 0013_backlog: the backlog index of wildcard pops: which partitions may have something for a (queue, group),
-- so a wildcard pop reads those instead of every partition the queue ever had. The functions that keep and
-- read it live in sql/functions/ (push_messages, pop_messages, backlog_prepare, backlog_drop and the backlog_on_*
-- triggers); see docs/architecture.md "The backlog index".

-- The (queue, group) pairs whose pops use the index: a pair is registered by its first wildcard pop (which
-- fills its entries from the partitions), and repaired_at is when its entries were last rebuilt from the
-- partitions (backlog_prepare rebuilds a pair every 30 s: an entry missing for any reason delays a message
-- by at most that much, it never loses it).
CREATE TABLE queen.backlog_groups (
  queue_id       uuid        NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,
  consumer_group text        NOT NULL,
  repaired_at    timestamptz NOT NULL,
  PRIMARY KEY (queue_id, consumer_group)
);

-- One row per (queue, group, partition) that may have messages above the group's cursor. Written by push
-- when a partition gets messages (one row per partition and registered group, kept while it has backlog:
-- a push into a partition that has its row writes nothing), removed by the pop that finds the partition
-- caught up. No foreign keys: their checks would take a share lock on the queue row on every push.
CREATE TABLE queen.backlog (
  queue_id       uuid NOT NULL,
  consumer_group text NOT NULL,
  partition_id   uuid NOT NULL,
  PRIMARY KEY (queue_id, consumer_group, partition_id)
);
