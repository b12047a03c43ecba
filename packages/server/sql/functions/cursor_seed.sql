-- cursor_seed: the committed offset a never-contacted (partition, group) starts from (docs/api.md 5.7).
--   Parameters: p_queue_id uuid, p_partition_id uuid, p_partition_name text, p_group text.
--   Queue mode and groups without an applicable subscription record start below the oldest retained
--   message (0: reads skip what retention removed). A record with timestamp T starts after the newest
--   segment created before T.
--   Result: the committed offset to start from.
--   Locks: none (reads the subscription records and segments).
CREATE OR REPLACE FUNCTION queen.cursor_seed(p_queue_id uuid, p_partition_id uuid, p_partition_name text,
                                             p_group text) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_from timestamptz := queen.subscription_from(p_queue_id, p_partition_name, p_group);
BEGIN
  IF v_from IS NULL THEN
    RETURN 0;
  END IF;
  RETURN coalesce((
    SELECT seg.last_offset FROM queen.segments seg
    WHERE seg.partition_id = p_partition_id AND seg.created_at < v_from
    ORDER BY seg.created_at DESC, seg.last_offset DESC
    LIMIT 1), 0);
END
$$;
