/**
 * The analytics routes and status/analytics (docs/api.md 7.10) over traffic this file generates on its own
 * database with two broker processes: exact keys, numbers equal to the traffic, per-process filters, bucket
 * widths, system samples, parked pops per replica, the retention shape and PostgreSQL statistics.
 *
 * STATS_INTERVAL_MS=500: the first test waits for the periodic flush; the others call the refresh route of
 * the broker whose counters they need (a refresh flushes that process's counters only).
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, test } from 'node:test';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { ackAll, popOk, pushIds, refresh, waitFor, type Api } from '../support/monitoring.js';

const SETTINGS = { STATS_INTERVAL_MS: '500', QUEEN_HEARTBEAT_INTERVAL_MS: '200' };
const MINUTE = 60_000;
const DAY = 24 * 3600_000;

let db: TestDatabase;
let brokerA: BrokerProcess;
let brokerB: BrokerProcess;
let a: Api;
let b: Api;

before(async () => {
  db = await createDatabase();
  brokerA = await startBroker(db, { ...SETTINGS, SERVER_ID: 'an-a' });
  brokerB = await startBroker(db, { ...SETTINGS, SERVER_ID: 'an-b' });
  a = client(brokerA.url);
  b = client(brokerB.url);
});
after(async () => {
  await Promise.all([brokerA?.stop(), brokerB?.stop()]);
  await db?.close();
});

/** Sums `key` over the rows (a burst of traffic may straddle a minute boundary). */
const sum = (rows: any[], key: string): number => rows.reduce((total, row) => total + row[key], 0);

describe('GET /api/v1/analytics/worker-metrics', () => {
  test('the periodic flush brings counters to the database without a refresh', async () => {
    const queue = uniqueQueue('an-flush');
    await pushIds(a, queue, ['f1', 'f2', 'f3']);
    const body = await waitFor(async () => (await a.get('/api/v1/analytics/worker-metrics?workerId=an-a')).json,
      (m) => m.queues.some((q: any) => q.queue === queue && q.pushMessages === 3));
    assert.ok(body.summary.pushMessages >= 3);
  });

  test('exact keys; per-process series, workers, queues and summary equal to the traffic', async () => {
    const queue = uniqueQueue('an-work');
    await pushIds(b, queue, ['w1', 'w2']);
    await pushIds(b, queue, ['w3']);
    const popped = await popOk(b, `/api/v1/pop/queue/${queue}`, 'batch=3');
    await ackAll(b, popped, ['completed', 'completed', 'failed']);
    const tx = await b.post('/api/v1/transaction', { operations: [{ type: 'push', items: [{ queue: uniqueQueue('an-tx'), payload: {} }] }] });
    assert.equal(tx.status, 200, tx.text);
    assert.equal(tx.json.success, true, tx.text);
    await refresh(b);

    const res = await a.get('/api/v1/analytics/worker-metrics?workerId=an-b');
    assert.equal(res.status, 200);
    const body = res.json;
    assert.deepEqual(Object.keys(body), ['timeRange', 'bucketMinutes', 'pointCount', 'timeSeries', 'workers', 'queues', 'summary']);
    assert.equal(body.bucketMinutes, 1);
    // The minutes in which the process counted (it started seconds ago), not the 61 buckets of the hour.
    assert.ok(body.pointCount >= 1 && body.pointCount <= 3, `pointCount ${body.pointCount}`);
    assert.equal(body.timeSeries.length, body.pointCount);
    assert.deepEqual(Object.keys(body.timeSeries[0]), ['timestamp', 'pushRequests', 'pushMessages', 'popRequests', 'popMessages',
      'ackRequests', 'ackMessages', 'transactions', 'errors']);
    const series = body.timeSeries;
    assert.deepEqual(
      ['pushRequests', 'pushMessages', 'popRequests', 'popMessages', 'ackRequests', 'ackMessages', 'transactions', 'errors'].map((k) => sum(series, k)),
      [2, 3, 1, 3, 1, 3, 1, 0],
    );
    assert.deepEqual(body.workers.map((w: any) => [w.workerId, w.hostname, w.pid]), [['an-b', os.hostname(), brokerB.process.pid]]);
    assert.deepEqual(body.queues, [{ queue, pushMessages: 3, popMessages: 3, ackMessages: 3 }]);
    assert.deepEqual(body.summary, { pushMessages: 3, popMessages: 3, ackMessages: 3, errors: 0 });
  });

  test('filters: another worker id sees none of it; the hostname sees both processes', async () => {
    const none = (await a.get('/api/v1/analytics/worker-metrics?workerId=no-such-worker')).json;
    assert.deepEqual([none.workers, none.queues, none.summary], [[], [], { pushMessages: 0, popMessages: 0, ackMessages: 0, errors: 0 }]);
    assert.equal(none.pointCount, 0, 'no process of that id counted: no bucket (a gap), not 61 zeros');
    const host = (await a.get(`/api/v1/analytics/worker-metrics?hostname=${encodeURIComponent(os.hostname())}`)).json;
    assert.deepEqual(host.workers.map((w: any) => w.workerId), ['an-a', 'an-b']);
    const other = (await a.get('/api/v1/analytics/worker-metrics?hostname=no-such-host')).json;
    assert.deepEqual(other.workers, []);
  });
});

