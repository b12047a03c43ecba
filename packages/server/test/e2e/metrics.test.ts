/**
 * GET /metrics and GET /metrics/prometheus (docs/api.md 7.11): the JSON shape with real numbers, the Prometheus
 * exposition (headers, strict parse, every queen_* family with its type and labels, the default process and
 * Node.js families), counters that move with the traffic this file generates, and scrape-time gauges
 * computed from the database and from the process (parked pops, pool).
 *
 * STATS_INTERVAL_MS=500 also bounds the reuse of the database-derived gauges to 500 ms, so a gauge reflects
 * a change within one poll of `waitFor`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';
import { ackAll, popOk, pushIds, scrape, waitFor } from '../support/monitoring.js';
import { sampleValue, type Family } from '../support/prometheus.js';

const setup = useBroker({ STATS_INTERVAL_MS: '500' });

const QUEUE_MODE = '__QUEUE_MODE__';

/** The families of docs/api.md 7.11 with their type and label names. */
const FAMILIES: Array<[string, Family['type'], string[]]> = [
  ['queen_messages_pushed_total', 'counter', ['queue']],
  ['queen_messages_popped_total', 'counter', ['queue']],
  ['queen_messages_acked_total', 'counter', ['queue', 'status']],
  ['queen_messages_dlq_total', 'counter', ['queue']],
  ['queen_queue_pending_messages', 'gauge', ['queue']],
  ['queen_queue_lag_seconds', 'gauge', ['queue', 'consumer_group']],
  ['queen_dlq_depth', 'gauge', ['queue']],
  ['queen_long_polls_parked', 'gauge', ['queue']],
  ['queen_leases_active', 'gauge', []],
  ['queen_http_requests_total', 'counter', ['route', 'method', 'status']],
  ['queen_http_request_duration_seconds', 'histogram', ['route']],
  ['queen_db_pool_connections', 'gauge', ['state']],
  ['queen_db_pool_waiting', 'gauge', []],
  ['queen_db_errors_total', 'counter', ['kind']],
  ['queen_file_buffer_pending_messages', 'gauge', []],
  ['queen_file_buffer_bytes', 'gauge', []],
  ['queen_file_buffer_max_bytes', 'gauge', []],
  ['queen_maintenance_mode', 'gauge', ['kind']],
  ['queen_pop_empty_total', 'counter', ['reason']],
];

const value = (families: Map<string, Family>, family: string, labels: Record<string, string> = {}): number =>
  sampleValue(families, family, labels) ?? 0;

describe('GET /metrics', () => {
  test('the JSON body has exactly the keys of docs/api.md 7.11, with numbers', async () => {
    const res = await setup.api.get('/metrics');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    const body = res.json;
    assert.deepEqual(Object.keys(body), ['uptime', 'requests', 'messages', 'database', 'memory', 'cpu']);
    assert.deepEqual(Object.keys(body.requests), ['total', 'rate']);
    assert.deepEqual(Object.keys(body.messages), ['total', 'rate']);
    assert.deepEqual(Object.keys(body.database), ['poolSize', 'idleConnections', 'waitingRequests']);
    assert.deepEqual(Object.keys(body.memory), ['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers']);
    assert.deepEqual(Object.keys(body.cpu), ['user', 'system']);
    assert.ok(Number.isInteger(body.uptime) && body.uptime >= 0);
    assert.ok(body.memory.rss > 0 && body.memory.heapUsed > 0 && body.memory.heapUsed <= body.memory.heapTotal);
    assert.ok(body.cpu.user > 0, 'cpu is in microseconds since start');
    assert.ok(body.database.poolSize >= 1, 'the broker has used its pool');
    assert.ok(body.database.idleConnections <= body.database.poolSize);
  });

  test('requests and pushed messages count what this broker served, with rates over 60 s', async () => {
    const before = (await setup.api.get('/metrics')).json;
    const queue = uniqueQueue('m-json');
    await pushIds(setup.api, queue, ['a', 'b', 'c']);
    await pushIds(setup.api, queue, ['d', 'e', 'f', 'g']);
    await pushIds(setup.api, queue, ['a']).catch(() => undefined); // a duplicate: not a new message
    const after = (await setup.api.get('/metrics')).json;
    assert.equal(after.messages.total - before.messages.total, 7);
    assert.ok(after.requests.total - before.requests.total >= 3, `${before.requests.total} -> ${after.requests.total}`);
    assert.ok(after.messages.rate >= Math.floor((7 / 60) * 1000) / 1000, `rate ${after.messages.rate}`);
    assert.ok(after.requests.rate > 0);
    assert.ok(after.uptime >= before.uptime);
  });
});

