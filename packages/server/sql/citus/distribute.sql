-- distribute: converts a migrated Queen database on a Citus coordinator into the layout of docs/scale-out.md
-- (section 2): partition-keyed tables distributed on the partition id in one co-location group, queue-keyed
-- tables replicated to every node, the broker's bookkeeping local to the coordinator. This file is the one place
-- where the Citus deployment's schema differs from single PostgreSQL's.
--
-- Run by the broker's migration step on a Citus coordinator (QUEEN_CITUS, store/citus-schema.ts), once: when
-- queen.partitions is not yet distributed, in one transaction, after the numbered migrations and the function
-- files; then the entry points of sql/citus/functions/ are installed. What works on Citus so far:
-- docs/scale-out.md, section 10. Run the first start-up with no other broker connected.
--
-- 1. Re-key: partitions created by releases before computed ids (random v7 ids) get partition_uuid(queue,
--    partition) in every table that holds a partition id, so the id can be computed from the names from now on.
--    Leases held by clients name the old ids: their acks fail and the messages are redelivered after the lease.
CREATE TEMPORARY TABLE rekey AS
  SELECT p.id AS old_id, queen.partition_uuid(q.name, p.name) AS new_id
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  WHERE p.id <> queen.partition_uuid(q.name, p.name);
UPDATE queen.segments t SET partition_id = r.new_id FROM rekey r WHERE t.partition_id = r.old_id;
UPDATE queen.message_keys t SET partition_id = r.new_id FROM rekey r WHERE t.partition_id = r.old_id;
UPDATE queen.cursors t SET partition_id = r.new_id FROM rekey r WHERE t.partition_id = r.old_id;
UPDATE queen.dead_letters t SET partition_id = r.new_id FROM rekey r WHERE t.partition_id = r.old_id;
UPDATE queen.traces t SET partition_id = r.new_id FROM rekey r WHERE t.partition_id = r.old_id;
UPDATE queen.backlog t SET partition_id = r.new_id FROM rekey r WHERE t.partition_id = r.old_id;
UPDATE queen.retention_history t SET partition_id = r.new_id FROM rekey r WHERE t.partition_id = r.old_id;
UPDATE queen_streams.state t SET partition_id = r.new_id FROM rekey r WHERE t.partition_id = r.old_id;
UPDATE queen.partitions t SET id = r.new_id FROM rekey r WHERE t.id = r.old_id;
DROP TABLE rekey;

-- 2. Keys Citus requires: every unique key of a distributed table includes the distribution column. The
--    computed primary key of partitions implies UNIQUE (queue_id, name), which goes. Foreign keys between
--    distributed and reference tables go too: the functions delete dependent rows themselves (queue_delete).
--    One stays: queen_streams.state's cascade from queen_streams.queries, the only way a deleted stream query's
--    state goes (docs/streams.md "Clean-up"); Citus keeps it once queries is a reference table (step 3).
ALTER TABLE queen.partitions DROP CONSTRAINT partitions_queue_id_name_key;
ALTER TABLE queen.partitions DROP CONSTRAINT partitions_queue_id_fkey;
ALTER TABLE queen.subscriptions DROP CONSTRAINT subscriptions_queue_id_fkey;
ALTER TABLE queen.backlog_groups DROP CONSTRAINT backlog_groups_queue_id_fkey;
ALTER TABLE queen.dead_letters DROP CONSTRAINT dead_letters_pkey, ADD PRIMARY KEY (partition_id, id);
ALTER TABLE queen.traces DROP CONSTRAINT traces_pkey, ADD PRIMARY KEY (partition_id, id);

-- 3. Reference tables: small, read by every operation on every node, written rarely.
SELECT create_reference_table('queen.queues');
SELECT create_reference_table('queen.subscriptions');
SELECT create_reference_table('queen.backlog_groups');
SELECT create_reference_table('queen_streams.queries');

-- 4. Distributed on the partition id, co-located: a partition's rows of every table are on one worker.
SELECT create_distributed_table('queen.partitions', 'id');
SELECT create_distributed_table('queen.segments', 'partition_id', colocate_with := 'queen.partitions');
SELECT create_distributed_table('queen.message_keys', 'partition_id', colocate_with := 'queen.partitions');
SELECT create_distributed_table('queen.cursors', 'partition_id', colocate_with := 'queen.partitions');
SELECT create_distributed_table('queen.dead_letters', 'partition_id', colocate_with := 'queen.partitions');
SELECT create_distributed_table('queen.traces', 'partition_id', colocate_with := 'queen.partitions');
SELECT create_distributed_table('queen.backlog', 'partition_id', colocate_with := 'queen.partitions');
SELECT create_distributed_table('queen.retention_history', 'partition_id', colocate_with := 'queen.partitions');
SELECT create_distributed_table('queen_streams.state', 'partition_id', colocate_with := 'queen.partitions');
