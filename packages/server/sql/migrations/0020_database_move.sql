-- 0020_database_move: moving a deployment to another PostgreSQL (docs/operations.md "Moving to another
-- PostgreSQL"). One row holds the move under way or last finished: its phase, the target's address (the
-- password sealed with AES-256-GCM, never in plain text), who drives it and when it last reported, so every
-- broker reads where to go and a broker that restarts mid-move finds it. Neither table is published: each
-- database keeps its own row. The marker is published: the driver writes it after fencing the source, and
-- the target having applied it proves every earlier change arrived (replication applies in commit order).
CREATE TABLE queen.database_move (
  singleton        boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  id               uuid        NOT NULL,
  mode             text        NOT NULL CHECK (mode IN ('online', 'offline')),
  phase            text        NOT NULL,
  target_host      text        NOT NULL,
  target_port      integer     NOT NULL,
  target_database  text        NOT NULL,
  target_user      text        NOT NULL,
  target_password  bytea       NOT NULL,
  target_ssl       boolean     NOT NULL,
  driver           text        NOT NULL,
  error            text,
  progress         jsonb       NOT NULL DEFAULT '{}',
  started_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  switched_at      timestamptz
);

CREATE TABLE queen.database_move_marker (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  token     uuid    NOT NULL
);
