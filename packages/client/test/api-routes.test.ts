/**
 * The API layer's route table: every function of `src/api/` sends exactly the method and path of one entry of
 * `apiRoutes` (the entry named like the function), every entry is reached by a function, names in paths are
 * percent-encoded, and the table has the 67 operations of docs/api.md §3 (OPTIONS aside) with OpenAPI templates.
 * The requester here records what would be sent instead of sending it: what is under test is the path built.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as api from '../src/api/index.js';
import type { RequestSpec } from '../src/index.js';

/** The exports of the layer that are machinery, not one route's function. */
const HELPERS = new Set(['iso', 'pathOf', 'recording', 'route', 'send', 'createTransport', 'routeFor', 'Transport', 'QueenError']);
/** queen-mq-proxy's sign-in routes (api/proxy.ts): no broker operation; the CLI's login test runs them against a stand-in proxy. */
const PROXY = new Set(Object.keys(api).filter((name) => name.startsWith('proxy')));

function recorder(): api.ApiRequester & { seen: RequestSpec[] } {
  const seen: RequestSpec[] = [];
  return { seen, request: async (spec) => (seen.push(spec), { status: 200, headers: new Headers(), body: null, url: 'http://recorded' }) };
}

type Http = api.ApiRequester;
/** One sample call per function, with names that need encoding. */
const CALLS: Record<string, (http: Http) => Promise<unknown>> = {
  configure: (h) => api.configure(h, { queue: 'q' }),
  push: (h) => api.push(h, { items: [{ queue: 'q', partition: 'P', payload: 1, transactionId: 't' }] }),
  popPartition: (h) => api.popPartition(h, 'q', 'p 1', { batch: 2 }),
  popQueue: (h) => api.popQueue(h, 'q', { wait: true }),
  popDiscovery: (h) => api.popDiscovery(h, { namespace: 'ns' }),
  ackMessage: (h) => api.ackMessage(h, { transactionId: 't', partitionId: 'p' }),
  ackBatch: (h) => api.ackBatch(h, { acknowledgments: [] }),
  extendLease: (h) => api.extendLease(h, 'lease', { seconds: 5 }),
  transaction: (h) => api.transaction(h, { operations: [] }),
  listQueues: (h) => api.listQueues(h, { limit: 5 }),
  getQueue: (h) => api.getQueue(h, 'a/b'),
  deleteQueue: (h) => api.deleteQueue(h, 'q'),
  clearQueue: (h) => api.clearQueue(h, 'q', 'P'),
  listNamespaces: (h) => api.listNamespaces(h),
  listTasks: (h) => api.listTasks(h),
  getOverview: (h) => api.getOverview(h),
  listPartitions: (h) => api.listPartitions(h, { queue: 'q' }),
  listMessages: (h) => api.listMessages(h, { queue: 'q', from: new Date(0) }),
  getMessage: (h) => api.getMessage(h, 'pid', 'tx'),
  deleteMessage: (h) => api.deleteMessage(h, 'pid', 'tx'),
  retryMessage: (h) => api.retryMessage(h, 'pid', 'tx'),
  moveMessageToDlq: (h) => api.moveMessageToDlq(h, 'pid', 'tx', { error: 'e' }),
  listDlq: (h) => api.listDlq(h, { queue: 'q' }),
  recordTrace: (h) => api.recordTrace(h, { transactionId: 't', partitionId: 'p', data: {} }),
  listTraceNames: (h) => api.listTraceNames(h),
  listTracesByName: (h) => api.listTracesByName(h, 'names'),
  getTraces: (h) => api.getTraces(h, 'pid', 'tx'),
  listConsumerGroups: (h) => api.listConsumerGroups(h),
  listLaggingConsumerGroups: (h) => api.listLaggingConsumerGroups(h, { minLagSeconds: 5 }),
  getConsumerGroup: (h) => api.getConsumerGroup(h, 'lagging x'),
  deleteConsumerGroup: (h) => api.deleteConsumerGroup(h, 'g', { deleteMetadata: false }),
  updateSubscription: (h) => api.updateSubscription(h, 'g', new Date(0)),
  deleteConsumerGroupForQueue: (h) => api.deleteConsumerGroupForQueue(h, 'g', 'q'),
  seekQueue: (h) => api.seekQueue(h, 'g', 'q', { toEnd: true }),
  seekPartition: (h) => api.seekPartition(h, 'g', 'q', 'p'),
  health: (h) => api.health(h),
  ready: (h) => api.ready(h),
  openApiDocument: (h) => api.openApiDocument(h),
  metrics: (h) => api.metrics(h),
  prometheusMetrics: (h) => api.prometheusMetrics(h),
  getMaintenance: (h) => api.getMaintenance(h),
  setMaintenance: (h) => api.setMaintenance(h, true),
  getPopMaintenance: (h) => api.getPopMaintenance(h),
  setPopMaintenance: (h) => api.setPopMaintenance(h, false),
  getSharedState: (h) => api.getSharedState(h),
  refreshStats: (h) => api.refreshStats(h),
  getStatus: (h) => api.getStatus(h, { queue: 'q' }),
  listQueueStatus: (h) => api.listQueueStatus(h),
  getQueueStatus: (h) => api.getQueueStatus(h, 'q'),
  listQueueStatusMessages: (h) => api.listQueueStatusMessages(h, 'q'),
  getStatusAnalytics: (h) => api.getStatusAnalytics(h, { interval: 'minute' }),
  getBufferStatus: (h) => api.getBufferStatus(h),
  getSystemMetrics: (h) => api.getSystemMetrics(h),
  getWorkerMetrics: (h) => api.getWorkerMetrics(h),
  getQueueLag: (h) => api.getQueueLag(h),
  getQueueOps: (h) => api.getQueueOps(h),
  getParkedReplicas: (h) => api.getParkedReplicas(h),
  getRetentionHistory: (h) => api.getRetentionHistory(h),
  getPostgresStats: (h) => api.getPostgresStats(h),
  registerQuery: (h) => api.registerQuery(h, { name: 'n', source_queue: 's', config_hash: 'h', reset: false }),
  cycle: (h) => api.cycle(h, { query_id: 'q', partition_id: 'p', consumer_group: 'g', state_ops: [], push_items: [], ack: null, release_lease: false }),
  getState: (h) => api.getState(h, { query_id: 'q', partition_id: 'p' }),
  testMigrationConnection: (h) => api.testMigrationConnection(h, { host: 'h', database: 'd', user: 'u' }),
  startMigration: (h) => api.startMigration(h, { host: 'h', database: 'd', user: 'u', mode: 'offline' }),
  getMigrationStatus: (h) => api.getMigrationStatus(h),
  validateMigration: (h) => api.validateMigration(h),
  resetMigration: (h) => api.resetMigration(h),
};

