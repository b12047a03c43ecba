-- partitions_lock: lock the rows of the named partitions FOR UPDATE, creating missing queues (implicit
-- defaults, namespace/task derived from the name) and partitions first (their ids computed: partition_uuid).
--   Parameters: pair i is (p_queue[i], p_partition[i]); pairs may repeat.
--   Result: one row per distinct pair, in lock order, with the partition's id, tail and last_push_at.
--   Locks: each queue's backlog lock (backlog_lock_key) shared, in name order; queue rows are created in
--     name order and partition rows locked in (queue name, partition name) order. Every writer of a
--     partition goes through here: that makes offsets dense and assigned in commit order, and concurrent
--     batches touching the same partitions in any item order deadlock-free.
--   Cost: when every pair exists (every push but a partition's first), two statements: a look-up without
--     locks, then one statement that locks every pair in order. Only when a pair is missing does a loop
--     create it and lock pair by pair; locking nothing before that check keeps the order whole (but for
--     a queue deleted between the two statements: the loop then re-creates its partitions after others were
--     locked, and a deadlock with a batch creating the same partitions is reported by PostgreSQL, 40P01).
CREATE OR REPLACE FUNCTION queen.partitions_lock(p_queue text[], p_partition text[])
RETURNS TABLE (queue_name text, partition_name text, partition_id uuid, tail bigint, last_push_at timestamptz)
LANGUAGE plpgsql
SET enable_seqscan = off
AS $$
#variable_conflict use_column
DECLARE
  v_key record;
  v_queue_id uuid;
  v_partition queen.partitions;
  v_queues text[];
  v_names text[];
  v_ids uuid[];
  v_tails bigint[];
  v_pushed timestamptz[];
BEGIN
  -- The batch's distinct pairs in lock order; the queue names below are read from them, not from the items.
  SELECT array_agg(k.queue_name ORDER BY k.queue_name, k.partition_name),
         array_agg(k.partition_name ORDER BY k.queue_name, k.partition_name)
  INTO v_queues, v_names
  FROM (SELECT DISTINCT t.queue_name, t.partition_name
        FROM unnest(p_queue, p_partition) AS t (queue_name, partition_name)) k;

  -- Each queue's backlog lock, shared, in name order, before anything is read: a pop registering a
  -- (queue, group) with the wildcard pops' index holds it exclusively (backlog_prepare), so this write either
  -- commits before that registration fills the index or sees the registration and writes its own entries.
  PERFORM pg_advisory_xact_lock_shared(queen.backlog_lock_key(n.name))
  FROM (SELECT DISTINCT u.name FROM unnest(v_queues) AS u (name) ORDER BY 1) n;

  -- Every pair's row read by key (the queue's id per pair, the partition through partitions_lookup_idx), in
  -- lock order, the LATERAL subquery locking as it goes. A pair deleted meanwhile (its queue deleted during
  -- the push) is missing from the result: the loop below then re-creates it.
  IF NOT EXISTS (SELECT 1 FROM unnest(v_queues, v_names) AS k (queue_name, partition_name)
                 WHERE (SELECT p.id FROM queen.partitions p
                        WHERE p.queue_id::text || p.name
                              = (SELECT q.id FROM queen.queues q WHERE q.name = k.queue_name)::text
                                || k.partition_name) IS NULL) THEN
    SELECT array_agg(l.id ORDER BY l.i), array_agg(l.tail ORDER BY l.i), array_agg(l.last_push_at ORDER BY l.i)
    INTO v_ids, v_tails, v_pushed
    FROM (SELECT k.i, p.id, p.tail, p.last_push_at
          FROM unnest(v_queues, v_names) WITH ORDINALITY AS k (queue_name, partition_name, i)
          CROSS JOIN LATERAL (SELECT p.id, p.tail, p.last_push_at FROM queen.partitions p
                              WHERE p.queue_id::text || p.name
                                    = (SELECT q.id FROM queen.queues q WHERE q.name = k.queue_name)::text
                                      || k.partition_name
                              FOR UPDATE) p
          ORDER BY k.i) l;
    IF cardinality(v_ids) = cardinality(v_names) THEN
      RETURN QUERY SELECT * FROM unnest(v_queues, v_names, v_ids, v_tails, v_pushed);
      RETURN;
    END IF;
  END IF;

  -- The existence check is a scalar subquery (a look-up by name), not an anti-join (README.md, "Plans that
  -- survive any statistics").
  INSERT INTO queen.queues (id, name, namespace, task)
  SELECT queen.uuid_v7(), n.name, split_part(n.name, '.', 1), split_part(n.name, '.', 2)
  FROM (SELECT DISTINCT u.name FROM unnest(v_queues) AS u (name)) n
  WHERE (SELECT true FROM queen.queues q WHERE q.name = n.name) IS NULL
  ORDER BY n.name
  ON CONFLICT (name) DO NOTHING;

  FOR v_key IN SELECT * FROM unnest(v_queues, v_names) AS k (queue_name, partition_name) LOOP
    SELECT q.id INTO STRICT v_queue_id FROM queen.queues q WHERE q.name = v_key.queue_name;
    -- By the key expression of partitions_lookup_idx, which no other index serves: with
    -- `queue_id = ... AND name = ...` PostgreSQL 15 may read every partition of the queue instead.
    SELECT * INTO v_partition FROM queen.partitions p
    WHERE p.queue_id::text || p.name = v_queue_id::text || v_key.partition_name FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO queen.partitions (id, queue_id, name)
      VALUES (queen.partition_uuid(v_key.queue_name, v_key.partition_name), v_queue_id, v_key.partition_name)
      ON CONFLICT DO NOTHING;  -- the name's key or the computed id's (Citus keeps only the latter)
      SELECT * INTO STRICT v_partition FROM queen.partitions p
      WHERE p.queue_id::text || p.name = v_queue_id::text || v_key.partition_name FOR UPDATE;
    END IF;
    RETURN QUERY SELECT v_key.queue_name, v_key.partition_name, v_partition.id, v_partition.tail,
                        v_partition.last_push_at;
  END LOOP;
END
$$;
