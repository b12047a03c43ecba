/**
 * The Citus layout of docs/scale-out.md (section 2) on a real local cluster, a coordinator and two workers:
 * a database migrated by this release, with data written through the SQL functions (a queue of 100 partitions,
 * and a partition whose id is a random one as releases before computed ids gave), converted by
 * sql/citus/distribute.sql. Partition-keyed tables end up in one co-location group, queue-keyed ones replicated,
 * the legacy partition re-keyed to its computed id with its rows, the queue's partitions on both workers, a
 * look-up by the id computed from the names routed to one shard; then the two administrative functions that
 * already run on the converted cluster (through the coordinator): queue_configure and queue_delete.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { migrate } from '../../src/store/migrations.js';
import { useCitusCluster } from '../support/citus.js';
import { partitionUuid, pop, push } from '../support/hot-path.js';

const DISTRIBUTE_SQL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sql/citus/distribute.sql');
const cluster = useCitusCluster(2);
const QUEUE = 'orders';
const PARTITIONS = Array.from({ length: 100 }, (_, i) => `p${i}`);
const DISTRIBUTED = ['queen.partitions', 'queen.segments', 'queen.message_keys', 'queen.cursors', 'queen.dead_letters', 'queen.traces',
  'queen.backlog', 'queen.retention_history', 'queen_streams.state'];
const REFERENCE = ['queen.queues', 'queen.subscriptions', 'queen.backlog_groups', 'queen_streams.queries'];
/** Every option of /configure (docs/api.md 2.2), as the broker passes them. */
const OPTIONS = { leaseTime: 60, retryLimit: 3, retryDelay: 0, maxSize: 0, ttl: 3600, priority: 0, delayedProcessing: 0, windowBuffer: 0,
  minPopWaitTime: 0, retentionSeconds: 0, completedRetentionSeconds: 0, retentionEnabled: false, maxWaitTimeSeconds: 0,
  deadLetterQueue: false, dlqAfterMaxRetries: false };