describe('API layer route table', () => {
  test('every function of the layer has a sample call here, and every route a function', () => {
    const functions = Object.entries(api).filter(([name, value]) => typeof value === 'function' && !HELPERS.has(name) && !PROXY.has(name)).map(([name]) => name).sort();
    assert.deepEqual(functions, Object.keys(CALLS).sort());
    assert.deepEqual(api.apiRoutes.map((r) => r.operation).sort(), functions);
  });

  test("every function sends its own route's method and a path its template matches", async () => {
    for (const [name, call] of Object.entries(CALLS)) {
      const http = recorder();
      await call(http);
      assert.equal(http.seen.length, 1, name);
      const spec = http.seen[0]!;
      const found = api.routeFor(spec.method, spec.path);
      assert.equal(found?.operation, name, `${name}: ${spec.method} ${spec.path}`);
    }
  });

  test('names in paths are percent-encoded; queries keep defined entries; Dates go as ISO', async () => {
    const http = recorder();
    await api.getQueue(http, 'a/b');
    await api.popPartition(http, 'q', 'p 1', { batch: 2, consumerGroup: undefined });
    await api.listMessages(http, { queue: 'q', from: new Date(0) });
    await api.getConsumerGroup(http, 'lagging');
    assert.deepEqual(http.seen.map((s) => `${s.method} ${s.path}`), [
      'GET /api/v1/resources/queues/a%2Fb',
      'GET /api/v1/pop/queue/q/partition/p%201?batch=2',
      'GET /api/v1/messages?queue=q&from=1970-01-01T00%3A00%3A00.000Z',
      'GET /api/v1/consumer-groups/lagging',
    ]);
    // A literal segment wins over a parameter when matching a path back to its route.
    assert.equal(api.routeFor('GET', '/api/v1/consumer-groups/lagging?minLagSeconds=1')?.operation, 'listLaggingConsumerGroups');
    assert.equal(api.routeFor('GET', '/api/v1/consumer-groups/g1')?.operation, 'getConsumerGroup');
    assert.equal(api.routeFor('PUT', '/api/v1/push'), undefined);
  });

  test('the table: 67 operations, unique names and (method, path) pairs, OpenAPI templates', () => {
    assert.equal(api.apiRoutes.length, 67);
    assert.equal(new Set(api.apiRoutes.map((r) => r.operation)).size, 67);
    assert.equal(new Set(api.apiRoutes.map((r) => `${r.method} ${r.path}`)).size, 67);
    for (const r of api.apiRoutes) {
      assert.match(r.path, /^\/(api\/v1|streams\/v1|health|ready|metrics|openapi\.json)/, r.operation);
      assert.doesNotMatch(r.path, /:/, `${r.operation}: templates use {name}, not :name`);
    }
    assert.deepEqual(api.apiRoutes.find((r) => r.operation === 'getQueue'), { operation: 'getQueue', method: 'GET', path: '/api/v1/resources/queues/{queue}', access: 'READ_ONLY' });
  });
});
