/**
 * A broker on a Citus coordinator with two workers (docs/scale-out.md section 8): QUEEN_CITUS=on distributes the
 * schema at migration time, once, and routes the single-partition path by computed partition id to delegated
 * functions (partition_push, partition_claim, partition_ack). Observed over HTTP and through the cluster's
 * catalog: one request's items over 20 partitions stored on both workers, pops by partition in offset order,
 * acks (C3 idempotence, a leased partition, DLQ), consumer groups reading from the start, duplicates, lease
 * extension, and a restart that converts nothing twice.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { citusDatabase, useCitusCluster } from '../support/citus.js';
import { partitionUuid } from '../support/hot-path.js';
import { client, startBroker, type BrokerProcess, type Client } from '../support/harness.js';

const cluster = useCitusCluster(2);
const QUEUE = 'orders';
const PARTITIONS = Array.from({ length: 20 }, (_, i) => `p${i}`);

describe('a broker on a Citus coordinator', () => {
  let dataDir = '';
  let broker: BrokerProcess;
  let api: Client;
  const start = async (): Promise<void> => {
    broker = await startBroker(citusDatabase(cluster), { QUEEN_CITUS: 'on', QUEEN_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    api = client(broker.url);
  };

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-citus-broker-'));
    await start();
  }, { timeout: 120_000 });
  after(async () => {
    await broker?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const pop = (partition: string, query = '&batch=10') =>
    api.get(`/api/v1/pop/queue/${QUEUE}/partition/${partition}?wait=false${query}`);

  test('start-up distributes the tables and the entry points', async () => {
    assert.match(broker.output(), /Citus coordinator/);
    const tables = await cluster.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_dist_partition WHERE logicalrelid::regclass::text ~ '^queen'`);
    assert.equal(tables.rows[0]!.n, 13);
    const delegated = await cluster.pool.query<{ name: string; arg: number }>(
      `SELECT p.proname AS name, o.distribution_argument_index AS arg FROM pg_dist_object o JOIN pg_proc p ON p.oid = o.objid
       WHERE o.classid = 'pg_proc'::regclass AND o.distribution_argument_index IS NOT NULL ORDER BY 1`);
    assert.deepEqual(delegated.rows, [{ name: 'partition_ack', arg: 0 }, { name: 'partition_claim', arg: 0 },
      { name: 'partition_deliverable', arg: 0 }, { name: 'partition_push', arg: 0 }]);
  });

  test("one request's items over 20 partitions are queued, stored on both workers, duplicates answered", async () => {
    const items = PARTITIONS.flatMap((partition) => [1, 2, 3].map((n) => ({ queue: QUEUE, partition, transactionId: `${partition}-${n}`, payload: { partition, n } })));
    const pushed = await api.push(items);
    assert.equal(pushed.status, 201, pushed.text);
    assert.deepEqual(pushed.json.map((r: any) => r.status), items.map(() => 'queued'));
    const again = await api.push([items[0], { ...items[1], transactionId: 'p0-4' }]);
    assert.deepEqual(again.json.map((r: any) => r.status), ['duplicate', 'queued']);
    assert.equal(again.json[0].message_id, pushed.json[0].message_id, 'a duplicate names the stored message');
    const perWorker = await cluster.pool.query<{ port: number; messages: string }>(
      `SELECT n.nodeport AS port, sum(r.result::bigint)::text AS messages
       FROM run_command_on_shards('queen.segments', 'SELECT coalesce(sum(last_offset - first_offset + 1), 0) FROM %s') r
       JOIN pg_dist_placement pl ON pl.shardid = r.shardid JOIN pg_dist_node n ON n.groupid = pl.groupid
       WHERE r.success GROUP BY n.nodeport ORDER BY n.nodeport`);
    assert.deepEqual(perWorker.rows.map((r) => r.port), cluster.workerPorts);
    assert.equal(perWorker.rows.reduce((sum, r) => sum + Number(r.messages), 0), 61);
    for (const row of perWorker.rows) assert.ok(Number(row.messages) > 0, `worker ${row.port} stores ${row.messages}`);
  });

  test('a bound call of a partition entry point is delegated: one command to one worker, every time', async () => {
    const session = new pg.Client({ connectionString: cluster.url });
    await session.connect();
    try {
      const notices: string[] = [];
      session.on('notice', (notice) => notices.push(notice.message ?? ''));
      await session.query(`SET citus.log_remote_commands = on; SET client_min_messages = 'log'`);
      // Named, like the broker's: PostgreSQL switches to a generic plan after five executions.
      for (let i = 0; i < 7; i++) {
        notices.length = 0;
        const res = await session.query({ name: 'claim', text: 'SELECT empty_reason FROM queen.partition_claim($1::uuid, $2, $3, 1, $4::uuid, 0, false)',
          values: [partitionUuid(QUEUE, 'nowhere'), QUEUE, 'probe', '00000000-0000-7000-8000-000000000000'] });
        assert.deepEqual(res.rows, [{ empty_reason: 'no_partition' }]);
        assert.equal(notices.length, 1, notices.join('\n'));
        assert.match(notices[0]!, /^issuing SELECT .* FROM queen\.partition_claim\(/);
      }
    } finally {
      await session.end();
    }
  });

  test('pops by partition deliver in offset order under a lease; acks commit; a group reads from the start', async () => {
    const first = await pop('p0');
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.json.messages.map((m: any) => m.transactionId), ['p0-1', 'p0-2', 'p0-3', 'p0-4']);
    assert.deepEqual(first.json.messages[0].data, { partition: 'p0', n: 1 });
    const { leaseId } = first.json.messages[0];
    const partitionId = first.json.messages[0].partitionId;
    const leased = await pop('p0');
    assert.equal(leased.status, 204);
    assert.equal(leased.headers.get('x-queen-empty-reason'), 'leased');
    const extended = await api.post(`/api/v1/lease/${leaseId}/extend`, { seconds: 120 });
    assert.equal(extended.status, 200, extended.text);
    const acked = await api.post('/api/v1/ack/batch', {
      acknowledgments: ['p0-1', 'p0-2', 'p0-3', 'p0-4'].map((transactionId) => ({ transactionId, partitionId, leaseId, status: 'completed' })),
    });
    assert.equal(acked.status, 200, acked.text);
    assert.deepEqual(acked.json.map((r: any) => r.success), [true, true, true, true]);
    const settled = await api.post('/api/v1/ack', { transactionId: 'p0-2', partitionId, status: 'completed' });
    assert.equal(settled.json[0].success, true, 'C3: an offset at or below the cursor is settled');
    assert.equal((await pop('p0')).status, 204);
    const group = await pop('p0', '&batch=10&consumerGroup=audit');
    assert.deepEqual(group.json.messages.map((m: any) => m.transactionId), ['p0-1', 'p0-2', 'p0-3', 'p0-4']);
    const missing = await pop('nowhere');
    assert.equal(missing.status, 204);
  });

  test('a message acked as dlq lands in the dead letters of its partition', async () => {
    const held = await pop('p1', '&batch=1');
    assert.equal(held.status, 200, `${held.status} ${held.headers.get('x-queen-empty-reason')}`);
    const [message] = held.json.messages;
    const acked = await api.post('/api/v1/ack', { transactionId: message.transactionId, partitionId: message.partitionId,
      leaseId: message.leaseId, status: 'dlq', error: 'bad payload' });
    assert.deepEqual([acked.json[0].success, acked.json[0].dlq], [true, true]);
    const stored = await cluster.pool.query<{ txn: string; error: string }>(
      'SELECT transaction_id AS txn, error_message AS error FROM queen.dead_letters WHERE partition_id = $1', [message.partitionId]);
    assert.deepEqual(stored.rows, [{ txn: 'p1-1', error: 'bad payload' }]);
    const next = await pop('p1', '&batch=1');
    assert.deepEqual(next.json.messages.map((m: any) => m.transactionId), ['p1-2']);
  });

  test('wildcard pops walk the partitions of both workers; maxPartitions and the group cursor hold', async () => {
    const seen: string[] = [];
    for (let round = 0; round < 40; round++) {
      const res = await api.get(`/api/v1/pop/queue/${QUEUE}?wait=false&batch=10&partitions=2&consumerGroup=wild`);
      if (res.status === 204) break;
      assert.equal(res.status, 200, res.text);
      const partitions = new Set(res.json.messages.map((m: any) => m.partitionId));
      assert.ok(partitions.size <= 2, `partitions=2, got ${partitions.size}`);
      seen.push(...res.json.messages.map((m: any) => m.transactionId));
      const acked = await api.post('/api/v1/ack/batch', { acknowledgments: res.json.messages.map((m: any) =>
        ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed', consumerGroup: 'wild' })) });
      assert.ok(acked.json.every((r: any) => r.success), acked.text);
    }
    assert.equal(seen.length, 61, 'every message of every partition, once');
    assert.equal(new Set(seen).size, 61);
    for (const partition of PARTITIONS) {
      const mine = seen.filter((t) => t.startsWith(`${partition}-`));
      assert.deepEqual(mine, [...mine].sort(), `offset order within ${partition}`);
    }
    const discovery = await api.get('/api/v1/pop?wait=false&batch=5&partitions=2&consumerGroup=disc&namespace=orders');
    assert.equal(discovery.status, 200, discovery.text);
    assert.equal(discovery.json.messages.length, 5);
  });

  test('a parked pop is answered by a push to its partition', async () => {
    const parked = api.get(`/api/v1/pop/queue/${QUEUE}/partition/late?wait=true&timeout=10000`);
    await new Promise((r) => setTimeout(r, 300));
    const pushed = await api.push([{ queue: QUEUE, partition: 'late', transactionId: 'late-1', payload: { late: true } }]);
    assert.equal(pushed.status, 201, pushed.text);
    const res = await parked;
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.messages.map((m: any) => m.transactionId), ['late-1']);
  });

  test('a transaction pushes to partitions of both workers and acks another, all or nothing', async () => {
    const held = await pop('p2', '&batch=1');
    const [message] = held.json.messages;
    const res = await api.post('/api/v1/transaction', { operations: [
      { type: 'push', items: PARTITIONS.slice(0, 6).map((partition) => ({ queue: 'audit', partition, transactionId: `a-${partition}`, payload: { partition } })) },
      { type: 'ack', transactionId: message.transactionId, partitionId: message.partitionId, leaseId: message.leaseId },
    ] });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.success, true, res.text);
    const stored = await cluster.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'audit' AND p.tail = 1`);
    assert.equal(stored.rows[0]!.n, 6);
    const next = await pop('p2', '&batch=1');
    assert.deepEqual(next.json.messages.map((m: any) => m.transactionId), ['p2-2']);
  });

  test("a worker that is down: its partitions' pops answer 503 with Retry-After, the other worker's serve, pushes are buffered and replayed", async () => {
    const placed = await cluster.pool.query<{ name: string; port: number }>(
      `SELECT k.name, n.nodeport AS port FROM unnest($1::text[]) AS k (name)
       JOIN pg_dist_placement pl ON pl.shardid = get_shard_id_for_distribution_column('queen.partitions', queen.partition_uuid($2, k.name))
       JOIN pg_dist_node n ON n.groupid = pl.groupid`, [PARTITIONS, QUEUE]);
    const [downPort, upPort] = cluster.workerPorts;
    const down = placed.rows.find((r) => r.port === downPort)!.name;
    const up = placed.rows.find((r) => r.port === upPort)!.name;
    const before = await pop(up, '&batch=10&consumerGroup=outage');
    assert.equal(before.status, 200, before.text);
    cluster.worker(downPort!, 'stop');
    try {
      const unreachable = await pop(down, '&batch=10&consumerGroup=outage');
      assert.equal(unreachable.status, 503, unreachable.text);
      assert.ok(Number(unreachable.headers.get('retry-after')) > 0);
      assert.doesNotMatch(unreachable.text, /remote node|connection/i, 'no database error text on the wire');
      const acked = await api.post('/api/v1/ack/batch', { acknowledgments: before.json.messages.map((m: any) =>
        ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed', consumerGroup: 'outage' })) });
      assert.ok(acked.json.every((r: any) => r.success), `acks on the live worker: ${acked.text}`);
      const pushed = await api.push([{ queue: QUEUE, partition: down, transactionId: 'outage-1', payload: {} },
        { queue: QUEUE, partition: up, transactionId: 'outage-2', payload: {} }]);
      assert.equal(pushed.status, 201, pushed.text);
      for (const r of pushed.json) assert.ok(['queued', 'buffered'].includes(r.status), JSON.stringify(r));
    } finally {
      cluster.worker(downPort!, 'start');
    }
    const stored = async () => (await cluster.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM queen.message_keys WHERE partition_id = ANY ($1::uuid[]) AND transaction_id IN ('outage-1', 'outage-2')`,
      [[partitionUuid(QUEUE, down), partitionUuid(QUEUE, up)]])).rows[0]!.n;
    for (let i = 0; i < 100 && (await stored().catch(() => 0)) < 2; i++) await new Promise((r) => setTimeout(r, 200));
    assert.equal(await stored(), 2, 'both pushes are stored once the worker is back');
  });

  test('maxSize admits a capped queue up to its room across partitions (soft on Citus: one read per batch)', async () => {
    const configured = await api.post('/api/v1/configure', { queue: 'capped', options: { maxSize: 3 } });
    assert.equal(configured.status, 200, configured.text);
    const pushed = await api.push(['a', 'b', 'c', 'd', 'e'].map((partition, i) => ({ queue: 'capped', partition, transactionId: `c-${i}`, payload: {} })));
    assert.equal(pushed.status, 201, pushed.text);
    assert.deepEqual(pushed.json.map((r: any) => r.status).sort(), ['failed', 'failed', 'queued', 'queued', 'queued']);
    assert.ok(pushed.json.filter((r: any) => r.status === 'failed').every((r: any) => r.error === "Queue 'capped' would exceed max capacity"), pushed.text);
  });

  test('a restart converts nothing twice and serves the same data', async () => {
    await broker.stop();
    await start();
    assert.doesNotMatch(broker.output(), /schema updated/);
    const popped = await pop('p5', '&batch=10&consumerGroup=late');
    assert.deepEqual(popped.json.messages.map((m: any) => m.transactionId), ['p5-1', 'p5-2', 'p5-3']);
  });
});
