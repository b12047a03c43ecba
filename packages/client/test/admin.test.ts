/**
 * queen.admin against a real broker: one test per admin method of docs/client.md (the maintenance and
 * shared-state ones live in admin-maintenance.test.ts), plus the DLQ builder's filters. Each asserts the
 * route was reached with the right names and parameters through what the broker answered.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { UUID_V7 } from '../../server/test/support/messaging.js';
import { QueenError, type Message } from '../src/index.js';
import { testClient } from './support.js';

/** The answer when it is not the `{error}` / `{success:false}` of a miss or a refusal (which fails the test). */
function found<T extends object>(body: T): Exclude<T, { error: string }> {
  assert.ok(!('error' in body && typeof body.error === 'string'), JSON.stringify(body));
  return body as Exclude<T, { error: string }>;
}

const setup = useBroker();
const queen = () => testClient(setup.broker.url);

/** A queue `<ns>.<task>` with messages in two partitions; optionally one dead letter (group `dlqg`). */
async function fixture(options: { deadLetter?: boolean; group?: string } = {}) {
  const ns = uniqueQueue('ns');
  const name = `${ns}.work`;
  const q = queen();
  await q.queue(name).config({ retryLimit: 0 }).create();
  await q.queue(name).partition('p1').push([{ data: { n: 1 }, transactionId: 't1' }, { data: { n: 2 }, transactionId: 't2' }]);
  await q.queue(name).partition('p2').push([{ data: { n: 3 }, transactionId: 't3' }]);
  let dead: Message | undefined;
  if (options.deadLetter) {
    [dead] = await q.queue(name).partition('p1').group('dlqg').wait(false).pop();
    await q.ack(dead!, 'failed', { error: 'poison' });
  }
  const partitionId = (await setup.db.query<{ id: string }>('SELECT p.id::text AS id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND p.name = $2', [name, 'p1'])).rows[0]!.id;
  return { q, ns, name, partitionId, dead };
}

