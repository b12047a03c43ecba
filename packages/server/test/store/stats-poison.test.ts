/**
 * Metrics poisoning (issue 13 item 2; docs/api.md 7.8, 7.10): counters are keyed only by names that passed
 * validation, and one counter row the database refuses never holds back the others. A pushed item with an
 * invalid queue name used to key a counter row whose name PostgreSQL cannot store; from then on every stats
 * flush failed (22P05) and was retried for up to 24 h, so no queue's counters were written.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { PrometheusFamilies } from '../../src/metrics/prometheus.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { SystemSampler } from '../../src/metrics/system.js';
import { NO_QUEUE, emptyCounters } from '../../src/metrics/ops.js';
import { StatsService } from '../../src/services/stats.js';
import { Store } from '../../src/store/index.js';
import { useSqlSessions } from '../support/hot-path.js';

const sql = useSqlSessions();

function families(): PrometheusFamilies {
  return new PrometheusFamilies({
    database: async () => null, parkedByQueue: () => new Map(), pool: () => ({ total: 1, idle: 1, waiting: 0 }),
    bufferedMessages: () => 0, bufferState: () => 'idle', bufferBytes: () => ({ bytes: 0, maxBytes: 1 }), maintenance: () => ({ push: false, pop: false }),
  });
}

function service(recorder: Recorder): StatsService {
  const sampler = new SystemSampler({ pool: () => ({ total: 1, idle: 1, waiting: 0 }), parkedPops: () => 0, inflightRequests: () => 0 });
  return new StatsService({ intervalMs: 3_600_000, metricsRetentionDays: 90 }, pino({ level: 'silent' }), {
    store: new Store(sql.pool), identity: { serverId: 'poison-test', hostname: 'h', pid: 1, port: 1 }, recorder, sampler,
  });
}

async function pushCounted(queue: string): Promise<number> {
  const r = await sql.pool.query<{ n: string }>('SELECT coalesce(sum(push_messages), 0)::text AS n FROM queen.stats_counters WHERE queue_name = $1', [queue]);
  return Number(r.rows[0]!.n);
}

test('a failed push item with an unstorable queue name is counted under no queue, not under its name', () => {
  const recorder = new Recorder(families());
  recorder.pushed([{ status: 'failed', queue: 'a\u0000', partition: 'Default', transactionId: null, error: 'Invalid queue name' }]);
  recorder.pushed([{ status: 'failed', queue: 'x'.repeat(300), partition: 'Default', transactionId: null, error: 'Invalid queue name' }]);
  const rows = recorder.ops.drain();
  assert.deepEqual(rows.map((r) => [r.queue, r.pushRequests]), [[NO_QUEUE, 2]]);
});

test('one counter row the database refuses is dropped and counted; the other queues\u2019 counters are written', async () => {
  const recorder = new Recorder(families());
  const stats = service(recorder);
  const bucket = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
  // A row as an older broker (or any future bug) could have keyed it: the database cannot store its name.
  recorder.ops.restore([{ bucket, queue: 'poison\u0000', ...emptyCounters(), pushMessages: 1 }]);
  recorder.written('healthy-a', 3);
  recorder.written('healthy-b', 4);
  const result = await stats.runNow();
  assert.ok('system' in result && result.system.ok, JSON.stringify(result));
  assert.equal(await pushCounted('healthy-a'), 3);
  assert.equal(await pushCounted('healthy-b'), 4);
  assert.equal(stats.droppedRows, 1);
  // The bad row is gone for good: the next flush writes new counters at once.
  recorder.written('healthy-a', 2);
  await stats.runNow();
  assert.equal(await pushCounted('healthy-a'), 5);
  assert.equal(stats.droppedRows, 1);
});