describe('GET /api/v1/analytics/queue-lag and queue-ops', () => {
  test('queue-lag: delivered messages per bucket and queue, lag = pop time - createdAt', async () => {
    const queue = uniqueQueue('an-lag');
    await pushIds(a, queue, ['l1', 'l2']);
    await new Promise((r) => setTimeout(r, 400)); // the lag under test: the messages wait 400 ms
    await popOk(a, `/api/v1/pop/queue/${queue}`, 'batch=2&autoAck=true');
    await refresh(a);
    const rows = (await a.get(`/api/v1/analytics/queue-lag?queue=${queue}`)).json;
    assert.ok(Array.isArray(rows));
    assert.equal(rows.length, 1);
    assert.deepEqual(Object.keys(rows[0]), ['timestamp', 'queue', 'popMessages', 'avgLagMs', 'maxLagMs']);
    assert.equal(rows[0].queue, queue);
    assert.equal(rows[0].popMessages, 2);
    assert.ok(rows[0].avgLagMs >= 400 && rows[0].avgLagMs < 5000, `avg ${rows[0].avgLagMs}`);
    assert.equal(rows[0].maxLagMs, rows[0].avgLagMs, 'one segment: one createdAt, one lag');
    assert.equal(Date.parse(rows[0].timestamp) % MINUTE, 0);
  });

  test('queue-ops: every operation of one queue, summed over both processes', async () => {
    const queue = uniqueQueue('an-ops');
    await pushIds(a, queue, ['o1', 'o2']);
    await pushIds(b, queue, ['o3']);
    const popped = await popOk(b, `/api/v1/pop/queue/${queue}`, 'batch=3');
    await ackAll(a, popped, ['completed', 'dlq', 'failed']);
    await refresh(a);
    await refresh(b);
    const rows = (await a.get(`/api/v1/analytics/queue-ops?queue=${queue}`)).json;
    assert.ok(rows.length >= 1 && rows.length <= 2);
    assert.deepEqual(Object.keys(rows[0]), ['timestamp', 'queue', 'pushRequests', 'pushMessages', 'popRequests', 'popMessages',
      'ackRequests', 'ackMessages', 'ackFailed', 'transactions', 'dlqMoved']);
    const keys = ['pushRequests', 'pushMessages', 'popRequests', 'popMessages', 'ackRequests', 'ackMessages', 'ackFailed', 'transactions', 'dlqMoved'];
    assert.deepEqual(keys.map((k) => sum(rows, k)), [2, 3, 1, 3, 1, 3, 1, 0, 1]);
    const all = (await a.get('/api/v1/analytics/queue-ops')).json;
    assert.ok(new Set(all.map((r: any) => r.queue)).size > 1, 'without the filter: every queue');
    assert.ok(all.every((r: any) => r.queue !== ''), 'rows that belong to no queue are not listed');
  });
});

