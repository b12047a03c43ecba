/**
 * Moving a live deployment to another PostgreSQL online (docs/operations.md "Moving to another PostgreSQL"):
 * two brokers on a source with wal_level=logical, under push/pop/ack load, move to a second server by
 * POST /api/v1/migration/start. Nothing acknowledged is lost, nothing is acked twice, order holds per
 * partition, both brokers end on the target without a restart (pg_stat_activity on both servers), and the
 * pause is measured; DLQ entries, cursors, subscriptions, traces, retention history and stream state arrive as they were.
 * Then the refusals: a second move (409), unreachable, not empty, bad bodies.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { client, uniqueQueue, type BrokerProcess } from '../support/harness.js';
import { MovePair } from '../support/move-pair.js';
import { assertNothingLost, startLoad } from '../support/move-load.js';
import type { SystemPostgres } from '../support/system-postgres.js';

const move = new MovePair({ brokers: 2, env: { DB_CONNECT_TIMEOUT_MS: '2000' } });
const { sessions } = MovePair;

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}\n${move.brokers.map((b) => b.output().slice(-2000)).join('\n---\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The state besides messages that a move must carry, in a queue of its own that nothing touches afterwards. */
const CARRIED = [
  ['queen.dead_letters', 'dead-letter entry'],
  ['queen.cursors', 'consumer-group cursor'],
  ['queen.subscriptions', 'subscription record'],
  ['queen.traces', 'trace event'],
  ['queen.retention_history', 'retention history row'],
  ['queen_streams.queries', 'stream query'],
  ['queen_streams.state', 'stream state'],
] as const;

/**
 * Writes one of each through the broker (DLQ, a named group's cursor and its subscription, a trace) or, for
 * what only a background job or a stream step writes, straight into the source's tables.
 */
async function seedCarriedState(brokerUrl: string): Promise<string> {
  const queue = uniqueQueue('carried');
  const api = client(brokerUrl);
  assert.equal((await api.push([{ queue, partition: 'p', transactionId: 'c-1', payload: { n: 1 } }, { queue, partition: 'p', transactionId: 'c-2', payload: { n: 2 } }])).status, 201);
  const partitionId: string = (await move.source.sql(`SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1`, [queue])).rows[0].id;
  const traced = await api.post('/api/v1/traces', { transactionId: 'c-1', partitionId, data: { step: 'seen' }, traceNames: ['carried'] });
  assert.equal(traced.status, 201, traced.text);
  const moved = await api.post(`/api/v1/messages/${partitionId}/c-1/dlq`);
  assert.equal(moved.json.success, true, moved.text);
  // A group subscribing from now records its subscription on its first attempt (nothing to deliver yet).
  assert.equal((await api.get(`/api/v1/pop/queue/${queue}?consumerGroup=late&subscriptionMode=new`)).status, 204);
  const popped = await api.get(`/api/v1/pop/queue/${queue}?consumerGroup=carried&batch=1`);
  assert.equal(popped.status, 200, popped.text);
  const acked = await api.post('/api/v1/ack', { transactionId: popped.json.messages[0].transactionId, partitionId, leaseId: popped.json.leaseId, consumerGroup: 'carried', status: 'completed' });
  assert.equal(acked.status, 200, acked.text);
  await move.source.sql(`INSERT INTO queen.retention_history (cycle_id, partition_id, kind, queue_name, partition_name, deleted) VALUES (gen_random_uuid(), $1, 'retention', $2, 'p', 3)`, [partitionId, queue]);
  await move.source.sql(`WITH q AS (INSERT INTO queen_streams.queries (id, name, source_queue, config_hash) VALUES (gen_random_uuid(), $1, $1, 'h') RETURNING id)
                    INSERT INTO queen_streams.state (query_id, partition_id, key, value) SELECT id, $2, 'k', '{"sum": 3}' FROM q`, [queue, partitionId]);
  return partitionId;
}

/** Every carried row the source held when it was fenced is on the target, unchanged. */
async function assertCarriedState(partitionId: string): Promise<void> {
  for (const [table, what] of CARRIED) {
    const column = table === 'queen_streams.queries' ? 'id IN (SELECT query_id FROM queen_streams.state WHERE partition_id = $1)'
      : table === 'queen.subscriptions' ? 'queue_id = (SELECT queue_id FROM queen.partitions WHERE id = $1)' : 'partition_id = $1';
    const rows = async (server: SystemPostgres) => (await server.sql(`SELECT t::text AS row FROM ${table} t WHERE ${column} ORDER BY 1`, [partitionId])).rows.map((r) => r.row);
    const before = await rows(move.source);
    assert.ok(before.length > 0, `the source holds a ${what}`);
    assert.deepEqual(await rows(move.target), before, `the ${what} is on the target as it was`);
  }
}

