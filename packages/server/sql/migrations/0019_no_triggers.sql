-- 0020_no_triggers: the triggers' work moved into the functions that write those rows (backlog_restore from
-- cursor_seek and consumer_group_delete; queue_delete and partitions_cleanup delete backlog entries and stream
-- state themselves; queue_configure keeps encryption_used). Citus refuses triggers on the tables it distributes
-- (docs/scale-out.md, section 2), and one set of functions serves both deployments. The trigger functions'
-- files are gone; their functions are dropped here.
DROP TRIGGER IF EXISTS backlog_on_cursor_back ON queen.cursors;
DROP TRIGGER IF EXISTS backlog_on_cursor_delete ON queen.cursors;
DROP TRIGGER IF EXISTS backlog_on_partition_delete ON queen.partitions;
DROP TRIGGER IF EXISTS backlog_on_queue_delete ON queen.queues;
DROP TRIGGER IF EXISTS queues_encryption_used ON queen.queues;
DROP TRIGGER IF EXISTS queues_streams_state_delete ON queen.queues;
DROP FUNCTION IF EXISTS queen.backlog_on_cursor();
DROP FUNCTION IF EXISTS queen.backlog_on_partition_delete();
DROP FUNCTION IF EXISTS queen.backlog_on_queue_delete();
DROP FUNCTION IF EXISTS queen.queues_encryption_used();
DROP FUNCTION IF EXISTS queen.streams_queue_state_delete();