describe('distribute.sql on a coordinator and two workers', () => {
  let legacyId = '';

  before(async () => {
    const { pool } = cluster;
    await migrate(pool);
    // Written while every table is still local to the coordinator: the functions run as on one PostgreSQL.
    await push(pool, PARTITIONS.map((partition) => ({ queue: QUEUE, partition, tx: `${partition}-m1` })));
    await push(pool, ['a', 'b', 'c'].map((tx) => ({ queue: QUEUE, partition: 'legacy', tx })));
    const claim = await pop(pool, { scope: 'partition', queue: QUEUE, partition: 'legacy', group: 'g', batch: 1 });
    assert.deepEqual(claim.txns, ['a']);
    // The legacy partition gets a random id everywhere, as an earlier release would have given it.
    legacyId = (await pool.query<{ id: string }>('SELECT gen_random_uuid()::text AS id')).rows[0]!.id;
    await pool.query(
      `WITH old AS (SELECT queen.partition_uuid($1, 'legacy') AS id),
            s AS (UPDATE queen.segments t SET partition_id = $2 FROM old WHERE t.partition_id = old.id),
            k AS (UPDATE queen.message_keys t SET partition_id = $2 FROM old WHERE t.partition_id = old.id),
            c AS (UPDATE queen.cursors t SET partition_id = $2 FROM old WHERE t.partition_id = old.id)
       UPDATE queen.partitions t SET id = $2 FROM old WHERE t.id = old.id`, [QUEUE, legacyId]);
    await pool.query(fs.readFileSync(DISTRIBUTE_SQL, 'utf8')); // one implicit transaction
  }, { timeout: 120_000 });

  test('partition-keyed tables are distributed in one co-location group, queue-keyed tables replicated', async () => {
    const tables = await cluster.pool.query<{ name: string; method: string; colocation: number }>(
      `SELECT logicalrelid::regclass::text AS name, partmethod::text AS method, colocationid AS colocation
       FROM pg_dist_partition WHERE logicalrelid::regclass::text ~ '^queen' ORDER BY 1`);
    const byName = new Map(tables.rows.map((r) => [r.name, r]));
    assert.deepEqual([...byName.keys()].sort(), [...DISTRIBUTED, ...REFERENCE].sort());
    for (const name of DISTRIBUTED) assert.equal(byName.get(name)!.method, 'h', name);
    for (const name of REFERENCE) assert.equal(byName.get(name)!.method, 'n', name);
    assert.equal(new Set(DISTRIBUTED.map((name) => byName.get(name)!.colocation)).size, 1, 'one co-location group');
  });

  test('the legacy partition is re-keyed to its computed id with its messages, keys and cursor', async () => {
    const rows = await cluster.pool.query<{ computed: string; stale: string; segments: string; keys: string; committed: string }>(
      `SELECT (SELECT count(*) FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
               WHERE p.id = queen.partition_uuid(q.name, p.name))::text AS computed,
              (SELECT count(*) FROM queen.segments WHERE partition_id = $2)::text AS stale,
              (SELECT sum(last_offset - first_offset + 1) FROM queen.segments WHERE partition_id = queen.partition_uuid($1, 'legacy'))::text AS segments,
              (SELECT count(*) FROM queen.message_keys WHERE partition_id = queen.partition_uuid($1, 'legacy'))::text AS keys,
              (SELECT committed FROM queen.cursors WHERE partition_id = queen.partition_uuid($1, 'legacy') AND consumer_group = 'g')::text AS committed`,
      [QUEUE, legacyId]);
    assert.deepEqual(rows.rows[0], { computed: String(PARTITIONS.length + 1), stale: '0', segments: '3', keys: '3', committed: '0' });
  });

  test("one queue's partitions and their messages live on both workers", async () => {
    const placed = await cluster.pool.query<{ port: number; partitions: string }>(
      `SELECT n.nodeport AS port, count(*)::text AS partitions
       FROM unnest($1::text[]) AS k (name)
       JOIN pg_dist_placement pl ON pl.shardid = get_shard_id_for_distribution_column('queen.partitions', queen.partition_uuid($2, k.name))
       JOIN pg_dist_node n ON n.groupid = pl.groupid
       GROUP BY n.nodeport ORDER BY n.nodeport`, [PARTITIONS, QUEUE]);
    assert.deepEqual(placed.rows.map((r) => r.port), cluster.workerPorts);
    for (const row of placed.rows) assert.ok(Number(row.partitions) >= 25, `worker ${row.port} holds ${row.partitions} of 100 partitions`);
    // The rows themselves, counted in each worker's shards.
    const stored = await cluster.pool.query<{ port: number; segments: string }>(
      `SELECT n.nodeport AS port, sum(r.result::bigint)::text AS segments
       FROM run_command_on_shards('queen.segments', 'SELECT count(*) FROM %s') r
       JOIN pg_dist_placement pl ON pl.shardid = r.shardid JOIN pg_dist_node n ON n.groupid = pl.groupid
       WHERE r.success GROUP BY n.nodeport ORDER BY n.nodeport`);
    assert.deepEqual(stored.rows.map((r) => r.port), cluster.workerPorts);
    assert.equal(stored.rows.reduce((sum, r) => sum + Number(r.segments), 0), PARTITIONS.length + 1);
    for (const row of stored.rows) assert.ok(Number(row.segments) >= 25, `worker ${row.port} stores ${row.segments} segment rows`);
  });

  test('a look-up by the id computed from the names is routed to one shard', async () => {
    const plan = await cluster.pool.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (FORMAT JSON) SELECT * FROM queen.segments WHERE partition_id = queen.partition_uuid('orders', 'p7')`);
    const text = JSON.stringify(plan.rows[0]!['QUERY PLAN']);
    assert.match(text, /"Task Count":1\b/, text);
    const found = await cluster.pool.query<{ txn: string }>(
      `SELECT transaction_ids[1] AS txn FROM queen.segments WHERE partition_id = queen.partition_uuid('orders', 'p7')`);
    assert.deepEqual(found.rows, [{ txn: 'p7-m1' }]);
  });

  test('on the converted cluster, queue_configure creates and reconfigures a queue; queue_delete removes one from every worker', async () => {
    const configure = (encryptionEnabled: boolean) => cluster.pool.query<{ id: string; used: boolean }>(
      `SELECT c.default_partition_id::text AS id, (c.queue).encryption_used AS used FROM queen.queue_configure('invoices', 'invoices', '', $1::jsonb) c`,
      [JSON.stringify({ ...OPTIONS, encryptionEnabled })]);
    const created = await configure(true);
    const id = (await cluster.pool.query<{ id: string }>(`SELECT queen.partition_uuid('invoices', 'Default')::text AS id`)).rows[0]!.id;
    assert.deepEqual(created.rows, [{ id, used: true }]);
    assert.deepEqual((await configure(false)).rows, [{ id, used: true }], 'encryption_used never goes back');
    const stored = await cluster.pool.query<{ name: string }>('SELECT name FROM queen.partitions WHERE id = $1', [id]);
    assert.deepEqual(stored.rows, [{ name: 'Default' }]);

    const deleted = await cluster.pool.query<{ existed: boolean }>(`SELECT queen.queue_delete($1) AS existed`, [QUEUE]);
    assert.deepEqual(deleted.rows, [{ existed: true }]);
    const left = await cluster.pool.query<{ partitions: string; segments: string; keys: string; cursors: string }>(
      `SELECT (SELECT count(*) FROM queen.partitions WHERE id = ANY ($1::uuid[]))::text AS partitions,
              (SELECT count(*) FROM queen.segments WHERE partition_id = ANY ($1::uuid[]))::text AS segments,
              (SELECT count(*) FROM queen.message_keys WHERE partition_id = ANY ($1::uuid[]))::text AS keys,
              (SELECT count(*) FROM queen.cursors WHERE partition_id = ANY ($1::uuid[]))::text AS cursors`,
      [[...PARTITIONS, 'legacy'].map((name) => partitionUuid(QUEUE, name))]);
    assert.deepEqual(left.rows, [{ partitions: '0', segments: '0', keys: '0', cursors: '0' }]);
    const queues = await cluster.pool.query<{ name: string }>('SELECT name FROM queen.queues ORDER BY name');
    assert.deepEqual(queues.rows, [{ name: 'invoices' }]);
  });
});
