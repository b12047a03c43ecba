/**
 * The operations beside push, pop and ack on a Citus coordinator with two workers (docs/scale-out.md sections 6 and
 * 10), each on partitions of both workers, with the results single PostgreSQL gives: a consumer group's seek to a
 * timestamp and to the end; retention of old and of completed messages, eviction, the clean-up of idle partitions
 * and the stats purge of old retention history, run by the broker's own cycles without a warning in its log; a
 * stream's cycles (state, sink push and source ack in one transaction) taking effect exactly once; and the SQL API
 * (produce, consume, commit, renew, transaction, seek, delete_consumer_group) called on the coordinator, also
 * inside a caller's transaction that spans both workers. And a restart that re-applies a function file keeps the
 * Citus override of that function.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { citusDatabase, useCitusCluster } from '../support/citus.js';
import { partitionUuid } from '../support/hot-path.js';
import { client, startBroker, type BrokerProcess, type Client } from '../support/harness.js';

const cluster = useCitusCluster(2);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('operations on a Citus coordinator', () => {
  let dataDir = '';
  let broker: BrokerProcess;
  let api: Client;
  const start = async (): Promise<void> => {
    broker = await startBroker(citusDatabase(cluster), {
      QUEEN_CITUS: 'on', QUEEN_DATA_DIR: dataDir, LOG_LEVEL: 'info',
      RETENTION_INTERVAL: '500', EVICTION_INTERVAL: '500', STATS_INTERVAL_MS: '500', METRICS_RETENTION_DAYS: '1',
    });
    api = client(broker.url);
  };
  /** Two partition names of each worker for `queue`, in worker order. */
  let spread: (queue: string) => Promise<string[]>;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-citus-ops-'));
    await start();
    spread = async (queue) => {
      const names = Array.from({ length: 24 }, (_, i) => `w${i}`);
      const placed = await cluster.pool.query<{ name: string; port: number }>(
        `SELECT k.name, n.nodeport AS port FROM unnest($1::text[]) AS k (name)
         JOIN pg_dist_placement pl ON pl.shardid = get_shard_id_for_distribution_column('queen.partitions', queen.partition_uuid($2, k.name))
         JOIN pg_dist_node n ON n.groupid = pl.groupid`, [names, queue]);
      return cluster.workerPorts.flatMap((port) => {
        const mine = placed.rows.filter((r) => r.port === port).map((r) => r.name).slice(0, 2);
        assert.equal(mine.length, 2, `two partitions on worker ${port}`);
        return mine;
      });
    };
  }, { timeout: 120_000 });
  after(async () => {
    await broker?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const push = async (queue: string, partitions: string[], tag: string): Promise<void> => {
    const res = await api.push(partitions.map((partition) => ({ queue, partition, transactionId: `${partition}-${tag}`, payload: { tag } })));
    assert.equal(res.status, 201, res.text);
    assert.ok(res.json.every((r: any) => r.status === 'queued'), res.text);
  };
  /** Pops every partition for `group` and acks what came: the transactionIds received, per partition in order. */
  const drain = async (queue: string, partitions: string[], group: string): Promise<string[]> => {
    const seen: string[] = [];
    for (const partition of partitions) {
      const res = await api.get(`/api/v1/pop/queue/${queue}/partition/${partition}?wait=false&batch=50&consumerGroup=${group}`);
      if (res.status === 204) continue;
      assert.equal(res.status, 200, res.text);
      seen.push(...res.json.messages.map((m: any) => m.transactionId));
      const acked = await api.post('/api/v1/ack/batch', { acknowledgments: res.json.messages.map((m: any) =>
        ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed', consumerGroup: group })) });
      assert.ok(acked.json.every((r: any) => r.success), acked.text);
    }
    return seen;
  };
  const warnings = (component: RegExp) => broker.output().split('\n')
    .filter((line) => /"level":(40|50)/.test(line) && component.test(line));

  test('seek to a timestamp replays what came after it; seek to the end skips everything before', async () => {
    const partitions = await spread('seeks');
    await push('seeks', partitions, 'old');
    await sleep(50);
    const middle = new Date().toISOString();
    await sleep(50);
    await push('seeks', partitions, 'new');
    assert.equal((await drain('seeks', partitions, 'replay')).length, 8);
    assert.deepEqual(await drain('seeks', partitions, 'replay'), []);

    const back = await api.post('/api/v1/consumer-groups/replay/queues/seeks/seek', { timestamp: middle });
    assert.equal(back.status, 200, back.text);
    assert.equal(back.json.partitionsUpdated, 4);
    assert.deepEqual(await drain('seeks', partitions, 'replay'), partitions.map((p) => `${p}-new`));

    // One partition (on the second worker) back to the start: only its messages come again.
    const one = await api.post(`/api/v1/consumer-groups/replay/queues/seeks/partitions/${partitions[3]}/seek`, { timestamp: '2000-01-01T00:00:00Z' });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.cursorMovedTo, null, 'before the oldest message: no message is settled');
    assert.deepEqual(await drain('seeks', partitions, 'replay'), [`${partitions[3]}-old`, `${partitions[3]}-new`]);
    const missing = await api.post('/api/v1/consumer-groups/replay/queues/seeks/partitions/nowhere/seek', { toEnd: true });
    assert.equal(missing.json.error, 'Partition not found');

    const fresh = await api.post('/api/v1/consumer-groups/fresh/queues/seeks/seek', { toEnd: true });
    assert.equal(fresh.status, 200, fresh.text);
    assert.deepEqual(await drain('seeks', partitions, 'fresh'), [], 'a group sought to the end has nothing to read');
    await push('seeks', partitions, 'later');
    assert.deepEqual(await drain('seeks', partitions, 'fresh'), partitions.map((p) => `${p}-later`));
    for (let i = 0; i < 8; i++) {  // named statements switch to generic plans after five executions
      const again = await api.post(`/api/v1/consumer-groups/again${i}/queues/seeks/seek`, { timestamp: middle });
      assert.equal(again.status, 200, again.text);
    }
    assert.deepEqual(await drain('seeks', partitions, 'again7'), partitions.flatMap((p) => [`${p}-new`, `${p}-later`]));
  });

  test('retention, eviction and partition clean-up remove what single PostgreSQL removes, without a warning', async () => {
    const configure = async (queue: string, options: Record<string, unknown>) => {
      const res = await api.post('/api/v1/configure', { queue, options });
      assert.equal(res.status, 200, res.text);
    };
    await configure('aged', { retentionEnabled: true, retentionSeconds: 1 });
    await configure('done', { retentionEnabled: true, completedRetentionSeconds: 1 });
    await configure('stale', { maxWaitTimeSeconds: 1 });
    const aged = await spread('aged');
    const done = await spread('done');
    const stale = await spread('stale');
    await push('aged', aged, '1');
    await push('done', done, '1');
    await push('stale', stale, '1');
    // Half of `done` is consumed by its one group: only that half is completed.
    const consumed = [done[0]!, done[2]!];
    assert.equal((await drain('done', consumed, '__QUEUE_MODE__')).length, 2);
    // `stale`: one partition's message consumed (nothing to evict there), the others waiting.
    assert.equal((await drain('stale', [stale[1]!], 'readers')).length, 1);
    // An idle, empty partition of a queue without retention: created long ago, never pushed since.
    await push('idle', ['gone'], '1');
    await drain('idle', ['gone'], '__QUEUE_MODE__');
    const idleId = partitionUuid('idle', 'gone');
    await cluster.pool.query(`DELETE FROM queen.segments WHERE partition_id = $1`, [idleId]);
    await cluster.pool.query(`UPDATE queen.partitions SET created_at = now() - interval '60 days', last_push_at = now() - interval '60 days' WHERE id = $1`, [idleId]);
    await cluster.pool.query(`UPDATE queen.cursors SET last_activity_at = now() - interval '60 days', last_consumed_at = now() - interval '60 days' WHERE partition_id = $1`, [idleId]);

    const retained = async (queue: string, partitions: string[]) => (await cluster.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM queen.segments WHERE partition_id = ANY ($1::uuid[])`,
      [partitions.map((p) => partitionUuid(queue, p))])).rows[0]!.n;
    const settled = async () => await retained('aged', aged) === 0 && await retained('done', consumed) === 0
      && await retained('stale', [stale[0]!, stale[2]!, stale[3]!]) === 0
      && (await cluster.pool.query('SELECT 1 FROM queen.partitions WHERE id = $1', [idleId])).rowCount === 0;
    for (let i = 0; i < 60 && !(await settled()); i++) await sleep(250);
    assert.ok(await settled(), 'old, completed and waiting messages removed, the idle partition deleted');
    assert.equal(await retained('done', [done[1]!, done[3]!]), 2, 'messages no group consumed stay');
    assert.equal(await retained('stale', [stale[1]!]), 1, 'a message every contacted group passed is not evicted');

    const history = await cluster.pool.query<{ queue: string; partition: string; kind: string; deleted: string }>(
      `SELECT queue_name AS queue, partition_name AS partition, kind, sum(deleted)::text AS deleted FROM queen.retention_history
       WHERE queue_name IN ('aged', 'done', 'stale', 'idle') GROUP BY 1, 2, 3 ORDER BY 1, 3, 2`);
    const expected = [
      ...aged.map((partition) => ({ queue: 'aged', partition, kind: 'retention', deleted: '1' })),
      ...consumed.map((partition) => ({ queue: 'done', partition, kind: 'completed', deleted: '1' })),
      { queue: 'idle', partition: 'gone', kind: 'partition_cleanup', deleted: '1' },
      ...[stale[0]!, stale[2]!, stale[3]!].map((partition) => ({ queue: 'stale', partition, kind: 'eviction', deleted: '1' })),
    ].sort((a, b) => (a.queue + a.kind + a.partition < b.queue + b.kind + b.partition ? -1 : 1));
    assert.deepEqual(history.rows, expected);
    assert.deepEqual(warnings(/"component":"(retention|eviction)"/), []);
  });

  test("a stream's cycles on partitions of both workers take effect exactly once", async () => {
    const registered = await api.post('/streams/v1/queries', { name: 'events.count', source_queue: 'events', sink_queue: 'totals', config_hash: 'h1' });
    assert.equal(registered.status, 200, registered.text);
    const queryId = registered.json.query_id;
    const partitions = await spread('events');
    await push('events', partitions, '1');
    for (const partition of partitions) {
      const popped = await api.get(`/api/v1/pop/queue/events/partition/${partition}?wait=false&batch=10&consumerGroup=streams.events.count`);
      assert.equal(popped.status, 200, popped.text);
      const [message] = popped.json.messages;
      const body = { query_id: queryId, partition_id: message.partitionId, consumer_group: 'streams.events.count',
        state_ops: [{ type: 'upsert', key: 'count', value: { n: 1, windowEnd: 1 } }],
        push_items: [{ queue: 'totals', partition, transactionId: `total-${partition}`, payload: { n: 1 } }],
        ack: { transactionId: message.transactionId, leaseId: message.leaseId, status: 'completed', count: 1 } };
      const cycle = await api.post('/streams/v1/cycle', body);
      assert.equal(cycle.status, 200, cycle.text);
      assert.equal(cycle.json.success, true, cycle.text);
      assert.deepEqual([cycle.json.state_ops_applied, cycle.json.push_results[0].status, cycle.json.ack_result.success], [1, 'queued', true]);
      const replay = await api.post('/streams/v1/cycle', { ...body, state_ops: [{ type: 'upsert', key: 'count', value: { n: 2, windowEnd: 1 } }],
        push_items: [{ queue: 'totals', partition, transactionId: `again-${partition}`, payload: { n: 2 } }] });
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.json.success, false, 'a replayed cycle applies nothing');
      const state = await api.post('/streams/v1/state/get', { query_id: queryId, partition_id: message.partitionId, ripe_at_or_before: 5,
        consumer_group: 'streams.events.count' });
      assert.equal(state.status, 200, state.text);
      assert.deepEqual(state.json.rows.map((r: any) => [r.key, r.value]), [['count', { n: 1, windowEnd: 1 }]]);
    }
    const sink = await cluster.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM queen.message_keys WHERE partition_id = ANY ($1::uuid[])`, [partitions.map((p) => partitionUuid('totals', p))]);
    assert.equal(sink.rows[0]!.n, 4, 'one sink message per source partition');
    assert.deepEqual(await drain('events', partitions, 'streams.events.count'), [], 'every source message acknowledged');
    const reset = await api.post('/streams/v1/queries', { name: 'events.count', source_queue: 'events', sink_queue: 'totals', config_hash: 'h2', reset: true });
    assert.equal(reset.json.reset, true, reset.text);
    const cleared = await cluster.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM queen_streams.state WHERE query_id = $1', [queryId]);
    assert.equal(cleared.rows[0]!.n, 0);
  });

  test('the SQL API on the coordinator: produce, consume (and its wait), commit, renew, seek, has_messages, delete a group', async () => {
    const partitions = await spread('sqlapi');
    const items = partitions.map((partition) => ({ queue: 'sqlapi', partition, transactionId: `s-${partition}`, payload: { partition } }));
    const produced = await cluster.pool.query<{ r: any[] }>('SELECT queen.produce($1::jsonb) AS r', [JSON.stringify(items)]);
    assert.deepEqual(produced.rows[0]!.r.map((r) => [r.status, r.partition_id]), partitions.map((p) => ['queued', partitionUuid('sqlapi', p)]));
    const again = await cluster.pool.query<{ r: any[] }>('SELECT queen.produce($1::jsonb) AS r', [JSON.stringify(items)]);
    assert.deepEqual(again.rows[0]!.r.map((r) => r.status), partitions.map(() => 'duplicate'));
    assert.deepEqual(again.rows[0]!.r.map((r) => r.message_id), produced.rows[0]!.r.map((r) => r.message_id));

    for (const partition of partitions) {
      const got = await cluster.pool.query('SELECT * FROM queen.consume_one($1, $2, 10, $3)', ['sqlapi', 'sql', partition]);
      assert.deepEqual(got.rows.map((r) => [r.transaction_id, r.payload]), [[`s-${partition}`, { partition }]]);
      const renewed = await cluster.pool.query<{ until: Date }>('SELECT queen.renew_one($1, 600) AS until', [got.rows[0].lease_id]);
      assert.ok(renewed.rows[0]!.until.getTime() > Date.now() + 500_000, 'the lease runs ten minutes from now');
      const committed = await cluster.pool.query<{ ok: boolean }>('SELECT queen.commit_one($1, $2, $3, $4) AS ok',
        [got.rows[0].transaction_id, got.rows[0].partition_id, got.rows[0].lease_id, 'sql']);
      assert.equal(committed.rows[0]!.ok, true);
    }
    const wildcard = await cluster.pool.query('SELECT * FROM queen.consume_one($1, $2, 10)', ['sqlapi', 'sql']);
    assert.equal(wildcard.rowCount, 0, 'the group has read everything');
    const seek = await cluster.pool.query<{ ok: boolean }>(`SELECT queen.seek('sql', 'sqlapi', p_to_timestamp => now() - interval '1 hour') AS ok`);
    assert.equal(seek.rows[0]!.ok, true);
    const replayed: string[] = [];
    for (let i = 0; i < 8; i++) {
      const got = await cluster.pool.query('SELECT * FROM queen.consume_one($1, $2, 10, NULL, 0, true)', ['sqlapi', 'sql']);
      replayed.push(...got.rows.map((r) => r.transaction_id));
    }
    assert.deepEqual(replayed.sort(), items.map((i) => i.transactionId).sort(), 'after the seek back, every message once (wildcard, auto-commit)');
    const has = await cluster.pool.query<{ any: boolean; none: boolean }>(
      `SELECT queen.has_messages('sqlapi', $1, 'other') AS any, queen.has_messages('sqlapi', $1, 'sql') AS none`, [partitions[3]]);
    assert.deepEqual(has.rows[0], { any: true, none: false });
    // consume_one's wait: parked in the statement, it takes a message produced meanwhile on another session.
    const started = Date.now();
    const waiting = cluster.pool.query('SELECT * FROM queen.consume_one($1, $2, 1, $3, 10)', ['sqlapi', 'sql', partitions[2]]);
    await sleep(400);
    await cluster.pool.query(`SELECT queen.produce_one('sqlapi', '{"late": true}', $1, 'late')`, [partitions[2]]);
    assert.deepEqual((await waiting).rows.map((r) => r.transaction_id), ['late']);
    assert.ok(Date.now() - started < 5000, 'woken well before its 10 s timeout');
    const deleted = await cluster.pool.query<{ ok: boolean }>(`SELECT queen.delete_consumer_group('sql', 'sqlapi') AS ok`);
    assert.equal(deleted.rows[0]!.ok, true);
    const cursors = await cluster.pool.query(`SELECT 1 FROM queen.cursors WHERE consumer_group = 'sql'`);
    assert.equal(cursors.rowCount, 0);
  });

  test("the SQL API inside a caller's transaction across both workers: all or nothing", async () => {
    const partitions = await spread('outbox');
    const session = await cluster.pool.connect();
    const stored = async () => (await cluster.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM queen.message_keys WHERE partition_id = ANY ($1::uuid[])', [partitions.map((p) => partitionUuid('outbox', p))])).rows[0]!.n;
    try {
      await session.query('CREATE TABLE IF NOT EXISTS public.orders (id integer)');
      for (const outcome of ['ROLLBACK', 'COMMIT']) {
        await session.query('BEGIN');
        await session.query('INSERT INTO public.orders VALUES (42)');
        for (const partition of partitions) await session.query(`SELECT queen.produce_one('outbox', '{"order": 42}', $1, $2)`, [partition, `o-${partition}`]);
        await session.query(outcome);
        assert.equal(await stored(), outcome === 'COMMIT' ? 4 : 0, outcome);
      }
      // A transaction(): the messages acked and their follow-ups pushed to partitions of both workers, at once.
      const held = (await session.query('SELECT * FROM queen.consume_one($1, $2, 10, $3)', ['outbox', '__QUEUE_MODE__', partitions[0]])).rows[0];
      const result = await session.query<{ r: any }>('SELECT queen.transaction($1::jsonb) AS r', [JSON.stringify([
        { type: 'ack', transactionId: held.transaction_id, partitionId: held.partition_id, leaseId: held.lease_id },
        { type: 'push', items: partitions.map((partition) => ({ queue: 'shipped', partition, payload: { order: 42 } })) },
      ])]);
      assert.equal(result.rows[0]!.r.success, true, JSON.stringify(result.rows[0]!.r));
      const shipped = await cluster.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM queen.partitions WHERE id = ANY ($1::uuid[]) AND tail = 1', [partitions.map((p) => partitionUuid('shipped', p))]);
      assert.equal(shipped.rows[0]!.n, 4);
      const next = await session.query('SELECT * FROM queen.consume_one($1, $2, 10, $3)', ['outbox', '__QUEUE_MODE__', partitions[0]]);
      assert.equal(next.rowCount, 0, 'the acked message is not delivered again');
    } finally {
      await session.query('ROLLBACK').catch(() => undefined);  // a failed step must not hand the pool an aborted transaction
      session.release();
    }
  });

  test('the stats cleanup purges old retention history on Citus', async () => {
    const cycle = '01900000-0000-7000-8000-000000000001';
    await cluster.pool.query(
      `INSERT INTO queen.retention_history (cycle_id, partition_id, kind, queue_name, partition_name, deleted, recorded_at)
       VALUES ($1, $2, 'retention', 'old', 'p', 1, now() - interval '3 days')`, [cycle, partitionUuid('old', 'p')]);
    const left = async () => (await cluster.pool.query('SELECT 1 FROM queen.retention_history WHERE cycle_id = $1', [cycle])).rowCount;
    for (let i = 0; i < 40 && (await left()) !== 0; i++) await sleep(250);
    assert.equal(await left(), 0);
    assert.deepEqual(warnings(/ctid/), []);
  });

  test('a function file re-applied at start-up does not put the single-PostgreSQL body back over its Citus override', async () => {
    await cluster.pool.query(`UPDATE queen.function_files SET checksum = 'changed' WHERE name = 'segment_at.sql'`);
    await broker.stop();
    await start();
    const language = await cluster.pool.query<{ lang: string }>(
      `SELECT l.lanname AS lang FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.oid = 'queen.segment_at(uuid, bigint)'::regprocedure`);
    assert.equal(language.rows[0]!.lang, 'plpgsql');
    const seek = await api.post('/api/v1/consumer-groups/after-restart/queues/seeks/seek', { toEnd: true });
    assert.equal(seek.status, 200, seek.text);
  });
});
