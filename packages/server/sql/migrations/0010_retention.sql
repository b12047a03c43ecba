-- 0010_retention: retention, eviction and partition cleanup (API.md 9.3), the retention history they write
-- (API.md 7.10 /analytics/retention), and the once-per-interval gate of cluster-wide jobs (API.md 9.2 rule 3).
--
-- Every deleter removes whole segments from one partition, under that partition's row lock (the lock
-- push_messages, message_delete and queue_clear take), in short transactions of a bounded number of messages,
-- so pushes to the partition wait at most one chunk and pops never wait (they skip locked cursors). Because
-- created_at never decreases along a partition, "older than T" is an offset prefix of the partition, and
-- "consumed by every contacted group" is the prefix up to the lowest cursor: both rules reduce to offset
-- bounds found with one index probe each, never a scan of the partition.
--
-- A removed message leaves its offset empty, like a deleted message (0006): readers already walk segments by
-- offset range. Cursors that had nothing retained between them and the end of a removed run are moved to
-- that end (see retention_apply): a group's backlog that was entirely removed is no longer a pop candidate,
-- and the retry counter of a removed head does not carry over to the next message.

-- One row per (cycle, partition, kind) of a job cycle that deleted something. `deleted` counts messages, or
-- 1 for a partition removed by partition cleanup. Rows are written in the transaction of the deletion they
-- record, so the history is exact: never a deletion without its row, never a row without its deletion.
-- Queue and partition are kept by name: the partition may be gone since.
CREATE TABLE queen.retention_history (
  cycle_id       uuid        NOT NULL,
  partition_id   uuid        NOT NULL,
  kind           text        NOT NULL CHECK (kind IN ('retention', 'completed', 'eviction', 'partition_cleanup')),
  queue_name     text        NOT NULL,
  partition_name text        NOT NULL,
  deleted        bigint      NOT NULL,
  recorded_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (cycle_id, partition_id, kind)
);
-- The history route reads a time range newest first; the metrics cleanup deletes the oldest rows.
CREATE INDEX retention_history_recorded_idx ON queen.retention_history (recorded_at);

-- When each cluster-wide job last started a cycle (job_start).
CREATE TABLE queen.job_runs (
  job             text        PRIMARY KEY,
  last_started_at timestamptz NOT NULL
);

-- job_start: whether a cycle of p_job may start now, recording the start when it may. A cycle may start when
-- none started within the last 90% of p_interval_ms (the slack absorbs timer jitter). The caller holds the
-- job's advisory lock, so two processes never pass together; a process whose timer fires shortly after
-- another process's cycle skips its own, which makes the job run once per interval per cluster, not once
-- per interval per process.
CREATE OR REPLACE FUNCTION queen.job_start(p_job text, p_interval_ms integer) RETURNS boolean
LANGUAGE sql AS $$
  WITH started AS (
    INSERT INTO queen.job_runs AS r (job, last_started_at) VALUES (p_job, clock_timestamp())
    ON CONFLICT (job) DO UPDATE SET last_started_at = EXCLUDED.last_started_at
    WHERE r.last_started_at <= EXCLUDED.last_started_at - make_interval(secs => p_interval_ms * 0.9 / 1000.0)
    RETURNING 1
  )
  SELECT EXISTS (SELECT 1 FROM started)
$$;

-- segment_last_before: the last offset of the newest segment of the partition created before p_before, or
-- null. Since created_at never decreases along a partition, the segments created before p_before are exactly
-- those whose last offset is at most this one. One probe of segments_created_idx.
CREATE OR REPLACE FUNCTION queen.segment_last_before(p_partition_id uuid, p_before timestamptz) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT s.last_offset FROM queen.segments s
  WHERE s.partition_id = p_partition_id AND s.created_at < p_before
  ORDER BY s.created_at DESC, s.last_offset DESC
  LIMIT 1
$$;

