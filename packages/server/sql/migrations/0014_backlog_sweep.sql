-- 0014_backlog_sweep: the backlog index's rebuild runs in slices. sweep_after is where the rebuild of a
-- (queue, group) in progress goes on (the last partition id it covered), null when no rebuild is in progress;
-- each wildcard pop of a pair due for its rebuild covers the next slice (backlog_prepare), so no pop reads
-- every partition of a large queue at once.
ALTER TABLE queen.backlog_groups ADD COLUMN sweep_after uuid;
