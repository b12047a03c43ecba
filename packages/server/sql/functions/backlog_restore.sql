-- backlog_restore: give (partition, group) pairs their wildcard-pop backlog entry back, for the writers that
-- move a cursor back (cursor_seek) or delete it (consumer_group_delete): messages below the old cursor become
-- deliverable again, or the pair is seeded anew on its next contact. Only pairs registered with the index get
-- entries; the periodic rebuild (backlog_prepare) would find them too, only later. Called explicitly, not from
-- a trigger: Citus refuses triggers on its distributed tables (docs/scale-out.md, section 2); PL/pgSQL, not SQL,
-- for the same reason (Citus plans no SQL-language function over distributed tables).
--   Parameters: pair i is (p_partition_ids[i], p_groups[i]).
--   Result: none.
--   Locks: inserts the entries; no other lock.
CREATE OR REPLACE FUNCTION queen.backlog_restore(p_partition_ids uuid[], p_groups text[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO queen.backlog (queue_id, consumer_group, partition_id)
  SELECT p.queue_id, k.consumer_group, k.partition_id
  FROM unnest(p_partition_ids, p_groups) AS k (partition_id, consumer_group)
  CROSS JOIN LATERAL (SELECT p.queue_id FROM queen.partitions p WHERE p.id = k.partition_id LIMIT 1) p
  WHERE EXISTS (SELECT 1 FROM queen.backlog_groups g WHERE g.queue_id = p.queue_id AND g.consumer_group = k.consumer_group)
  ORDER BY 1, 2, 3
  ON CONFLICT DO NOTHING;
END
$$;
