-- transaction_lock, Citus override: the contract of sql/functions/transaction_lock.sql (same signature): queues
-- created in name order; then, in (queue name, partition name) byte order, each partition's placement held and
-- its row locked by its computed id (created first when missing); then, in (partition id, group) order, each
-- placement held and the cursor row locked FOR UPDATE, or the advisory lock under which ack_messages creates it.
-- The placement is held with lock_shard_metadata, as partition_push, partition_claim and partition_ack hold
-- theirs: a shard move cannot switch it over before this transaction ends (the row locks would stay behind on
-- the old placement). Every statement names one partition id, so Citus routes it to its shard; the caller's
-- transaction commits with two-phase commit when it spans workers. Serves the broker's /transaction, the SQL
-- API's transaction and forward, and the streams cycle. Installed on Citus only (store/citus-schema.ts).
CREATE OR REPLACE FUNCTION queen.transaction_lock(p_queue text[], p_partition text[], p_ack_partition_id uuid[],
                                                 p_ack_group text[]) RETURNS void
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan  -- statements planned with their values: Citus routes them
AS $$
DECLARE
  v_key record;
  v_queue_id uuid;
BEGIN
  PERFORM queen.queue_ensure(n.name)
  FROM (SELECT DISTINCT u.name FROM unnest(p_queue) AS u (name)) n ORDER BY n.name COLLATE "C";
  FOR v_key IN
    SELECT DISTINCT t.queue_name COLLATE "C" AS queue_name, t.partition_name COLLATE "C" AS partition_name,
           queen.partition_uuid(t.queue_name, t.partition_name) AS id
    FROM unnest(p_queue, p_partition) AS t (queue_name, partition_name)
    ORDER BY 1, 2
  LOOP
    PERFORM lock_shard_metadata(5, ARRAY[get_shard_id_for_distribution_column('queen.partitions', v_key.id)]);
    PERFORM 1 FROM queen.partitions p WHERE p.id = v_key.id FOR UPDATE;
    CONTINUE WHEN FOUND;
    SELECT q.id INTO v_queue_id FROM queen.queues q WHERE q.name = v_key.queue_name;
    INSERT INTO queen.partitions (id, queue_id, name) VALUES (v_key.id, v_queue_id, v_key.partition_name)
    ON CONFLICT DO NOTHING;
    PERFORM 1 FROM queen.partitions p WHERE p.id = v_key.id FOR UPDATE;
  END LOOP;

  FOR v_key IN
    SELECT DISTINCT t.partition_id, t.consumer_group
    FROM unnest(p_ack_partition_id, p_ack_group) AS t (partition_id, consumer_group)
    ORDER BY 1, 2
  LOOP
    PERFORM lock_shard_metadata(5, ARRAY[get_shard_id_for_distribution_column('queen.partitions', v_key.partition_id)]);
    PERFORM 1 FROM queen.cursors c
    WHERE c.partition_id = v_key.partition_id AND c.consumer_group = v_key.consumer_group FOR UPDATE;
    IF NOT FOUND THEN
      PERFORM pg_advisory_xact_lock(queen.cursor_lock_key(v_key.partition_id, v_key.consumer_group));
    END IF;
  END LOOP;
END
$$;
