-- queue_mode_backlog: retained messages above the __QUEUE_MODE__ cursor, summed over the queue's partitions
-- (every retained message of a partition queue mode never contacted), as push_messages' maxSize check sees
-- it, with one exception: a transaction that set queen.replay = 'on' (SET LOCAL) replays buffered items
-- that were already accepted, and maxSize is not enforced on replay (docs/api.md 9.5 rule 5). The backlog then
-- reads as so far below zero that no cap is reached (2^62: max_size - backlog still fits in a bigint).
--   Parameters: p_queue_id.
--   Result: the backlog in messages.
--   Locks: none (reads committed rows).
CREATE OR REPLACE FUNCTION queen.queue_mode_backlog(p_queue_id uuid) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN current_setting('queen.replay', true) = 'on' THEN -4611686018427387904::bigint ELSE (
    SELECT coalesce(sum(s.last_offset - greatest(s.first_offset, coalesce(c.committed, 0) + 1) + 1), 0)
    FROM queen.partitions p
    LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = '__QUEUE_MODE__'
    JOIN queen.segments s ON s.partition_id = p.id AND s.last_offset > coalesce(c.committed, 0)
    WHERE p.queue_id = p_queue_id
  ) END
$$;