describe('health and metrics', () => {
  test('health()', async () => {
    const body = await queen().admin.health();
    assert.equal(body.status, 'healthy');
    assert.equal(body.database, 'connected');
  });
  test('metrics()', async () => {
    const body = await queen().admin.metrics();
    assert.equal(typeof body.uptime, 'number');
    assert.ok('requests' in body && 'memory' in body);
  });
  test('prometheusMetrics() returns text', async () => {
    const text = await queen().admin.prometheusMetrics();
    assert.equal(typeof text, 'string');
    assert.match(text, /# TYPE queen_http_requests_total counter/);
  });
});

describe('resources', () => {
  test('listQueues(params)', async () => {
    const { q, ns, name } = await fixture();
    const body = await q.admin.listQueues({ namespace: ns });
    assert.deepEqual(body.queues.map((x: { name: string }) => x.name), [name]);
    assert.equal(body.queues[0]!.partitions, 3, 'Default (from create) + p1 + p2');
  });
  test('getQueue(name), and X-Queen-Status 404 resolves with the error body', async () => {
    const { q, name } = await fixture();
    const body = found(await q.admin.getQueue(name));
    assert.equal(body.name, name);
    assert.deepEqual(body.partitions.map((p: { name: string }) => p.name).sort(), ['Default', 'p1', 'p2']);
    assert.deepEqual(await q.admin.getQueue(uniqueQueue('missing')), { error: 'Queue not found' });
  });
  test('deleteQueue(name)', async () => {
    const { q, name } = await fixture();
    assert.deepEqual(await q.admin.deleteQueue(name), { deleted: true, queue: name, existed: true });
  });
  test('clearQueue(name, partition?)', async () => {
    const { q, name } = await fixture();
    assert.deepEqual(await q.admin.clearQueue(name, 'p1'), { success: true, queue: name, partition: 'p1', deletedMessages: 2 });
    assert.deepEqual(await q.admin.clearQueue(name), { success: true, queue: name, partition: null, deletedMessages: 1 });
  });
  test('getNamespaces()', async () => {
    const { q, ns } = await fixture();
    const body = await q.admin.getNamespaces();
    assert.ok(body.namespaces.some((n: { namespace: string; queues: number }) => n.namespace === ns && n.queues === 1));
  });
  test('getTasks()', async () => {
    const { q } = await fixture();
    const body = await q.admin.getTasks();
    assert.ok(body.tasks.some((t: { task: string }) => t.task === 'work'));
  });
  test('getOverview()', async () => {
    const body = await queen().admin.getOverview();
    for (const key of ['queues', 'partitions', 'messages', 'lag', 'throughput', 'statsAge']) assert.ok(key in body, key);
  });
  test('getPartitions(params)', async () => {
    const { q, name } = await fixture();
    const body = await q.admin.getPartitions({ queue: name, limit: 1 });
    assert.equal(body.total, 3);
    assert.equal(body.partitions.length, 1);
    assert.deepEqual(body.pagination, { limit: 1, offset: 0 });
  });
});

describe('messages', () => {
  test('listMessages(params)', async () => {
    const { q, name } = await fixture();
    const body = await q.admin.listMessages({ queue: name, partition: 'p1' });
    assert.deepEqual(body.messages.map((m: { transactionId: string }) => m.transactionId).sort(), ['t1', 't2']);
  });
  test('getMessage(partitionId, transactionId)', async () => {
    const { q, partitionId } = await fixture();
    const body = found(await q.admin.getMessage(partitionId, 't2'));
    assert.deepEqual([body.transactionId, body.partition, body.payload], ['t2', 'p1', { n: 2 }]);
    assert.deepEqual(await q.admin.getMessage(partitionId, 'nope'), { error: 'Message not found' });
  });
  test('deleteMessage(partitionId, transactionId)', async () => {
    const { q, partitionId } = await fixture();
    const body = await q.admin.deleteMessage(partitionId, 't1');
    assert.deepEqual(body, { success: true, partitionId, transactionId: 't1', message: 'Message deleted successfully' });
  });
  test('retryMessage(partitionId, transactionId)', async () => {
    const { q, partitionId, dead } = await fixture({ deadLetter: true });
    const body = await q.admin.retryMessage(partitionId, dead!.transactionId);
    assert.equal(body.success, true);
    assert.equal(body.dlqEntriesRemoved, 1);
    assert.match(body.newTransactionId, UUID_V7);
    assert.deepEqual(await q.admin.retryMessage(partitionId, 't2'), { success: false, error: 'Message is not in the DLQ' });
  });
  test('moveMessageToDLQ(partitionId, transactionId, options)', async () => {
    const { q, partitionId } = await fixture();
    const body = await q.admin.moveMessageToDLQ(partitionId, 't1', { consumerGroup: 'ops', error: 'manual' });
    assert.deepEqual(body, { success: true, partitionId, transactionId: 't1', consumerGroup: 'ops', dlq: true });
    const dlq = await q.admin.getDLQ({ consumerGroup: 'ops' });
    assert.ok(dlq.messages.some((m) => m.transactionId === 't1' && m.errorMessage === 'manual'));
  });
  test('getDLQ(params)', async () => {
    const { q, name } = await fixture({ deadLetter: true });
    const body = await q.admin.getDLQ({ queue: name });
    assert.equal(body.total, 1);
    assert.deepEqual([body.messages[0]!.transactionId, body.messages[0]!.errorMessage, body.messages[0]!.consumerGroup], ['t1', 'poison', 'dlqg']);
  });
  test('the DLQ builder sends every filter and returns total', async () => {
    const { q, name } = await fixture({ deadLetter: true });
    const all = await q.queue(name).dlq('dlqg').get();
    assert.equal(all.total, 1);
    assert.equal((await q.queue(name).dlq('other').get()).total, 0);
    assert.equal((await q.queue(name).dlq().partition('p2').get()).total, 0);
    assert.equal((await q.queue(name).dlq().from(new Date(Date.now() + 60_000)).get()).total, 0);
    assert.equal((await q.queue(name).dlq().to(new Date(Date.now() - 60_000)).get()).total, 0);
    const page = await q.queue(name).dlq().limit(1).offset(1).get();
    assert.deepEqual([page.total, page.messages.length, page.pagination], [1, 0, { limit: 1, offset: 1 }]);
  });
});

describe('traces', () => {
  test('recordTrace(input)', async () => {
    const { q, partitionId } = await fixture();
    const body = await q.admin.recordTrace({ transactionId: 't1', partitionId, data: { x: 1 }, traceNames: ['flow'] });
    assert.equal(body.success, true);
    assert.match(body.traceId, UUID_V7);
  });
  test('getTracesForMessage(partitionId, transactionId)', async () => {
    const { q, partitionId } = await fixture();
    await q.admin.recordTrace({ transactionId: 't2', partitionId, data: 'a', eventType: 'step' });
    const body = await q.admin.getTracesForMessage(partitionId, 't2');
    assert.deepEqual(body.traces.map((t: { event_type: string; data: unknown }) => [t.event_type, t.data]), [['step', 'a']]);
  });
  test('getTracesByName(traceName, params)', async () => {
    const { q, partitionId } = await fixture();
    const traceName = uniqueQueue('trace/name');
    await q.admin.recordTrace({ transactionId: 't1', partitionId, data: 1, traceNames: traceName });
    const body = await q.admin.getTracesByName(traceName, { limit: 10 });
    assert.equal(body.total, 1);
    assert.equal(body.traces[0]!.transaction_id, 't1');
  });
  test('getTraceNames(params)', async () => {
    const { q, partitionId } = await fixture();
    const traceName = uniqueQueue('tn');
    await q.admin.recordTrace({ transactionId: 't1', partitionId, data: 1, traceNames: [traceName] });
    const body = await q.admin.getTraceNames({ limit: 1000 });
    assert.ok(body.trace_names.some((t: { trace_name: string }) => t.trace_name === traceName));
  });
});

describe('status and analytics', () => {
  test('getStatus(params)', async () => {
    const { q, name } = await fixture();
    const body = await q.admin.getStatus({ queue: name });
    for (const key of ['timeRange', 'throughput', 'queues', 'messages', 'leases', 'deadLetterQueue', 'workers']) assert.ok(key in body, key);
  });
  test('getQueueStats(params)', async () => {
    const { q, ns, name } = await fixture();
    const body = await q.admin.getQueueStats({ namespace: ns });
    assert.deepEqual(body.queues.map((x: { name: string }) => x.name), [name]);
  });
  test('getQueueDetail(name, params)', async () => {
    const { q, name } = await fixture();
    const body = found(await q.admin.getQueueDetail(name));
    assert.equal(body.queue.name, name);
    assert.equal(body.queue.config.retryLimit, 0);
    assert.deepEqual(await q.admin.getQueueDetail(uniqueQueue('none')), { error: 'Queue not found' });
  });
  test('getQueueMessages(name, params)', async () => {
    const { q, name } = await fixture();
    const body = await q.admin.getQueueMessages(name, { limit: 2 });
    assert.equal(body.length, 2);
  });
  test('getAnalytics(params)', async () => {
    const body = await queen().admin.getAnalytics({ interval: 'minute' });
    assert.equal(body.interval, 'minute');
    assert.ok(Array.isArray(body.dataPoints));
  });
  test('getBufferStatus()', async () => {
    const body = await queen().admin.getBufferStatus();
    assert.deepEqual(Object.keys(body).sort(), ['dbHealthy', 'failed', 'pending', 'worker']);
  });
  test('getSystemMetrics(params)', async () => {
    const body = await queen().admin.getSystemMetrics({ from: new Date(Date.now() - 600_000) });
    assert.ok(Array.isArray(body.replicas));
  });
  test('getWorkerMetrics(params)', async () => {
    const body = await queen().admin.getWorkerMetrics({ to: new Date() });
    assert.ok('summary' in body && Array.isArray(body.timeSeries));
  });
  test('getQueueLag(params)', async () => {
    const { q, name } = await fixture();
    assert.ok(Array.isArray(await q.admin.getQueueLag({ queue: name })));
  });
  test('getQueueOps(params)', async () => {
    const { q, name } = await fixture();
    assert.ok(Array.isArray(await q.admin.getQueueOps({ queue: name })));
  });
  test('getParkedReplicas(params)', async () => {
    assert.ok(Array.isArray(await queen().admin.getParkedReplicas({ queue: 'x' })));
  });
  test('getRetentionHistory(params)', async () => {
    const body = await queen().admin.getRetentionHistory({ limit: 5 });
    assert.deepEqual(body.pagination, { limit: 5, offset: 0 });
  });
  test('getPostgresStats()', async () => {
    const body = await queen().admin.getPostgresStats();
    assert.ok('databaseCache' in body && Array.isArray(body.tableSizes));
  });
  test('refreshConsumerStats()', async () => {
    const body = await queen().admin.refreshConsumerStats();
    assert.ok('skipped' in body ? body.skipped === true : body.partition.ok === true, JSON.stringify(body));
  });
});

describe('consumer groups', () => {
  test('listConsumerGroups()', async () => {
    const { q, name } = await fixture({ deadLetter: true });
    const body = await q.admin.listConsumerGroups();
    assert.ok(body.some((g: { name: string; queueName: string }) => g.name === 'dlqg' && g.queueName === name));
  });
  test('getLaggingConsumers(minLagSeconds); a 400 rejects', async () => {
    const body = await queen().admin.getLaggingConsumers(0);
    assert.ok(Array.isArray(body));
    await assert.rejects(queen().admin.getLaggingConsumers('x' as unknown as number), (e: QueenError) => e.code === 'HTTP' && e.status === 400 && e.message === 'minLagSeconds must be an integer');
  });
  test('getConsumerGroup(name)', async () => {
    const { q, name } = await fixture({ deadLetter: true });
    const body = await q.admin.getConsumerGroup('dlqg');
    assert.ok(name in body);
    assert.deepEqual(await q.admin.getConsumerGroup(uniqueQueue('nobody')), {});
  });
  test('deleteConsumerGroup(group, deleteMetadata)', async () => {
    const { q } = await fixture({ deadLetter: true });
    const body = await q.admin.deleteConsumerGroup('dlqg', false);
    assert.deepEqual([body.success, body.consumerGroup, body.metadataDeleted], [true, 'dlqg', false]);
  });
  test('deleteConsumerGroupForQueue(group, queue, deleteMetadata)', async () => {
    const { q, name } = await fixture({ deadLetter: true });
    const body = await q.admin.deleteConsumerGroupForQueue('dlqg', name);
    assert.deepEqual([body.success, body.queueName, body.deletedPartitions, body.metadataDeleted], [true, name, 1, true]);
  });
  test('updateSubscription(group, timestamp)', async () => {
    const body = await queen().admin.updateSubscription(uniqueQueue('g'), 'now');
    assert.equal(body.success, true);
    assert.equal(body.rowsUpdated, 0);
  });
  test('seekConsumerGroup(group, queue, {toEnd} | {timestamp})', async () => {
    const { q, name } = await fixture();
    const toEnd = found(await q.admin.seekConsumerGroup('seeker', name, { toEnd: true }));
    assert.deepEqual([toEnd.success, toEnd.seekToEnd, toEnd.partitionsUpdated], [true, true, 3]);
    assert.deepEqual(await q.queue(name).group('seeker').wait(false).pop(), []);
    const back = await q.admin.seekConsumerGroup('seeker', name, { timestamp: new Date(0) });
    assert.equal(back.success, true);
    assert.equal((await q.queue(name).group('seeker').batch(5).partitions(0).wait(false).pop()).length, 3);
  });
  test('seekConsumerGroupPartition(group, queue, partition, options)', async () => {
    const { q, name } = await fixture();
    const body = found(await q.admin.seekConsumerGroupPartition('seeker', name, 'p1'));
    assert.deepEqual([body.success, body.partitionName], [true, 'p1']);
    assert.equal((await q.queue(name).partition('p1').group('seeker').wait(false).pop()).length, 0);
    assert.deepEqual(await q.admin.seekConsumerGroupPartition('seeker', name, 'nope', { toEnd: true }), { success: false, error: 'Partition not found' });
  });
});