-- segments_remove: delete whole segments of a partition whose last offset lies in (p_after, p_through], the
-- lowest first, with everything that belongs to their messages: keys (transactionIds are freed), DLQ entries
-- and traces (message_traces_delete, as message delete and queue clear do). Takes segments while their
-- running total stays within p_budget messages; unless p_strict, always at least one (a segment larger than
-- the budget goes alone), so such a call makes progress. The caller holds the partition row lock.
--   Result: one row per removed segment (first_offset, last_offset), in offset order.
CREATE OR REPLACE FUNCTION queen.segments_remove(p_partition_id uuid, p_after bigint, p_through bigint,
                                                 p_budget integer, p_strict boolean)
RETURNS TABLE (first_offset bigint, last_offset bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_first bigint[];
  v_last bigint[];
  v_transaction_ids text[];
BEGIN
  WITH chosen AS (
    SELECT c.last_offset
    FROM (SELECT s.last_offset,
                 sum(s.last_offset - s.first_offset + 1) OVER (ORDER BY s.last_offset) AS running,
                 row_number() OVER (ORDER BY s.last_offset) AS n
          FROM (SELECT s.first_offset, s.last_offset FROM queen.segments s
                WHERE s.partition_id = p_partition_id AND s.last_offset > p_after AND s.last_offset <= p_through
                ORDER BY s.last_offset
                LIMIT greatest(p_budget, 1)) s) c
    WHERE c.running <= p_budget OR (c.n = 1 AND NOT p_strict)
  ), removed AS (
    DELETE FROM queen.segments s
    USING chosen
    WHERE s.partition_id = p_partition_id AND s.last_offset = chosen.last_offset
    RETURNING s.first_offset, s.last_offset, s.transaction_ids
  )
  SELECT array_agg(r.first_offset ORDER BY r.last_offset), array_agg(r.last_offset ORDER BY r.last_offset),
         (SELECT array_agg(t.id) FROM removed r2 CROSS JOIN LATERAL unnest(r2.transaction_ids) AS t (id))
  INTO v_first, v_last, v_transaction_ids
  FROM removed r;
  IF v_last IS NULL THEN
    RETURN;
  END IF;

  DELETE FROM queen.message_keys k
  USING unnest(v_first, v_last) AS r (first_offset, last_offset)
  WHERE k.partition_id = p_partition_id AND k.transaction_id = ANY (v_transaction_ids)
    AND k.message_offset BETWEEN r.first_offset AND r.last_offset;
  DELETE FROM queen.dead_letters d
  USING unnest(v_first, v_last) AS r (first_offset, last_offset)
  WHERE d.partition_id = p_partition_id AND d.message_offset BETWEEN r.first_offset AND r.last_offset;
  PERFORM queen.message_traces_delete(p_partition_id, v_transaction_ids);

  RETURN QUERY SELECT r.first_offset, r.last_offset FROM unnest(v_first, v_last) AS r (first_offset, last_offset);
END
$$;

-- retention_apply: one chunk of a retention or eviction cycle on one partition (API.md 9.3).
--   p_job 'retention' (queue with retentionEnabled): segments older than retentionSeconds, consumed or not
--     (kind 'retention'), and segments older than completedRetentionSeconds whose last offset every contacted
--     group has passed (kind 'completed'; a partition no group contacted keeps them).
--   p_job 'eviction' (queue with maxWaitTimeSeconds > 0, whatever retentionEnabled says): segments older
--     than maxWaitTimeSeconds that some contacted group has not passed, or every such segment when no group
--     contacted the partition (kind 'eviction'). No DLQ entry is created; existing ones of the removed
--     messages go with them.
--   Removes at most p_budget messages (unless p_strict, at least one segment when anything qualifies: a
--   segment larger than the budget goes alone), records the deletion in retention_history under p_cycle,
--   and moves every cursor without a live lease that had no retained message between its committed offset
--   and the end of the removed run to that end (retry counter, not-before and claims reset: the head they
--   belonged to is gone). A cursor with a live lease is left alone: its consumer settles the rest of the
--   span (acks of removed messages answer "Message not found") or the lease expires.
--   Result: the number of messages removed (0: nothing qualifies any more, or with p_strict nothing fits).
--   Locks: the queue row FOR KEY SHARE (a concurrent queue_delete goes first or waits), the partition row
--     FOR UPDATE (serialised with pushes and the other deleters), then its cursor rows FOR UPDATE in group
--     order (the order of transaction_lock: partitions, then cursors). Pops skip the partition meanwhile;
--     acks on it wait for the chunk.
CREATE OR REPLACE FUNCTION queen.retention_apply(p_cycle uuid, p_partition_id uuid, p_job text, p_budget integer,
                                                 p_strict boolean)
RETURNS bigint
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := now();
  v_partition record;
  v_contacted integer;
  v_lowest bigint;
  v_completed_through bigint;
  v_through bigint;
  v_after bigint := 0;
  v_segment record;
  v_end bigint;
  v_retention bigint := 0;
  v_completed bigint := 0;
  v_evicted bigint := 0;
BEGIN
  -- The queue row first (FOR KEY SHARE, as seek does): queue_delete takes it FOR UPDATE before it deletes the
  -- queue's segments and cursors, so the two are ordered at the queue row instead of deadlocking later.
  PERFORM 1 FROM queen.queues q
  WHERE q.id = (SELECT p.queue_id FROM queen.partitions p WHERE p.id = p_partition_id)
  FOR KEY SHARE;
  SELECT p.id, p.name, q.name AS queue_name, q.retention_enabled, q.retention_seconds,
         q.completed_retention_seconds, q.max_wait_time_seconds
  INTO v_partition
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  WHERE p.id = p_partition_id
  FOR UPDATE OF p;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  SELECT count(*), min(locked.committed) INTO v_contacted, v_lowest
  FROM (SELECT c.committed FROM queen.cursors c
        WHERE c.partition_id = p_partition_id
        ORDER BY c.consumer_group
        FOR UPDATE) locked;

  IF p_job = 'retention' THEN
    IF NOT v_partition.retention_enabled THEN
      RETURN 0;
    END IF;
    IF v_partition.retention_seconds > 0 THEN
      v_through := queen.segment_last_before(p_partition_id,
                                             v_now - make_interval(secs => v_partition.retention_seconds));
    END IF;
    IF v_partition.completed_retention_seconds > 0 AND v_contacted > 0 THEN
      -- (least() ignores a null: no segment that old means nothing qualifies, not "up to the lowest cursor")
      v_completed_through := queen.segment_last_before(p_partition_id,
                               v_now - make_interval(secs => v_partition.completed_retention_seconds));
      v_completed_through := CASE WHEN v_completed_through IS NOT NULL THEN least(v_lowest, v_completed_through) END;
    END IF;
    v_through := greatest(v_through, v_completed_through);
  ELSIF p_job = 'eviction' THEN
    IF v_partition.max_wait_time_seconds <= 0 THEN
      RETURN 0;
    END IF;
    v_through := queen.segment_last_before(p_partition_id,
                                           v_now - make_interval(secs => v_partition.max_wait_time_seconds));
    v_after := CASE WHEN v_contacted > 0 THEN v_lowest ELSE 0 END;
  ELSE
    RAISE EXCEPTION 'unknown job %', p_job;
  END IF;
  IF v_through IS NULL OR v_through <= v_after THEN
    RETURN 0;
  END IF;

  FOR v_segment IN SELECT * FROM queen.segments_remove(p_partition_id, v_after, v_through, p_budget, p_strict) LOOP
    v_end := v_segment.last_offset;
    IF p_job = 'eviction' THEN
      v_evicted := v_evicted + (v_segment.last_offset - v_segment.first_offset + 1);
    ELSIF v_segment.last_offset <= v_completed_through THEN
      v_completed := v_completed + (v_segment.last_offset - v_segment.first_offset + 1);
    ELSE
      v_retention := v_retention + (v_segment.last_offset - v_segment.first_offset + 1);
    END IF;
  END LOOP;
  IF v_end IS NULL THEN
    RETURN 0;
  END IF;

  UPDATE queen.cursors c
  SET committed = v_end, retry_count = 0, not_before = NULL, claims_since_advance = 0
  WHERE c.partition_id = p_partition_id AND c.committed < v_end
    AND NOT coalesce(c.lease_expires_at > v_now, false)
    AND coalesce((SELECT s.first_offset FROM queen.segments s
                  WHERE s.partition_id = p_partition_id AND s.last_offset > c.committed
                  ORDER BY s.last_offset LIMIT 1), v_end + 1) > v_end;

  INSERT INTO queen.retention_history AS h (cycle_id, partition_id, kind, queue_name, partition_name, deleted)
  SELECT p_cycle, p_partition_id, k.kind, v_partition.queue_name, v_partition.name, k.deleted
  FROM (VALUES ('retention', v_retention), ('completed', v_completed), ('eviction', v_evicted)) AS k (kind, deleted)
  WHERE k.deleted > 0
  ON CONFLICT (cycle_id, partition_id, kind) DO UPDATE
  SET deleted = h.deleted + EXCLUDED.deleted, recorded_at = now();

  RETURN v_retention + v_completed + v_evicted;
END
$$;

-- partitions_cleanup: delete up to p_limit idle partitions (API.md 9.3 partition cleanup), of any queue: no
-- retained message, no live lease, and no push, claim or ack since p_idle_before (the partition's creation
-- and last push, its cursors' last activity and last consumption). Each goes with its per-group state
-- (cursors, and any DLQ entries, keys and traces left) and is recorded in retention_history (kind
-- 'partition_cleanup', deleted 1). Subscription records are group metadata keyed by partition name and stay.
-- A later push re-creates the partition under a new id.
--   Result: the number of partitions deleted.
--   Locks: partition rows FOR UPDATE SKIP LOCKED in (queue name, partition name) order (a partition being
--     pushed to is busy, hence not idle) with their queue rows FOR KEY SHARE SKIP LOCKED (a queue being
--     deleted is skipped, and queue_delete waits for this transaction at its first lock, never half-way);
--     then the idleness is checked again under the lock.
CREATE OR REPLACE FUNCTION queen.partitions_cleanup(p_cycle uuid, p_idle_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_partition record;
  v_deleted integer := 0;
BEGIN
  FOR v_partition IN
    SELECT p.id, p.name, q.name AS queue_name
    FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
    WHERE greatest(p.created_at, p.last_push_at) < p_idle_before
      AND NOT EXISTS (SELECT 1 FROM queen.segments s WHERE s.partition_id = p.id)
      AND NOT EXISTS (SELECT 1 FROM queen.cursors c
                      WHERE c.partition_id = p.id
                        AND (c.lease_expires_at > now() OR c.last_activity_at >= p_idle_before
                             OR c.last_consumed_at >= p_idle_before))
    ORDER BY q.name, p.name
    LIMIT p_limit
    FOR UPDATE OF p SKIP LOCKED
    FOR KEY SHARE OF q SKIP LOCKED
  LOOP
    -- Re-checked under the lock: a push or a claim may have committed since the candidate list was read.
    CONTINUE WHEN EXISTS (SELECT 1 FROM queen.partitions p
                          WHERE p.id = v_partition.id AND p.last_push_at >= p_idle_before)
               OR EXISTS (SELECT 1 FROM queen.segments s WHERE s.partition_id = v_partition.id)
               OR EXISTS (SELECT 1 FROM queen.cursors c
                          WHERE c.partition_id = v_partition.id
                            AND (c.lease_expires_at > now() OR c.last_activity_at >= p_idle_before
                                 OR c.last_consumed_at >= p_idle_before));
    DELETE FROM queen.cursors c WHERE c.partition_id = v_partition.id;
    DELETE FROM queen.message_keys k WHERE k.partition_id = v_partition.id;
    DELETE FROM queen.dead_letters d WHERE d.partition_id = v_partition.id;
    PERFORM queen.message_traces_delete(v_partition.id, NULL);
    DELETE FROM queen.partitions p WHERE p.id = v_partition.id;
    INSERT INTO queen.retention_history (cycle_id, partition_id, kind, queue_name, partition_name, deleted)
    VALUES (p_cycle, v_partition.id, 'partition_cleanup', v_partition.queue_name, v_partition.name, 1);
    v_deleted := v_deleted + 1;
  END LOOP;
  RETURN v_deleted;
END
$$;
