-- 0018_pending_history: the installation's pending messages (docs/api.md 7.2 counts, summed over every queue)
-- sampled once a minute by one broker (the stats service, under its cluster-wide lock). The dashboard's Net flow
-- is the change of this figure over a range: counters cannot give it, since an ack counts once per consumer
-- group while a message stays pending until every group has it. Purged with the other metrics.
CREATE TABLE queen.pending_history (
  minute  timestamptz PRIMARY KEY,
  pending bigint      NOT NULL,
  total   bigint      NOT NULL
);
