/**
 * The in-memory side of metrics, against an injected clock: the per-minute accumulator
 * (src/metrics/ops.ts), the 60-second rates (src/metrics/rates.ts) and the recorder the request paths
 * call (src/metrics/recorder.ts), observed through its accumulator and its Prometheus exposition.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { describe, test } from 'node:test';
import type { PopRequest } from '../../src/core/pop.js';
import { NO_QUEUE, OpsAccumulator, emptyCounters } from '../../src/metrics/ops.js';
import { PrometheusFamilies } from '../../src/metrics/prometheus.js';
import { RateCounter } from '../../src/metrics/rates.js';
import { Recorder } from '../../src/metrics/recorder.js';
import type { ClaimedMessage } from '../../src/store/cursors.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus.js';

const T0 = Date.parse('2026-08-02T09:17:00.000Z');

function clock(start = T0): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('OpsAccumulator', () => {
  test('counters are per (minute, queue); drain returns them oldest minute first and empties the accumulator', () => {
    const c = clock(T0 + 30_000);
    const ops = new OpsAccumulator(c.now);
    ops.at('a').pushMessages += 2;
    ops.at('a').pushMessages += 3;
    ops.at('b').popRequests += 1;
    c.advance(40_000); // 09:18:10
    ops.at('a').pushMessages += 7;
    const rows = ops.drain();
    assert.deepEqual(rows.map((r) => [r.bucket, r.queue, r.pushMessages, r.popRequests]), [
      ['2026-08-02T09:17:00.000Z', 'a', 5, 0],
      ['2026-08-02T09:17:00.000Z', 'b', 0, 1],
      ['2026-08-02T09:18:00.000Z', 'a', 7, 0],
    ]);
    assert.deepEqual(ops.drain(), []);
    ops.at('a').pushMessages += 1; // the current minute starts again from zero after a drain
    assert.deepEqual(ops.drain().map((r) => [r.bucket, r.pushMessages]), [['2026-08-02T09:18:00.000Z', 1]]);
  });

  test('restore merges drained rows with what was counted since: sums, and the larger lag maximum', () => {
    const c = clock();
    const ops = new OpsAccumulator(c.now);
    Object.assign(ops.at('a'), { popMessages: 2, lagSumMs: 300, lagMaxMs: 200 });
    const failed = ops.drain();
    Object.assign(ops.at('a'), { popMessages: 1, lagSumMs: 50, lagMaxMs: 50 });
    ops.restore(failed);
    const [row, ...rest] = ops.drain();
    assert.equal(rest.length, 0);
    assert.deepEqual(row, { ...emptyCounters(), bucket: '2026-08-02T09:17:00.000Z', queue: 'a', popMessages: 3, lagSumMs: 350, lagMaxMs: 200 });
  });

  test('restore drops rows older than a day rather than keeping them without bound', () => {
    const c = clock();
    const ops = new OpsAccumulator(c.now);
    ops.at('a').errors += 1;
    const failed = ops.drain();
    c.advance(25 * 3600 * 1000);
    ops.restore(failed);
    assert.deepEqual(ops.drain(), []);
  });
});

describe('RateCounter', () => {
  test('total grows for ever; rate is the count of the last 60 s divided by 60', () => {
    const c = clock();
    const rate = new RateCounter(c.now);
    rate.add(30);
    c.advance(10_000);
    rate.add(30);
    assert.equal(rate.total, 60);
    assert.equal(rate.rate(), 1);
    c.advance(55_000); // the first 30 are now 65 s old
    assert.equal(rate.rate(), 0.5);
    c.advance(120_000); // a full lap later: stale slots are ignored, not re-counted
    assert.equal(rate.rate(), 0);
    rate.add(6);
    assert.equal(rate.rate(), 0.1);
    assert.equal(rate.total, 66);
  });
});

function recorder(c = clock()): { rec: Recorder; families: PrometheusFamilies; c: ReturnType<typeof clock> } {
  const families = new PrometheusFamilies({
    database: async () => ({ queues: [{ queue: 'a', pending: 4, dlqDepth: 1 }], lags: [{ queue: 'a', group: 'g', seconds: 2.5 }], leasesActive: 3 }),
    parkedByQueue: () => new Map([['a', 2], ['*discovery*', 1]]),
    pool: () => ({ total: 5, idle: 3, waiting: 1 }),
    bufferedMessages: () => 0, bufferState: () => 'idle', bufferBytes: () => ({ bytes: 0, maxBytes: 1 }),
    maintenance: () => ({ push: false, pop: true }),
  });
  return { rec: new Recorder(families, c.now), families, c };
}

const popRequest = (overrides: Partial<PopRequest> = {}): PopRequest => ({
  scope: 'queue', queue: 'a', partition: null, namespace: null, task: null, consumerGroup: null, batch: 10,
  maxPartitions: 1, wait: false, timeoutMs: 0, leaseSeconds: 0, autoAck: false, subscriptionMode: null,
  subscriptionFrom: null, arrivedAt: T0, ...overrides,
});

function message(queue: string, createdAt: string): ClaimedMessage {
  return { queue, partitionId: 'p', partitionName: 'Default', messageId: 'm', transactionId: 't',
    traceId: null, payload: '{}', producerSub: null, createdAt, traceContext: null };
}

describe('Recorder', () => {
  test('push: one request under the first item\'s queue, queued messages per queue, duplicates and failures not counted', async () => {
    const { rec, families } = recorder();
    rec.pushed([
      { status: 'queued', transactionId: '1', messageId: 'm1', partitionId: 'p', traceId: null, queue: 'a' },
      { status: 'duplicate', transactionId: '2', messageId: 'm2', queue: 'a' },
      { status: 'queued', transactionId: '3', messageId: 'm3', partitionId: 'p', traceId: null, queue: 'b' },
      { status: 'failed', transactionId: null, queue: 'a', partition: 'Default', error: 'x' },
    ]);
    rec.pushed([]);
    const rows = rec.ops.drain();
    assert.deepEqual(rows.map((r) => [r.queue, r.pushRequests, r.pushMessages]), [['a', 1, 1], ['b', 0, 1], [NO_QUEUE, 1, 0]]);
    assert.equal(rec.messages.total, 2);
    const text = parsePrometheusText(await families.registry.metrics());
    assert.equal(sampleValue(text, 'queen_messages_pushed_total', { queue: 'a' }), 1);
    assert.equal(sampleValue(text, 'queen_messages_pushed_total', { queue: 'b' }), 1);
  });

  test('pop: lag is now minus createdAt (microseconds accepted), summed and maximised per queue; autoAck deliveries are completed', async () => {
    const { rec, families } = recorder(clock(T0 + 1000));
    rec.popped(popRequest({ scope: 'discovery', queue: null, autoAck: true }), {
      kind: 'messages', leaseId: '', group: '__QUEUE_MODE__',
      messages: [message('a', '2026-08-02T09:16:59.500000Z'), message('a', '2026-08-02T09:16:59.500000Z'), message('b', '2026-08-02T09:16:59.900123Z')],
    });
    const rows = rec.ops.drain();
    // An autoAck delivery is processed (ackCompleted) but no ack item: ackMessages and acked_total stay.
    assert.deepEqual(rows.map((r) => [r.queue, r.popRequests, r.popMessages, r.lagSumMs, r.lagMaxMs, r.ackCompleted, r.ackMessages]), [
      ['a', 1, 2, 3000, 1500, 2, 0],
      ['b', 0, 1, 1100, 1100, 1, 0],
    ]);
    const text = parsePrometheusText(await families.registry.metrics());
    assert.equal(sampleValue(text, 'queen_messages_popped_total', { queue: 'a' }), 2);
    assert.equal(sampleValue(text, 'queen_messages_acked_total', { queue: 'b', status: 'completed' }), undefined);
  });

  test('an empty pop counts a request and its reason; an `error` pop counts an error', async () => {
    const { rec, families } = recorder();
    rec.popped(popRequest(), { kind: 'empty', reason: 'none' });
    rec.popped(popRequest(), { kind: 'empty', reason: 'error' });
    assert.deepEqual(rec.ops.drain().map((r) => [r.queue, r.popRequests, r.popMessages, r.errors]), [['a', 2, 0, 1]]);
    const text = parsePrometheusText(await families.registry.metrics());
    assert.equal(sampleValue(text, 'queen_pop_empty_total', { reason: 'none' }), 1);
    assert.equal(sampleValue(text, 'queen_pop_empty_total', { reason: 'error' }), 1);
  });

  test('ack: applied items are ackMessages, completed ones ackCompleted, failed/retry ones ackFailed, dlq moves per queue; refused ones are status rejected', async () => {
    const { rec, families } = recorder();
    const item = (status: string | null) => ({ transactionId: 't', partitionId: 'p', status, consumerGroup: null, leaseId: null, error: null });
    const result = (success: boolean, queueName: string | null, dlq = false) => ({ success, error: success ? null : 'x', queueName, partitionName: null, leaseReleased: false, dlq });
    rec.acked(
      [item(null), item('failed'), item('failed'), item('completed'), item('bogus'), item('retry'), item('dlq')],
      [result(true, 'a'), result(true, 'a'), result(true, 'a', true), result(false, 'a'), result(false, null), result(true, 'a'), result(true, 'a', true)],
    );
    assert.deepEqual(rec.ops.drain().map((r) => [r.queue, r.ackRequests, r.ackMessages, r.ackCompleted, r.ackFailed, r.dlqMoved]), [
      ['a', 1, 5, 1, 3, 2],
      [NO_QUEUE, 0, 0, 0, 0, 0],
    ]);
    const text = parsePrometheusText(await families.registry.metrics());
    assert.equal(sampleValue(text, 'queen_messages_acked_total', { queue: 'a', status: 'completed' }), 1);
    assert.equal(sampleValue(text, 'queen_messages_acked_total', { queue: 'a', status: 'failed' }), 2);
    assert.equal(sampleValue(text, 'queen_messages_acked_total', { queue: 'a', status: 'rejected' }), 1);
    assert.equal(sampleValue(text, 'queen_messages_acked_total', { queue: '', status: 'rejected' }), 1);
    assert.equal(sampleValue(text, 'queen_messages_acked_total', { queue: 'a', status: 'retry' }), 1);
    assert.equal(sampleValue(text, 'queen_messages_acked_total', { queue: 'a', status: 'dlq' }), 1);
    assert.equal(sampleValue(text, 'queen_messages_dlq_total', { queue: 'a' }), 2);
  });

  test('HTTP: in-flight requests, requests by route/method/status, durations, 5xx as errors, transactions', async () => {
    const { rec, families } = recorder();
    const first = rec.begin();
    const second = rec.begin();
    assert.equal(rec.inflightRequests, 2);
    first({ route: '/api/v1/transaction', method: 'POST', status: '200', failed: false, transaction: true });
    second({ route: '/api/v1/push', method: 'POST', status: '500', failed: true, transaction: false });
    assert.equal(rec.inflightRequests, 0);
    assert.equal(rec.requests.total, 2);
    assert.deepEqual(rec.ops.drain().map((r) => [r.queue, r.transactions, r.errors]), [[NO_QUEUE, 1, 1]]);
    const text = parsePrometheusText(await families.registry.metrics());
    assert.equal(sampleValue(text, 'queen_http_requests_total', { route: '/api/v1/push', method: 'POST', status: '500' }), 1);
    assert.equal(sampleValue(text, 'queen_http_request_duration_seconds', { route: '/api/v1/push' }, 'queen_http_request_duration_seconds_count'), 1);
  });

  test('failures: database errors are counted by kind, anything else is ignored', async () => {
    const { rec, families } = recorder();
    const timeout = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const query = new pg.DatabaseError('syntax error', 10, 'error');
    rec.failure(timeout);
    rec.failure(refused);
    rec.failure(query);
    rec.failure(new Error('not a database error'));
    assert.deepEqual(rec.ops.drain().map((r) => [r.queue, r.dbErrors]), [[NO_QUEUE, 3]]);
    const text = parsePrometheusText(await families.registry.metrics());
    for (const kind of ['timeout', 'connection', 'query']) assert.equal(sampleValue(text, 'queen_db_errors_total', { kind }), 1, kind);
  });

  test('scrape-time gauges read their sources', async () => {
    const { families } = recorder();
    const text = parsePrometheusText(await families.registry.metrics());
    assert.equal(sampleValue(text, 'queen_queue_pending_messages', { queue: 'a' }), 4);
    assert.equal(sampleValue(text, 'queen_dlq_depth', { queue: 'a' }), 1);
    assert.equal(sampleValue(text, 'queen_queue_lag_seconds', { queue: 'a', consumer_group: 'g' }), 2.5);
    assert.equal(sampleValue(text, 'queen_leases_active'), 3);
    assert.equal(sampleValue(text, 'queen_long_polls_parked', { queue: '*discovery*' }), 1);
    assert.equal(sampleValue(text, 'queen_db_pool_connections', { state: 'active' }), 2);
    assert.equal(sampleValue(text, 'queen_db_pool_waiting'), 1);
    assert.equal(sampleValue(text, 'queen_maintenance_mode', { kind: 'pop' }), 1);
    assert.equal(sampleValue(text, 'queen_maintenance_mode', { kind: 'push' }), 0);
    assert.equal(sampleValue(text, 'queen_file_buffer_pending_messages'), 0);
  });
});
