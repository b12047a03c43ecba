-- 0011_encryption: encryption at rest (docs/api.md 9.6): the column queues.encryption_used (has the queue ever
-- been encrypted). The trigger that keeps it and the push guard live in sql/functions/
-- (queues_encryption_used.sql, push_messages.sql).

ALTER TABLE queen.queues ADD COLUMN encryption_used boolean NOT NULL DEFAULT false;
UPDATE queen.queues SET encryption_used = true WHERE encryption_enabled;