describe('GET /api/v1/analytics/system-metrics', () => {
  test('one replica per process with its samples per bucket; hostname and workerId filters', async () => {
    await refresh(a);
    await refresh(b);
    const body = (await a.get('/api/v1/analytics/system-metrics')).json;
    assert.deepEqual(Object.keys(body), ['timeRange', 'replicas', 'replicaCount', 'aliveCount', 'bucketMinutes']);
    assert.equal(body.bucketMinutes, 1);
    assert.equal(body.replicaCount, body.replicas.length);
    const replica = body.replicas.find((r: any) => r.workerId === 'an-b');
    assert.ok(replica, JSON.stringify(body.replicas.map((r: any) => r.workerId)));
    assert.deepEqual(Object.keys(replica), ['hostname', 'port', 'workerId', 'alive', 'timeSeries']);
    assert.equal(replica.alive, true);
    assert.deepEqual([replica.hostname, replica.port], [os.hostname(), brokerB.port]);
    const point = replica.timeSeries[replica.timeSeries.length - 1];
    assert.deepEqual(Object.keys(point), ['timestamp', 'sampleCount', 'metrics']);
    assert.ok(point.sampleCount >= 1);
    assert.deepEqual(Object.keys(point.metrics), ['cpu', 'memory', 'database', 'eventLoop', 'registries']);
    assert.deepEqual(Object.keys(point.metrics.cpu), ['userPercent', 'systemPercent']);
    assert.deepEqual(Object.keys(point.metrics.memory), ['rss', 'heapUsed']);
    assert.deepEqual(Object.keys(point.metrics.database), ['poolSize', 'idle', 'active', 'waiting']);
    assert.deepEqual(Object.keys(point.metrics.eventLoop), ['lagMs']);
    assert.deepEqual(Object.keys(point.metrics.registries), ['parkedPops', 'inflightRequests']);
    assert.ok(point.metrics.memory.rss > point.metrics.memory.heapUsed && point.metrics.memory.heapUsed > 0);
    assert.ok(point.metrics.cpu.userPercent >= 0 && point.metrics.eventLoop.lagMs >= 0);
    assert.ok(point.metrics.database.poolSize >= point.metrics.database.idle);
    const only = (await a.get('/api/v1/analytics/system-metrics?workerId=an-a')).json;
    assert.deepEqual(only.replicas.map((r: any) => r.workerId), ['an-a']);
    const none = (await a.get('/api/v1/analytics/system-metrics?hostname=no-such-host')).json;
    assert.deepEqual([none.replicas, none.replicaCount], [[], 0]);
  });

  test('a stopped broker keeps its samples in the range but is marked alive: false and not counted in aliveCount', async () => {
    // A 1 s heartbeat: alive means a beat within 3 intervals, and 0.6 s is too tight on a loaded machine.
    const brokerC = await startBroker(db, { ...SETTINGS, QUEEN_HEARTBEAT_INTERVAL_MS: '1000', SERVER_ID: 'an-c' });
    try {
      await refresh(client(brokerC.url));
      const before = await waitFor(async () => (await a.get('/api/v1/analytics/system-metrics')).json,
        (m) => m.replicas.some((r: any) => r.workerId === 'an-c' && r.alive === true));
      assert.ok(before.aliveCount >= 1);
    } finally {
      await brokerC.stop();
    }
    const after = (await a.get('/api/v1/analytics/system-metrics')).json;
    const c = after.replicas.find((r: any) => r.workerId === 'an-c');
    assert.ok(c !== undefined && c.timeSeries.length >= 1, 'its samples stay in the range');
    assert.equal(c.alive, false);
    assert.equal(after.aliveCount, after.replicas.filter((r: any) => r.alive).length);
    assert.ok(after.replicaCount > after.aliveCount);
  });
});

