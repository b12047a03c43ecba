-- 0009_maintenance_buffer: the maintenance flags (docs/api.md 9.4) and the cluster identity the failover buffer
-- checks before adopting another process's leftover files (docs/api.md 9.5).

-- One row: the two maintenance flags, a version that grows with every change (a process applies a flag
-- state only if its version is not older than the one it holds, so a slow poll never undoes a newer
-- notification), and the identity of this database as the failover buffer records it in its directories.
CREATE TABLE queen.system_state (
  singleton        boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  cluster_id       uuid        NOT NULL DEFAULT gen_random_uuid(),
  push_maintenance boolean     NOT NULL DEFAULT false,
  pop_maintenance  boolean     NOT NULL DEFAULT false,
  version          bigint      NOT NULL DEFAULT 0,
  updated_at       timestamptz NOT NULL DEFAULT now()
);
INSERT INTO queen.system_state DEFAULT VALUES;
