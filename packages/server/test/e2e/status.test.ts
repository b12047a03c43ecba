/**
 * The status routes (docs/api.md 7.10) and the stats refresh (docs/api.md 7.8), over traffic this file generates on
 * its own database: exact response keys, counts that follow the rules of docs/api.md 7.2 and 7.4, per-minute
 * counters flushed by `POST /api/v1/stats/refresh`, filters, bucket sizes, and the refresh skipped while
 * another session holds the stats lock.
 *
 * The traffic (all in `before`):
 *   st.alpha  P1: a1..a4 (one push); queue mode pops a1..a3 (lease) and acks a1, a2 completed.
 *             P2: b1, b2 (one push); group g1 pops b1 and acks it `failed` (retry counter 1, lease released).
 *   st.beta   c1; queue mode pops it and acks it `dlq` with error "boom".
 *   zz.other  o1, never consumed.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, test } from 'node:test';
import pg from 'pg';
import { STATS_LOCK_KEY } from '../../src/services/stats.js';
import { serverConnection, useBroker } from '../support/harness.js';
import { ackAll, popOk, pushIds, refresh } from '../support/monitoring.js';

const SERVER_ID = 'status-a';
const ALPHA = 'st.alpha';
const BETA = 'st.beta';
const OTHER = 'zz.other';
const HOUR = 3600_000;

const setup = useBroker({ SERVER_ID, STATS_INTERVAL_MS: '3600000' }, async ({ api }) => {
  await pushIds(api, ALPHA, ['a1', 'a2', 'a3', 'a4'], 'P1');
  await pushIds(api, ALPHA, ['b1', 'b2'], 'P2');
  const p1 = await popOk(api, `/api/v1/pop/queue/${ALPHA}/partition/P1`, 'batch=3');
  await ackAll(api, p1, ['completed', 'completed']);
  const p2 = await popOk(api, `/api/v1/pop/queue/${ALPHA}/partition/P2`, 'batch=1&consumerGroup=g1');
  await ackAll(api, p2, ['failed']);
  await pushIds(api, BETA, ['c1']);
  const beta = await popOk(api, `/api/v1/pop/queue/${BETA}`);
  await ackAll(api, beta, ['dlq'], { error: 'boom' });
  await pushIds(api, OTHER, ['o1']);
  await refresh(api);
});

const sum = (points: any[], key: string): number => points.reduce((total, p) => total + p[key], 0);

describe('GET /api/v1/status', () => {
  test('exact keys, a one-hour range in 1-minute buckets by default, this broker among the workers', async () => {
    const res = await setup.api.get('/api/v1/status');
    assert.equal(res.status, 200);
    const body = res.json;
    assert.deepEqual(Object.keys(body), ['timeRange', 'bucketMinutes', 'pointCount', 'throughput', 'queues', 'messages', 'leases',
      'deadLetterQueue', 'workers', 'errors', 'pendingHistory', 'statsAge']);
    assert.deepEqual(Object.keys(body.timeRange), ['from', 'to']);
    assert.equal(Date.parse(body.timeRange.to) - Date.parse(body.timeRange.from), HOUR);
    assert.equal(body.bucketMinutes, 1);
    // Only the minutes in which a broker was counting (this one started moments ago): none before it (gaps, not
    // zeros), at most the 61 one-minute buckets of the hour.
    assert.ok(body.pointCount >= 1 && body.pointCount <= 3, `pointCount ${body.pointCount}`);
    assert.equal(body.throughput.length, body.pointCount);
    assert.deepEqual(Object.keys(body.throughput[0]), ['timestamp', 'ingested', 'processed', 'ingestedPerSecond', 'processedPerSecond', 'avgLagMs', 'maxLagMs']);
    assert.ok(Date.parse(body.throughput[0].timestamp) >= Math.floor((Date.now() - 120_000) / 60_000) * 60_000, 'no bucket before the broker started');
    for (let i = 1; i < body.throughput.length; i += 1) {
      assert.equal(Date.parse(body.throughput[i].timestamp) - Date.parse(body.throughput[i - 1].timestamp), 60_000);
    }
    assert.deepEqual(Object.keys(body.messages), ['total', 'pending', 'processing', 'completed', 'failed', 'deadLetter', 'requests', 'batchEfficiency']);
    assert.deepEqual(Object.keys(body.leases), ['active', 'partitionsWithLeases', 'totalBatchSize', 'totalAcked']);
    assert.deepEqual(Object.keys(body.deadLetterQueue), ['totalMessages', 'affectedPartitions', 'topErrors']);
    assert.deepEqual(Object.keys(body.errors), ['dbErrors', 'ackFailed', 'dlqMessages']);
    assert.equal(body.statsAge, 0);
    assert.deepEqual(body.workers.map((w: any) => Object.keys(w)), [['workerId', 'hostname', 'pid', 'lastSeen']]);
    assert.deepEqual(body.workers.map((w: any) => [w.workerId, w.hostname, w.pid]), [[SERVER_ID, os.hostname(), setup.broker.process.pid]]);
    assert.ok(Date.now() - Date.parse(body.workers[0].lastSeen) < 15_000);
  });

  test('unfiltered: every queue, its counts, the traffic of this file and the DLQ', async () => {
    const body = (await setup.api.get('/api/v1/status')).json;
    assert.deepEqual(body.queues.map((q: any) => [q.name, q.namespace, q.task, q.partitions, q.totalConsumed]), [
      [OTHER, 'zz', 'other', 1, 0],
      [BETA, 'st', 'beta', 1, 1], // the dlq ack moved the cursor past c1
      [ALPHA, 'st', 'alpha', 2, 2],
    ]);
    assert.deepEqual(Object.keys(body.queues[0]), ['id', 'name', 'namespace', 'task', 'partitions', 'totalConsumed']);
    const { requests, batchEfficiency, ...counts } = body.messages;
    // alpha {6, pending 3, processing 1, completed 2, failed 1}; beta c1 dead-lettered (completed, DLQ 1); other 1 pending.
    assert.deepEqual(counts, { total: 8, pending: 4, processing: 1, completed: 3, failed: 1, deadLetter: 1 });
    assert.deepEqual(requests, { push: 4, pop: 3, ack: 3 });
    assert.deepEqual(batchEfficiency, { push: 2, pop: 1.67, ack: 1.33 });
    assert.equal(sum(body.throughput, 'ingested'), 8);
    assert.equal(sum(body.throughput, 'processed'), 2, 'completed acks only');
    assert.deepEqual(body.errors, { dbErrors: 0, ackFailed: 1, dlqMessages: 1 });
    assert.deepEqual(body.deadLetterQueue, { totalMessages: 1, affectedPartitions: 1, topErrors: [{ error: 'boom', count: 1 }] });
    const busy = body.throughput.filter((p: any) => p.ingested > 0);
    assert.ok(busy.length >= 1 && busy.length <= 2, 'the traffic sits in the last minute or two');
    for (const p of busy) assert.equal(p.ingestedPerSecond, Number((p.ingested / 60).toFixed(3)));
    const popped = body.throughput.filter((p: any) => p.maxLagMs > 0);
    assert.ok(popped.length >= 1 && popped.every((p: any) => p.avgLagMs <= p.maxLagMs && p.maxLagMs < 60_000));
  });

  test('queue filter: only that queue\'s counts, traffic, leases and DLQ', async () => {
    const body = (await setup.api.get(`/api/v1/status?queue=${ALPHA}`)).json;
    assert.deepEqual(body.queues.map((q: any) => q.name), [ALPHA]);
    const { requests, batchEfficiency, ...counts } = body.messages;
    assert.deepEqual(counts, { total: 6, pending: 3, processing: 1, completed: 2, failed: 1, deadLetter: 0 });
    assert.deepEqual(requests, { push: 2, pop: 2, ack: 2 });
    assert.deepEqual(batchEfficiency, { push: 3, pop: 2, ack: 1.5 });
    assert.deepEqual(body.leases, { active: 1, partitionsWithLeases: 1, totalBatchSize: 1, totalAcked: null });
    assert.deepEqual(body.deadLetterQueue, { totalMessages: 0, affectedPartitions: 0, topErrors: [] });
    assert.deepEqual(body.errors, { dbErrors: 0, ackFailed: 1, dlqMessages: 0 });
    assert.equal(sum(body.throughput, 'ingested'), 6);
  });

  test('namespace and task filters', async () => {
    const st = (await setup.api.get('/api/v1/status?namespace=st')).json;
    assert.deepEqual(st.queues.map((q: any) => q.name), [BETA, ALPHA]);
    assert.equal(st.messages.total, 7);
    assert.deepEqual(st.messages.requests, { push: 3, pop: 3, ack: 3 });
    const beta = (await setup.api.get('/api/v1/status?namespace=st&task=beta')).json;
    assert.deepEqual(beta.queues.map((q: any) => q.name), [BETA]);
    assert.deepEqual(beta.deadLetterQueue.topErrors, [{ error: 'boom', count: 1 }]);
    assert.deepEqual(beta.errors, { dbErrors: 0, ackFailed: 0, dlqMessages: 1 });
    const none = (await setup.api.get('/api/v1/status?namespace=nothing-here')).json;
    assert.deepEqual(none.queues, []);
    assert.equal(none.messages.total, 0);
    assert.equal(sum(none.throughput, 'ingested'), 0);
  });

  test('bucket size follows the range: <= 2 h 1 min, <= 24 h 5 min, <= 7 d 60 min, longer 1440 min', async () => {
    const to = new Date();
    const cases: Array<[number, number]> = [[2 * HOUR, 1], [3 * HOUR, 5], [24 * HOUR, 5], [2 * 24 * HOUR, 60], [8 * 24 * HOUR, 1440]];
    for (const [span, minutes] of cases) {
      const from = new Date(to.getTime() - span);
      const body = (await setup.api.get(`/api/v1/status?from=${from.toISOString()}&to=${to.toISOString()}`)).json;
      assert.equal(body.bucketMinutes, minutes, `span ${span}`);
      const bucketMs = minutes * 60_000;
      // The broker counted only in the last minutes: one or two buckets, whatever the range.
      assert.ok(body.pointCount >= 1 && body.pointCount <= 2, `span ${span}: ${body.pointCount}`);
      assert.equal(Date.parse(body.throughput[0].timestamp) % bucketMs, 0, 'buckets are aligned');
      assert.equal(sum(body.throughput, 'ingested'), 8);
    }
  });
});

describe('GET /api/v1/status/queues', () => {
  test('newest queue first, counts of docs/api.md 7.2, pagination echoed', async () => {
    const res = await setup.api.get('/api/v1/status/queues');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json), ['queues', 'pagination']);
    assert.deepEqual(res.json.pagination, { limit: 100, offset: 0 });
    assert.deepEqual(Object.keys(res.json.queues[0]), ['id', 'name', 'namespace', 'task', 'createdAt', 'partitions', 'messages']);
    assert.deepEqual(res.json.queues.map((q: any) => [q.name, q.partitions, q.messages]), [
      [OTHER, 1, { total: 1, pending: 1, processing: 0 }],
      [BETA, 1, { total: 1, pending: 0, processing: 0 }],
      [ALPHA, 2, { total: 6, pending: 3, processing: 1 }],
    ]);
    assert.match(res.json.queues[0].createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test('namespace filter and a page of it', async () => {
    assert.deepEqual((await setup.api.get('/api/v1/status/queues?namespace=st')).json.queues.map((q: any) => q.name), [BETA, ALPHA]);
    const page = (await setup.api.get('/api/v1/status/queues?limit=1&offset=1')).json;
    assert.deepEqual(page.queues.map((q: any) => q.name), [BETA]);
    assert.deepEqual(page.pagination, { limit: 1, offset: 1 });
  });
});

describe('GET /api/v1/status/queues/:queue', () => {
  test('the queue, its configuration, each partition with counts, activity and cursor counters, the totals', async () => {
    const res = await setup.api.get(`/api/v1/status/queues/${ALPHA}`);
    assert.equal(res.status, 200);
    const body = res.json;
    assert.deepEqual(Object.keys(body), ['queue', 'partitions', 'totals', 'consumerGroups']);
    assert.deepEqual(Object.keys(body.queue), ['id', 'name', 'namespace', 'task', 'priority', 'createdAt', 'config']);
    assert.deepEqual(body.queue.config, {
      leaseTime: 60, retryLimit: 3, retryDelay: 0, ttl: 3600, maxQueueSize: 0, deadLetterQueue: false, dlqAfterMaxRetries: false,
      delayedProcessing: 0, windowBuffer: 0, minPopWaitTime: 0, retentionSeconds: 0, completedRetentionSeconds: 0,
      retentionEnabled: false, encryptionEnabled: false, maxWaitTimeSeconds: 0,
    });
    assert.deepEqual([body.queue.name, body.queue.namespace, body.queue.task, body.queue.priority], [ALPHA, 'st', 'alpha', 0]);
    assert.deepEqual(body.partitions.map((p: any) => Object.keys(p)), [0, 1].map(() =>
      ['id', 'name', 'createdAt', 'messages', 'stats', 'cursor', 'lastActivity', 'oldestMessage', 'newestMessage']));
    const [p1, p2] = body.partitions;
    assert.equal(p1.name, 'P1');
    assert.deepEqual(p1.messages, { total: 4, pending: 1, processing: 1, completed: 2, failed: 0, deadLetter: 0 });
    assert.deepEqual([p1.stats.pushedLastHour, p1.stats.consumedLastHour], [4, 2]);
    assert.ok(p1.stats.avgLagSeconds > 0 && p1.stats.avgLagSeconds < 60, `lag ${p1.stats.avgLagSeconds}`);
    assert.deepEqual(p1.cursor, { totalConsumed: 2, batchesConsumed: 1 });
    assert.equal(p2.name, 'P2');
    assert.deepEqual(p2.messages, { total: 2, pending: 2, processing: 0, completed: 0, failed: 1, deadLetter: 0 });
    assert.deepEqual([p2.stats.pushedLastHour, p2.stats.consumedLastHour], [2, 0]);
    assert.deepEqual(p2.cursor, { totalConsumed: 0, batchesConsumed: 1 });
    for (const p of body.partitions) {
      for (const key of ['createdAt', 'lastActivity', 'oldestMessage', 'newestMessage']) assert.match(p[key], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, key);
    }
    assert.deepEqual(body.totals, {
      messages: { total: 6, pending: 3, processing: 1, completed: 2, failed: 1, deadLetter: 0 },
      partitions: 2,
      consumerGroups: 2,
    });
    // Each group against its own cursors, a partition it has not touched counted from the start: queue mode has
    // a1, a2 done, a3 leased, a4 and P2's b1, b2 to come; g1 touched only P2 (b1 failed: back to pending).
    for (const g of body.consumerGroups) assert.ok(g.timeLagSeconds >= 0 && g.timeLagSeconds < 60, JSON.stringify(g));
    assert.deepEqual(body.consumerGroups.map((g: any) => ({ ...g, timeLagSeconds: 0 })), [
      { name: '__QUEUE_MODE__', completed: 2, processing: 1, pending: 3, partitions: 1, timeLagSeconds: 0 },
      { name: 'g1', completed: 0, processing: 0, pending: 6, partitions: 1, timeLagSeconds: 0 },
    ]);
  });

  test('a missing queue: 200, X-Queen-Status 404, {"error":"Queue not found"}', async () => {
    const res = await setup.api.get('/api/v1/status/queues/no-such-queue');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-queen-status'), '404');
    assert.deepEqual(res.json, { error: 'Queue not found' });
  });
});

describe('GET /api/v1/status/queues/:queue/messages', () => {
  test('a bare array, newest first, with the status of docs/api.md 7.4', async () => {
    const res = await setup.api.get(`/api/v1/status/queues/${ALPHA}/messages`);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json[0]), ['id', 'transactionId', 'partitionId', 'queuePath', 'queue', 'partition', 'status', 'createdAt']);
    assert.deepEqual(res.json.map((m: any) => [m.transactionId, m.queuePath, m.status]), [
      ['b2', `${ALPHA}/P2`, 'pending'], // g1 has not passed it; queue mode never contacted P2
      ['b1', `${ALPHA}/P2`, 'pending'], // failed once: back to pending
      ['a4', `${ALPHA}/P1`, 'pending'],
      ['a3', `${ALPHA}/P1`, 'processing'],
      ['a2', `${ALPHA}/P1`, 'completed'],
      ['a1', `${ALPHA}/P1`, 'completed'],
    ]);
    assert.deepEqual((await setup.api.get(`/api/v1/status/queues/${BETA}/messages`)).json.map((m: any) => [m.transactionId, m.status]), [['c1', 'dead_letter']]);
  });

  test('limit and offset; an unknown queue answers []', async () => {
    const page = (await setup.api.get(`/api/v1/status/queues/${ALPHA}/messages?limit=2&offset=3`)).json;
    assert.deepEqual(page.map((m: any) => m.transactionId), ['a3', 'a2']);
    const unknown = await setup.api.get('/api/v1/status/queues/no-such-queue/messages');
    assert.equal(unknown.status, 200);
    assert.deepEqual(unknown.json, []);
  });
});

describe('GET /api/v1/status/buffers', () => {
  test('no buffer exists: nothing pending or failed; the database is healthy; worker is the server id', async () => {
    const res = await setup.api.get('/api/v1/status/buffers');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { pending: 0, failed: 0, dbHealthy: true, worker: SERVER_ID });
  });
});

describe('POST /api/v1/stats/refresh', () => {
  test('every step with ok and its duration; an empty body and {} both work', async () => {
    for (const body of [undefined, {}]) {
      const res = await setup.api.post('/api/v1/stats/refresh', body);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), ['partition', 'queue', 'namespace', 'task', 'system', 'cleanup']);
      for (const step of Object.values(res.json) as any[]) {
        assert.deepEqual(Object.keys(step), ['ok', 'durationMs']);
        assert.equal(step.ok, true);
        assert.ok(Number.isInteger(step.durationMs) && step.durationMs >= 0);
      }
    }
  });

  test('skipped while another session holds the stats lock', async () => {
    const holder = new pg.Client(serverConnection(setup.db.name));
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1::bigint)', [STATS_LOCK_KEY]);
      const res = await setup.api.post('/api/v1/stats/refresh');
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, { skipped: true, reason: 'another_instance_running' });
      await holder.query('SELECT pg_advisory_unlock($1::bigint)', [STATS_LOCK_KEY]);
      assert.equal((await setup.api.post('/api/v1/stats/refresh')).json.cleanup.ok, true);
    } finally {
      await holder.end();
    }
  });
});
