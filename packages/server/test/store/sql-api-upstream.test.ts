/**
 * SQL written for upstream Queen's `pg_qpubsub` runs unchanged (docs/sql-api.md, "Compatibility"): every
 * function of that surface called with its positional arguments and its defaults, as a script of plain
 * statements and DO blocks that raise on a wrong answer, the way such scripts are written. One statement
 * per call of the script; a failure names the check.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useSqlSessions } from '../support/hot-path.js';

const sql = useSqlSessions();

const SCRIPT = String.raw`
SELECT queen.configure('up_orders', 60, 3, false);
SELECT queen.configure('up_orders_dlq');
SELECT queen.produce_one('up_orders', '{"order": 1}'::jsonb, 'Default', 'up-1');
SELECT queen.produce_one('up_orders', '{"order": 2}'::jsonb, 'Default', 'up-2');
SELECT queen.produce_one('up_orders', '{"order": 3}'::jsonb);
SELECT queen.produce_one('up_orders', '{"order": 4}'::jsonb, 'Other', NULL, TRUE);
SELECT queen.produce_notify('up_orders', '{"order": 5}'::jsonb);
SELECT queen.produce_notify('up_orders', '{"order": 6}'::jsonb, 'Default', 'up-6');

DO $$
DECLARE v_id uuid; v_txn text;
BEGIN
  SELECT message_id, transaction_id INTO v_id, v_txn
  FROM queen.produce_full('up_orders', '{"order": 7}'::jsonb, 'Full', NULL, 'up-namespace', 'up-task');
  IF v_id IS NULL OR v_txn IS NULL THEN RAISE EXCEPTION 'produce_full'; END IF;
  IF queen.lag('up_orders') <> 7 OR queen.depth('up_orders') <> 7 THEN RAISE EXCEPTION 'lag/depth %', queen.lag('up_orders'); END IF;
  IF NOT queen.has_messages('up_orders') OR NOT queen.has_messages('up_orders', 'Full')
     OR queen.has_messages('up_orders', 'Missing') THEN RAISE EXCEPTION 'has_messages'; END IF;
END $$;

DO $$
DECLARE v_msg record; v_count int := 0;
BEGIN
  -- The queue has two partitions: which one a wildcard call serves first is the walk's business (round-robin by
  -- id), so this call names the one holding up-1.
  FOR v_msg IN SELECT * FROM queen.consume_one('up_orders', '__QUEUE_MODE__', 1, 'Default') LOOP
    v_count := v_count + 1;
    IF v_msg.partition_id IS NULL OR v_msg.id IS NULL OR v_msg.lease_id IS NULL OR v_msg.payload IS NULL
       OR v_msg.created_at IS NULL OR v_msg.transaction_id <> 'up-1' THEN RAISE EXCEPTION 'consume_one fields'; END IF;
    IF NOT queen.commit_one(v_msg.transaction_id, v_msg.partition_id, v_msg.lease_id) THEN RAISE EXCEPTION 'commit_one'; END IF;
  END LOOP;
  IF v_count <> 1 THEN RAISE EXCEPTION 'consume_one count %', v_count; END IF;
END $$;

DO $$
DECLARE v_msg record; v_until timestamptz;
BEGIN
  SELECT * INTO v_msg FROM queen.consume_one('up_orders', '__QUEUE_MODE__', 1, 'Default');
  IF v_msg.transaction_id <> 'up-2' THEN RAISE EXCEPTION 'consume_one partition %', v_msg.transaction_id; END IF;
  v_until := queen.renew_one(v_msg.lease_id);
  IF v_until IS NULL OR v_until < now() + interval '50 seconds' THEN RAISE EXCEPTION 'renew_one'; END IF;
  IF queen.renew_one(v_msg.lease_id, 120) < now() + interval '110 seconds' THEN RAISE EXCEPTION 'renew_one 120'; END IF;
  IF NOT queen.nack(v_msg.transaction_id, v_msg.partition_id, v_msg.lease_id) THEN RAISE EXCEPTION 'nack'; END IF;
  SELECT * INTO v_msg FROM queen.consume_one('up_orders', '__QUEUE_MODE__', 1, 'Default');
  IF v_msg.transaction_id <> 'up-2' THEN RAISE EXCEPTION 'redelivery after nack'; END IF;
  IF NOT queen.reject(v_msg.transaction_id, v_msg.partition_id, v_msg.lease_id, 'Invalid order') THEN RAISE EXCEPTION 'reject'; END IF;
  IF NOT EXISTS (SELECT 1 FROM queen.dead_letters WHERE transaction_id = 'up-2' AND error_message = 'Invalid order') THEN
    RAISE EXCEPTION 'reject wrote no DLQ entry';
  END IF;
END $$;

DO $$
DECLARE v_msg record; v_next uuid; v_count int;
BEGIN
  SELECT * INTO v_msg FROM queen.consume_one('up_orders', '__QUEUE_MODE__', 1, 'Default');
  v_next := queen.forward(v_msg.transaction_id, v_msg.partition_id, v_msg.lease_id, '__QUEUE_MODE__',
                          'up_orders_dlq', v_msg.payload || '{"forwarded": true}'::jsonb);
  IF v_next IS NULL OR queen.depth('up_orders_dlq') <> 1 THEN RAISE EXCEPTION 'forward'; END IF;
  SELECT count(*) INTO v_count FROM queen.consume_one('up_orders', '__QUEUE_MODE__', 10, 'Default', 0, TRUE);
  IF v_count <> 2 THEN RAISE EXCEPTION 'auto commit batch %', v_count; END IF;
  IF queen.lag('up_orders') <> 2 THEN RAISE EXCEPTION 'lag after auto commit %', queen.lag('up_orders'); END IF;
END $$;

DO $$
DECLARE v_count int;
BEGIN
  SELECT count(*) INTO v_count FROM queen.consume_one('up_orders', 'up-group', 10, NULL, 0, FALSE, 'new');
  IF v_count <> 0 THEN RAISE EXCEPTION 'subscription new skipped nothing'; END IF;
  SELECT count(*) INTO v_count FROM queen.consume_one('up_orders', 'up-all', 10, 'Default', 0, FALSE, 'all');
  IF v_count <> 5 THEN RAISE EXCEPTION 'subscription all %', v_count; END IF;
  IF NOT queen.seek('up-all', 'up_orders', true) THEN RAISE EXCEPTION 'seek to end'; END IF;
  IF queen.depth('up_orders', 'up-all') <> 0 THEN RAISE EXCEPTION 'depth after seek to end'; END IF;
  IF NOT queen.seek('up-all', 'up_orders', false, '2000-01-01') THEN RAISE EXCEPTION 'seek back'; END IF;
  IF queen.depth('up_orders', 'up-all') <> 7 THEN RAISE EXCEPTION 'depth after seek back'; END IF;
  IF NOT queen.delete_consumer_group('up-all', 'up_orders', false) THEN RAISE EXCEPTION 'delete group on a queue'; END IF;
  PERFORM queen.consume_one('up_orders', 'up-all');
  IF NOT queen.delete_consumer_group('up-all') THEN RAISE EXCEPTION 'delete group'; END IF;
END $$;

DO $$
DECLARE v_r jsonb;
BEGIN
  v_r := queen.produce('[{"queue": "up_batch", "partition": "p1", "payload": {"n": 1}, "transactionId": "b-1"},
                         {"queue": "up_batch", "payload": {"n": 2}, "namespace": "ignored", "task": "ignored"}]'::jsonb);
  IF jsonb_array_length(v_r) <> 2 OR v_r->0->>'status' <> 'queued' THEN RAISE EXCEPTION 'produce %', v_r; END IF;
  v_r := queen.consume('[{"queueName": "up_batch", "partitionName": "p1", "batchSize": 5, "leaseSeconds": 30}]'::jsonb);
  IF v_r->0->'messages'->0->>'transactionId' <> 'b-1' THEN RAISE EXCEPTION 'consume %', v_r; END IF;
  v_r := queen.renew(jsonb_build_array(jsonb_build_object('leaseId', v_r->0->>'leaseId', 'extendSeconds', 60)));
  IF NOT (v_r->0->>'success')::boolean THEN RAISE EXCEPTION 'renew %', v_r; END IF;
  v_r := queen.consume('[{"queueName": "up_batch", "consumerGroup": "g", "autoAck": true, "subMode": "all", "batchSize": 5}]'::jsonb);
  IF jsonb_array_length(v_r->0->'messages') <> 1 THEN RAISE EXCEPTION 'consume autoAck %', v_r; END IF;
  v_r := queen.consume('{"queueName": "up_batch", "partitionName": "Default"}'::jsonb);
  v_r := queen.commit(jsonb_build_array(jsonb_build_object('transactionId', v_r->0->'messages'->0->>'transactionId',
           'partitionId', v_r->0->>'partitionId', 'leaseId', v_r->0->>'leaseId', 'consumerGroup', '__QUEUE_MODE__',
           'status', 'completed')));
  IF NOT (v_r->0->>'success')::boolean THEN RAISE EXCEPTION 'commit %', v_r; END IF;
  v_r := queen.transaction('[{"type": "push", "items": [{"queue": "up_batch", "payload": {"n": 3}}]}]'::jsonb);
  IF NOT (v_r->>'success')::boolean THEN RAISE EXCEPTION 'transaction %', v_r; END IF;
END $$;

DO $$
DECLARE v_id uuid := queen.uuid_generate_v7();
BEGIN
  IF abs(extract(epoch FROM queen.uuid_v7_to_timestamptz(v_id) - clock_timestamp())) > 5 THEN RAISE EXCEPTION 'uuid time'; END IF;
  IF queen.uuid_v7_boundary(now() - interval '1 minute') > v_id THEN RAISE EXCEPTION 'uuid boundary'; END IF;
  IF queen.uuid_v7_to_timestamptz(queen.uuid_generate_v7_at('2025-01-01T00:00:00Z')) <> '2025-01-01T00:00:00Z' THEN RAISE EXCEPTION 'uuid at'; END IF;
  IF queen.channel_name('up.orders-eu') <> 'queen_up_orders_eu' THEN RAISE EXCEPTION 'channel_name'; END IF;
  PERFORM queen.notify('up_orders');
  PERFORM queen.notify('up_orders', 'hello');
END $$;
`;

test('an upstream pg_qpubsub script runs unchanged, call by call', async () => {
  const statements = SCRIPT.split(/;\n(?=SELECT|DO|\n)/).map((s) => s.trim()).filter((s) => s.length > 0);
  assert.ok(statements.length >= 14);
  for (const statement of statements) {
    await sql.pool.query(statement.endsWith(';') ? statement : `${statement};`).catch((error: Error) => {
      assert.fail(`${error.message}\n  in: ${statement.slice(0, 160)}`);
    });
  }
});
