-- job_start: whether a cycle of p_job may start now, recording the start when it may. A cycle may start when
-- none started within the last 90% of p_interval_ms (the slack absorbs timer jitter). The caller holds the
-- job's advisory lock, so two processes never pass together; a process whose timer fires shortly after
-- another process's cycle skips its own, which makes the job run once per interval per cluster, not once
-- per interval per process.
--   Parameters: p_job text, p_interval_ms integer.
--   Result: true when the cycle may start (its start is then recorded).
--   Locks: the job_runs row of p_job; the caller holds the job's advisory lock.
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