describe('GET /api/v1/analytics/queue-parked-replicas', () => {
  test('parked pops per queue and live process, as of its last heartbeat', async () => {
    const queue = uniqueQueue('an-park');
    const parked = b.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=10000`);
    const rows = await waitFor(async () => (await a.get(`/api/v1/analytics/queue-parked-replicas?queue=${queue}`)).json, (r) => r.length === 1);
    assert.deepEqual(Object.keys(rows[0]), ['queue', 'serverId', 'parked', 'updatedAt']);
    assert.deepEqual([rows[0].queue, rows[0].serverId, rows[0].parked], [queue, 'an-b', 1]);
    assert.ok(Date.now() - Date.parse(rows[0].updatedAt) < 5000);
    await pushIds(a, queue, ['wake']);
    assert.equal((await parked).status, 200);
    await waitFor(async () => (await a.get(`/api/v1/analytics/queue-parked-replicas?queue=${queue}`)).json, (r) => r.length === 0);
  });
});

describe('GET /api/v1/analytics/retention and postgres-stats', () => {
  test('retention: nothing removed on this database: the shape, empty, with the page used', async () => {
    assert.deepEqual((await a.get('/api/v1/analytics/retention')).json, { history: [], total: 0, pagination: { limit: 100, offset: 0 } });
    assert.deepEqual((await a.get('/api/v1/analytics/retention?limit=5&offset=10')).json.pagination, { limit: 5, offset: 10 });
  });

  test('postgres-stats: every key of docs/api.md 7.10, in order, restricted to schema queen', async () => {
    const body = (await a.get('/api/v1/analytics/postgres-stats')).json;
    assert.deepEqual(Object.keys(body), ['timestamp', 'database', 'databaseCache', 'tableCache', 'indexCache', 'cacheSummary',
      'deadTuples', 'hotUpdates', 'activeQueries', 'autovacuumStatus', 'bufferConfig', 'bufferUsage', 'tableSizes']);
    assert.equal(body.database.name, db.name);
    assert.ok(body.database.sizeBytes > 0);
    const queenTables = (await db.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'queen' ORDER BY 1`)).rows.map((r) => r.tablename);
    assert.deepEqual(body.tableSizes.map((t: any) => t.table).sort(), queenTables);
    assert.deepEqual(body.tableCache.map((t: any) => t.table), queenTables);
    assert.ok(queenTables.includes('segments') && queenTables.includes('stats_counters'));
    assert.ok(body.indexCache.some((i: any) => i.table === 'segments'));
    assert.deepEqual(Object.keys(body.tableSizes[0]), ['table', 'totalBytes', 'tableBytes', 'indexBytes', 'toastBytes', 'totalSize', 'rowEstimate']);
    assert.ok(Array.isArray(body.activeQueries) && Array.isArray(body.bufferUsage) && Array.isArray(body.autovacuumStatus));
    assert.match(body.bufferConfig.sharedBuffers, /^\d+\s?[kMG]B$/);
  });
});

describe('GET /api/v1/status/analytics', () => {
  test('hourly by default over the last 24 h; ingested, processed, failed and dead-lettered per bucket', async () => {
    const queue = uniqueQueue('an-sa');
    await pushIds(a, queue, ['s1', 's2', 's3']);
    const popped = await popOk(a, `/api/v1/pop/queue/${queue}`, 'batch=3');
    await ackAll(a, popped, ['completed', 'dlq', 'failed']);
    await refresh(a);
    const body = (await a.get(`/api/v1/status/analytics?queue=${queue}`)).json;
    assert.deepEqual(Object.keys(body), ['dataPoints', 'interval', 'from', 'to']);
    assert.equal(body.interval, 'hour');
    assert.equal(Date.parse(body.to) - Date.parse(body.from), DAY);
    assert.ok(body.dataPoints.length >= 1 && body.dataPoints.length <= 2, 'the hours in which a broker counted, not 25 buckets of zeros');
    assert.deepEqual(Object.keys(body.dataPoints[0]), ['timestamp', 'messages']);
    assert.deepEqual(Object.keys(body.dataPoints[0].messages), ['ingested', 'processed', 'failed', 'deadLetter']);
    const messages = body.dataPoints.map((p: any) => p.messages);
    assert.deepEqual(['ingested', 'processed', 'failed', 'deadLetter'].map((k) => sum(messages, k)), [3, 1, 1, 1]);
    for (let i = 1; i < body.dataPoints.length; i += 1) {
      assert.equal(Date.parse(body.dataPoints[i].timestamp) - Date.parse(body.dataPoints[i - 1].timestamp), 3600_000);
    }
  });

  test('minute and day intervals; an unknown interval is hourly', async () => {
    const to = new Date();
    const minutes = (await a.get(`/api/v1/status/analytics?interval=minute&from=${new Date(to.getTime() - 10 * MINUTE).toISOString()}&to=${to.toISOString()}`)).json;
    assert.equal(minutes.interval, 'minute');
    assert.ok(minutes.dataPoints.length >= 1 && minutes.dataPoints.length <= 3, `${minutes.dataPoints.length} minutes`);
    for (const p of minutes.dataPoints) assert.equal(Date.parse(p.timestamp) % MINUTE, 0);
    const days = (await a.get(`/api/v1/status/analytics?interval=day&from=${new Date(to.getTime() - 3 * DAY).toISOString()}`)).json;
    assert.equal(days.interval, 'day');
    assert.ok(days.dataPoints.length >= 1 && days.dataPoints.length <= 2);
    assert.match(days.dataPoints[0].timestamp, /T00:00:00\.000Z$/);
    assert.equal((await a.get('/api/v1/status/analytics?interval=fortnight')).json.interval, 'hour');
  });
});