describe('GET /metrics/prometheus', () => {
  test('answers the exposition format, parses strictly and lists every queen_* family and the default ones', async () => {
    const families = await scrape(setup.broker.url);
    for (const [name, type] of FAMILIES) {
      const family = families.get(name);
      assert.ok(family, `family ${name} missing`);
      assert.equal(family.type, type, name);
      assert.ok(family.help !== null && family.help.length > 0, `${name} has a HELP text`);
    }
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds',
      'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds', 'nodejs_version_info']) {
      assert.ok(families.has(name), `default family ${name} missing`);
    }
  });

  test('counters move with traffic: pushed, popped, acked by status, dlq, empty pops, requests, durations', async () => {
    const queue = uniqueQueue('m-prom');
    const before = await scrape(setup.broker.url);
    await pushIds(setup.api, queue, ['m1', 'm2', 'm3', 'm4', 'm5']);
    const popped = await popOk(setup.api, `/api/v1/pop/queue/${queue}`, 'batch=4');
    assert.equal(popped.messages.length, 4);
    await ackAll(setup.api, popped, ['completed', 'completed', 'dlq', 'failed']);
    // m5 exists but is not leased by this lease: the ack is refused, under the message's queue.
    const refused = await setup.api.post('/api/v1/ack', { transactionId: 'm5', partitionId: popped.partitionId, leaseId: popped.leaseId, status: 'completed' });
    assert.equal(refused.json[0].success, false, refused.text);
    assert.equal(refused.json[0].queueName, queue, refused.text);
    const empty = await setup.api.get(`/api/v1/pop/queue/${uniqueQueue('m-empty')}`);
    assert.equal(empty.status, 204);
    const reason = empty.headers.get('x-queen-empty-reason')!;
    const after = await scrape(setup.broker.url);

    const delta = (family: string, labels: Record<string, string>): number => value(after, family, labels) - value(before, family, labels);
    assert.equal(delta('queen_messages_pushed_total', { queue }), 5);
    assert.equal(delta('queen_messages_popped_total', { queue }), 4);
    assert.equal(delta('queen_messages_acked_total', { queue, status: 'completed' }), 2);
    assert.equal(delta('queen_messages_acked_total', { queue, status: 'failed' }), 1);
    assert.equal(delta('queen_messages_acked_total', { queue, status: 'dlq' }), 1);
    assert.equal(delta('queen_messages_acked_total', { queue, status: 'rejected' }), 1);
    assert.equal(delta('queen_messages_dlq_total', { queue }), 1);
    assert.equal(delta('queen_pop_empty_total', { reason }), 1);
    assert.equal(delta('queen_http_requests_total', { route: '/api/v1/push', method: 'POST', status: '201' }), 1);
    assert.equal(delta('queen_http_requests_total', { route: '/api/v1/ack/batch', method: 'POST', status: '200' }), 1);
    assert.equal(delta('queen_http_requests_total', { route: '/api/v1/pop/queue/:queue', method: 'GET', status: '204' }), 1);
    const count = (families: Map<string, Family>): number =>
      sampleValue(families, 'queen_http_request_duration_seconds', { route: '/api/v1/ack' }, 'queen_http_request_duration_seconds_count') ?? 0;
    assert.equal(count(after) - count(before), 1);
    // Every sample carries exactly the labels of its family.
    for (const [name, , labels] of FAMILIES) {
      for (const sample of after.get(name)!.samples) {
        const expected = name === 'queen_http_request_duration_seconds' && sample.name.endsWith('_bucket') ? [...labels, 'le'] : labels;
        assert.deepEqual(Object.keys(sample.labels).sort(), [...expected].sort(), `${sample.name} ${JSON.stringify(sample.labels)}`);
      }
    }
  });

  test('an unknown path is counted under route "unmatched"', async () => {
    const before = value(await scrape(setup.broker.url), 'queen_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' });
    assert.equal((await setup.api.get('/api/no/such/path')).status, 404);
    const after = value(await scrape(setup.broker.url), 'queen_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' });
    assert.equal(after - before, 1);
  });

  test('pending messages, DLQ depth, lag and live leases come from the database', async () => {
    const queue = uniqueQueue('m-gauge');
    await pushIds(setup.api, queue, ['g1', 'g2', 'g3', 'g4', 'g5']);
    let families = await waitFor(() => scrape(setup.broker.url), (f) => sampleValue(f, 'queen_queue_pending_messages', { queue }) === 5);
    assert.equal(sampleValue(families, 'queen_dlq_depth', { queue }), 0);
    assert.equal(sampleValue(families, 'queen_queue_lag_seconds', { queue, consumer_group: QUEUE_MODE }), undefined, 'no group has contacted the queue');

    const leasesBefore = value(families, 'queen_leases_active');
    const popped = await popOk(setup.api, `/api/v1/pop/queue/${queue}`, 'batch=2');
    await ackAll(setup.api, popped, ['dlq']); // g1 to the DLQ; g2 stays leased
    families = await waitFor(() => scrape(setup.broker.url), (f) => sampleValue(f, 'queen_queue_pending_messages', { queue }) === 4);
    assert.equal(sampleValue(families, 'queen_dlq_depth', { queue }), 1);
    assert.ok(value(families, 'queen_leases_active') >= leasesBefore + 1, 'the live lease on g2 is counted');
    const lag = sampleValue(families, 'queen_queue_lag_seconds', { queue, consumer_group: QUEUE_MODE });
    assert.ok(lag !== undefined && lag > 0 && lag < 60, `lag ${lag}`);

    await ackAll(setup.api, { ...popped, messages: popped.messages.slice(1) }, ['completed']); // g2
    const rest = await popOk(setup.api, `/api/v1/pop/queue/${queue}`, 'batch=10&autoAck=true');
    assert.equal(rest.messages.length, 3);
    families = await waitFor(() => scrape(setup.broker.url), (f) => sampleValue(f, 'queen_queue_pending_messages', { queue }) === 0);
    assert.equal(sampleValue(families, 'queen_queue_lag_seconds', { queue, consumer_group: QUEUE_MODE }), 0, 'caught up: lag 0');
  });

  test('parked long polls are counted per queue, discovery pops under *discovery*', async () => {
    const queue = uniqueQueue('m-park');
    const namespace = uniqueQueue('m-ns');
    const parked = setup.api.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=10000`);
    const discovery = setup.api.get(`/api/v1/pop?namespace=${namespace}&wait=true&timeout=10000`);
    const families = await waitFor(() => scrape(setup.broker.url), (f) =>
      sampleValue(f, 'queen_long_polls_parked', { queue }) === 1 && sampleValue(f, 'queen_long_polls_parked', { queue: '*discovery*' }) === 1);
    assert.ok(families);
    await pushIds(setup.api, queue, ['wake']);
    await pushIds(setup.api, `${namespace}.t`, ['wake']);
    assert.equal((await parked).status, 200);
    assert.equal((await discovery).status, 200);
    const later = await scrape(setup.broker.url);
    assert.equal(sampleValue(later, 'queen_long_polls_parked', { queue }), undefined, 'nothing parked any more');
  });

  test('pool, buffer and maintenance gauges describe this process', async () => {
    const families = await scrape(setup.broker.url);
    const total = value(families, 'queen_db_pool_connections', { state: 'total' });
    const idle = value(families, 'queen_db_pool_connections', { state: 'idle' });
    assert.ok(total >= 1 && total <= 20, `total ${total}`);
    assert.equal(value(families, 'queen_db_pool_connections', { state: 'active' }), total - idle);
    assert.equal(sampleValue(families, 'queen_db_pool_waiting'), 0);
    assert.equal(sampleValue(families, 'queen_file_buffer_pending_messages'), 0);
    assert.equal(sampleValue(families, 'queen_maintenance_mode', { kind: 'push' }), 0);
    assert.equal(sampleValue(families, 'queen_maintenance_mode', { kind: 'pop' }), 0);
  });
});
