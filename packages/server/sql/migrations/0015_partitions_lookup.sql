-- 0015_partitions_lookup: an index that only the look-up of one partition by (queue, name) can use. With
-- `queue_id = $1 AND name = $2`, two indexes serve the look-up: the unique (queue_id, name) and
-- partitions_rotation_idx (queue_id, id) with the name as a filter; on a table analysed empty both cost one
-- row, and PostgreSQL 15 took the rotation index, reading every partition of the queue per partition locked
-- (docs/performance-analysis.md). The hot look-ups (partitions_lock, pop_messages for a named partition,
-- pop_ready) compare this expression instead, which no other index matches. The uuid's text is 36
-- characters, so the concatenation is unambiguous.
CREATE INDEX partitions_lookup_idx ON queen.partitions ((queue_id::text || name));