test('bad bodies are 400; an unreachable or non-empty target is 422; test-connection names the version', async () => {
  const api = client(move.brokers[0]!.url);
  assert.deepEqual([(await api.post('/api/v1/migration/start', { port: 1 })).status], [400]);
  assert.equal((await api.post('/api/v1/migration/start', { ...move.targetBody(), mode: 'sideways' })).json.error, 'mode must be "online" or "offline"');
  const unreachable = await api.post('/api/v1/migration/start', { ...move.targetBody(), port: 1 });
  assert.equal(unreachable.status, 422, unreachable.text);
  assert.match(unreachable.json.error, /^target 127\.0\.0\.1:1\/postgres is unreachable: /);
  await api.push([{ queue: uniqueQueue('seed'), payload: { n: 1 } }]);
  const full = await api.post('/api/v1/migration/start', { ...move.targetBody(), port: move.source.port });
  assert.equal(full.status, 422, full.text);
  assert.equal(full.json.error, 'target database is not empty: it holds queues or messages; use an empty database');
  const tested = await api.post('/api/v1/migration/test-connection', move.targetBody());
  assert.equal(tested.status, 200, tested.text);
  assert.equal(tested.json.success, true);
  assert.match(tested.json.version, /^15\./);
  assert.deepEqual([tested.json.empty, tested.json.online, tested.json.sourceWalLevel], [true, true, 'logical']);
  const failed = await api.post('/api/v1/migration/test-connection', { ...move.targetBody(), password: 'wrong' });
  assert.equal(failed.json.success, false);
  assert.equal((await api.get('/api/v1/migration/status')).json.status, 'idle');
});

test('two brokers under load move online: nothing lost or acked twice, order kept, both follow without a restart', async (t) => {
  const queue = uniqueQueue('move');
  const [a, b] = move.brokers as [BrokerProcess, BrokerProcess];
  const carried = await seedCarriedState(a.url);
  const pids = move.brokers.map((broker) => broker.process.pid);
  assert.equal((await client(a.url).post('/api/v1/configure', { queue, options: { leaseTime: 3 } })).status, 200);
  const load = startLoad({
    queue,
    partitions: [{ name: 'p1', broker: a.url }, { name: 'p2', broker: a.url }, { name: 'p3', broker: b.url }, { name: 'p4', broker: b.url }],
    consumers: [a.url, b.url],
  });
  await until(async () => load.pushStatuses.length >= 100, 'the load runs');
  const startedAt = Date.now();
  const started = await client(a.url).post('/api/v1/migration/start', move.targetBody());
  assert.equal(started.status, 202, started.text);
  assert.equal(started.json.status, 'preparing');
  const second = await client(b.url).post('/api/v1/migration/start', move.targetBody());
  assert.equal(second.status, 409, second.text);
  assert.match(second.json.error, /^a migration is already under way/);
  const phases = new Set<string>();
  await until(async () => {
    const status = (await client(b.url).get('/api/v1/migration/status')).json;
    phases.add(status.status);
    assert.notEqual(status.status, 'error', JSON.stringify(status));
    return status.status === 'complete';
  }, 'the move completes');
  let status: { status: string; progress: { pauseMs: number } } | undefined;
  await until(async () => (status = (await client(a.url).get('/api/v1/migration/status')).json).status === 'complete', 'the other broker reports the move complete');
  t.diagnostic(`phases seen ${[...phases].join(' > ')}; move took ${Date.now() - startedAt} ms; driver's pause ${status!.progress.pauseMs} ms`);
  await move.everyBrokerOnTarget();
  await until(async () => load.pushStatuses.filter((s) => s.at > Date.now() - 1000 && s.status === 'queued').length > 10, 'pushes are committed on the target');
  await new Promise((r) => setTimeout(r, 1000));
  await load.finish(60_000);
  assertNothingLost(load);
  const bufferedAt = load.pushStatuses.filter((s) => s.status === 'buffered').map((s) => s.at);
  const pushGap = bufferedAt.length === 0 ? 0 : Math.max(...bufferedAt) - Math.min(...bufferedAt);
  const popGap = load.longestGap(load.popAnswers.map((s) => ({ at: s.at, ok: s.status === 200 || s.status === 204 })));
  const buffered = load.pushStatuses.filter((s) => s.status === 'buffered').length;
  t.diagnostic(`pushes: ${load.pushStatuses.length} all 201, ${buffered} buffered; pushes answered buffered for ${pushGap} ms; longest pop pause ${popGap} ms`);
  assert.ok(popGap < 10_000, `pops back within 10 s (${popGap} ms)`);
  assert.deepEqual(await sessions(move.source), [], 'no broker session on the source');
  const onTarget = await sessions(move.target);
  for (const pid of pids) assert.ok(onTarget.some((name) => name.endsWith(`:${pid}`)), `broker ${pid} works on the target (${onTarget.join(', ')})`);
  assert.deepEqual(move.brokers.map((broker) => [broker.process.pid, broker.process.exitCode]), pids.map((pid) => [pid, null]), 'no broker restarted');
  // The source is fenced: a write there fails; the target has no subscription left.
  await assert.rejects(move.source.sql(`INSERT INTO queen.database_move_marker (token) VALUES (gen_random_uuid()) ON CONFLICT (singleton) DO UPDATE SET token = EXCLUDED.token`), /read-only transaction/);
  assert.equal((await move.target.sql(`SELECT count(*)::int AS n FROM pg_subscription`)).rows[0].n, 0);
  await assertCarriedState(carried);
  const validation = await client(a.url).post('/api/v1/migration/validate');
  assert.equal(validation.status, 200, validation.text);
  assert.ok(validation.json.tables.some((row: { table: string }) => row.table === 'queen.segments'));
  const reset = await client(a.url).post('/api/v1/migration/reset');
  assert.deepEqual([reset.status, reset.json.status], [200, 'idle']);
});
