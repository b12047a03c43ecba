/**
 * Bad input at the edge (issue 13 items 1, 3, 4, 5; docs/api.md 1.2, 1.5, 1.6, 1.9, 1.10, 5.2): a NUL byte or an
 * unpaired surrogate in any string that would reach SQL, integers past their documented range, bodies nested
 * past MAX_JSON_DEPTH and over-long configure scopes all answer a 400 with the field's text, never a 500, never
 * PostgreSQL's text, and store nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';

const setup = useBroker();
const NUL = '\u0000';
const SOME_UUID = '0198f2c0-0000-7000-8000-00000000b001';

/** JSON nested `depth` levels: arrays with a string at the bottom. */
const nested = (depth: number): string => `${'['.repeat(depth)}"bottom"${']'.repeat(depth)}`;

async function queueCount(name: string): Promise<number> {
  const r = await setup.db.query('SELECT 1 FROM queen.queues WHERE name = $1', [name]);
  return r.rowCount ?? 0;
}

describe('item 1: NUL bytes and unpaired surrogates', () => {
  test('ack and ack/batch fields: 400 with the field text, UUID fields included; storable text that is no UUID misses (1.9)', async () => {
    const { api } = setup;
    const ack = (fields: Record<string, unknown>) => api.post('/api/v1/ack', { transactionId: 't', partitionId: SOME_UUID, ...fields });
    assert.deepEqual((await ack({ transactionId: `t${NUL}` })).json, { error: 'Invalid transactionId' });
    assert.deepEqual((await ack({ status: NUL })).json, { error: 'Invalid status' });
    assert.deepEqual((await ack({ consumerGroup: `g${NUL}` })).json, { error: 'Invalid consumerGroup' });
    assert.deepEqual((await ack({ error: `e${NUL}` })).json, { error: 'Invalid error' });
    assert.deepEqual((await ack({ consumerGroup: 'g\ud800' })).json, { error: 'Invalid consumerGroup' });
    for (const [fields, text] of [[{ leaseId: NUL }, 'Invalid leaseId'], [{ partitionId: NUL }, 'Invalid partitionId'], [{ partitionId: 'not-a-uuid', leaseId: 'x\ud800' }, 'Invalid leaseId']] as const) {
      const res = await ack(fields);
      assert.deepEqual([res.status, res.json], [400, { error: text }]);
    }
    const noUuid = await ack({ partitionId: 'not-a-uuid', leaseId: 'not-a-lease' });
    assert.equal(noUuid.status, 200, noUuid.text);
    assert.equal(noUuid.json[0].error, 'Message not found');
    const batch = await api.post('/api/v1/ack/batch', { acknowledgments: [{ transactionId: 't', partitionId: SOME_UUID, status: `x${NUL}` }] });
    assert.equal(batch.status, 400);
    assert.deepEqual(batch.json, { error: 'Invalid status' });
    const group = await api.post('/api/v1/ack/batch', { consumerGroup: NUL, acknowledgments: [] });
    assert.deepEqual([group.status, group.json], [400, { error: 'Invalid consumerGroup' }]);
  });

  test('transaction ack items and push items, configure namespace/task, push queue names', async () => {
    const { api } = setup;
    const tx = await api.post('/api/v1/transaction', { operations: [{ type: 'ack', transactionId: 't', partitionId: SOME_UUID, status: NUL }] });
    assert.deepEqual([tx.status, tx.json], [400, { error: 'Invalid status' }]);
    const txPush = await api.post('/api/v1/transaction', { operations: [{ type: 'push', items: [{ queue: 'q', partition: `p${NUL}` }] }] });
    assert.deepEqual([txPush.status, txPush.json], [400, { error: 'Invalid partition name' }]);
    const queue = uniqueQueue('cfg');
    for (const [field, text] of [['namespace', 'Invalid namespace'], ['task', 'Invalid task']] as const) {
      const res = await api.post('/api/v1/configure', { queue, [field]: `a${NUL}` });
      assert.deepEqual([res.status, res.json], [400, { error: text }]);
    }
    const surrogate = await api.post('/api/v1/configure', { queue: `s\ud800x${queue}` });
    assert.deepEqual([surrogate.status, surrogate.json], [400, { error: 'Invalid queue name' }]);
    const pushed = await api.push([{ queue: `s\ud800x${queue}`, payload: 1 }]);
    assert.deepEqual([pushed.status, pushed.json], [400, { error: 'Invalid queue name' }]);
    assert.equal(await queueCount(`s\ufffdx${queue}`), 0, 'nothing stored as U+FFFD');
    // Payloads are JSON text: a NUL or a lone surrogate there is escaped, stored and delivered as sent.
    const payload = { text: `a${NUL}b`, lone: 'x\ud800' };
    assert.equal((await api.push([{ queue, payload }])).status, 201);
    const popped = await api.get(`/api/v1/pop/queue/${queue}?autoAck=true`);
    assert.deepEqual(popped.json.messages[0].data, payload);
  });

  test('path segments and query filters of resources, messages, dlq, status, analytics and pop', async () => {
    const { api } = setup;
    for (const path of ['/api/v1/resources/queues/%00', '/api/v1/status/queues/%00', '/api/v1/status/queues/a%00/messages',
      '/api/v1/resources/queues?namespace=%00', '/api/v1/resources/partitions?queue=%00', '/api/v1/messages?queue=%00',
      '/api/v1/messages?partition=a%00', '/api/v1/dlq?queue=%00', '/api/v1/dlq?consumerGroup=%00', '/api/v1/status?queue=%00',
      '/api/v1/status/analytics?queue=%00', '/api/v1/analytics/queue-ops?queue=%00', '/api/v1/analytics/queue-lag?queue=%00',
      '/api/v1/consumer-groups/a%00', '/api/v1/queues/%00/clear']) {
      const res = await (path.endsWith('/clear') ? api.del(path) : api.get(path));
      assert.equal(res.status, 400, `${path}: ${res.text}`);
      assert.match(res.json.error, /^Invalid (queue name|partition name|consumerGroup|namespace)$/, path);
    }
    const pop = await api.get('/api/v1/pop/queue/q?consumerGroup=%00');
    assert.deepEqual([pop.status, pop.json], [400, { success: false, error: 'Invalid consumerGroup', messages: [] }]);
    const popPath = await api.get('/api/v1/pop/queue/%00');
    assert.deepEqual([popPath.status, popPath.json], [400, { success: false, error: 'Invalid queue name', messages: [] }]);
    // An invalid UUID in a path is a look-up that misses (1.9), never a 500.
    const message = await api.get(`/api/v1/messages/%00/t`);
    assert.deepEqual([message.status, message.json], [200, { error: 'Message not found' }]);
    const lease = await api.post('/api/v1/lease/%00/extend', {});
    assert.equal(lease.json[0].error, 'Lease not found');
  });
});

describe('item 2: metrics poisoning', () => {
  test('after a push of a poisoned item, other queues\u2019 counters still reach queen.stats_counters', async () => {
    const { api } = setup;
    const queue = uniqueQueue('counted');
    const poisoned = await api.push([{ queue: `a${NUL}`, payload: 1 }]);
    assert.deepEqual([poisoned.status, poisoned.json], [400, { error: 'Invalid queue name' }]);
    const tooLong = await api.push([{ queue: 'x'.repeat(300), payload: 1 }]);
    assert.equal(tooLong.json[0].error, 'Invalid queue name');
    assert.equal((await api.push([{ queue, payload: 1 }, { queue, payload: 2 }])).status, 201);
    const refresh = await api.post('/api/v1/stats/refresh', {});
    assert.equal(refresh.json.system.ok, true, refresh.text);
    const r = await setup.db.query<{ n: string }>('SELECT coalesce(sum(push_messages), 0)::text AS n FROM queen.stats_counters WHERE queue_name = $1', [queue]);
    assert.equal(Number(r.rows[0]!.n), 2);
    const keyed = await setup.db.query("SELECT 1 FROM queen.stats_counters WHERE queue_name LIKE 'xxxxxxxx%'");
    assert.equal(keyed.rowCount, 0, 'no counter row keyed by an invalid name');
  });
});

describe('item 3: integers out of range', () => {
  test('partitions, leaseSeconds, limit and offset past their range are a 400 naming them; batch and timeout clamp; non-numbers count as absent', async () => {
    const { api } = setup;
    const queue = uniqueQueue('int');
    assert.equal((await api.push([{ queue, payload: 1 }])).status, 201);
    for (const [param, max] of [['partitions', 2147483647], ['leaseSeconds', 315360000]] as const) {
      const res = await api.get(`/api/v1/pop/queue/${queue}?${param}=2147483648`);
      assert.deepEqual([res.status, res.json], [400, { success: false, error: `Invalid ${param}: must be an integer of at most ${max}`, messages: [] }]);
    }
    for (const param of ['limit', 'offset']) {
      for (const path of ['/api/v1/messages', '/api/v1/dlq', '/api/v1/resources/partitions', '/api/v1/status/queues']) {
        const res = await api.get(`${path}?${param}=2147483648`);
        assert.deepEqual([res.status, res.json], [400, { error: `Invalid ${param}: must be an integer of at most 2147483647` }], path);
      }
    }
    const lag = await api.get('/api/v1/consumer-groups/lagging?minLagSeconds=abc');
    assert.deepEqual([lag.status, lag.json], [400, { error: 'minLagSeconds must be an integer' }]);
    assert.equal((await api.get('/api/v1/consumer-groups/lagging?minLagSeconds=9007199254740991')).status, 200);
    // Values above a pop ceiling are capped (batch, timeout): the waiting message is delivered.
    const pop = await api.get(`/api/v1/pop/queue/${queue}?batch=99999999999&timeout=99999999999`);
    assert.equal(pop.status, 200, pop.text);
    assert.equal(pop.json.messages.length, 1);
  });
});

describe('item 4: deep nesting', () => {
  test('a body nested deeper than 512 levels is a 400 before any recursive walk', async () => {
    const { api } = setup;
    for (const depth of [513, 5000, 100_000]) {
      const res = await api.post('/api/v1/push', `{"items":[{"queue":"deep","payload":${nested(depth - 3)}}]}`);
      assert.deepEqual([res.status, res.json], [400, { error: 'Invalid JSON: nested deeper than 512 levels' }], String(depth));
    }
    const tx = await api.post('/api/v1/transaction', `{"operations":[{"type":"push","items":[{"queue":"deep","payload":${nested(600)}}]}]}`);
    assert.equal(tx.status, 400);
  });

  test('at the limit a payload round-trips through push, pop, messages, the DLQ and a transaction', async () => {
    const { api } = setup;
    const queue = uniqueQueue('deep');
    await api.post('/api/v1/configure', { queue, options: { retryLimit: 0, deadLetterQueue: true, dlqAfterMaxRetries: true } });
    const pushDepth = 512 - 3; // {"items":[{"payload": ...
    const pushed = await api.post('/api/v1/push', `{"items":[{"queue":"${queue}","transactionId":"deep-1","payload":${nested(pushDepth)}}]}`);
    assert.equal(pushed.status, 201, pushed.text);
    const expected = JSON.parse(nested(pushDepth)) as unknown;
    const popped = await api.get(`/api/v1/pop/queue/${queue}`);
    assert.deepEqual(popped.json.messages[0].data, expected);
    const { partitionId, leaseId } = popped.json.messages[0];
    const detail = await api.get(`/api/v1/messages/${partitionId}/deep-1`);
    assert.deepEqual(detail.json.payload, expected);
    const failed = await api.post('/api/v1/ack', { transactionId: 'deep-1', partitionId, leaseId, status: 'failed', error: 'boom' });
    assert.equal(failed.json[0].success, true, failed.text);
    const dlq = await api.get(`/api/v1/dlq?queue=${queue}`);
    assert.deepEqual(dlq.json.messages[0].data, expected);
    const txDepth = 512 - 5; // {"operations":[{"items":[{"payload": ...
    const tx = await api.post('/api/v1/transaction', `{"operations":[{"type":"push","items":[{"queue":"${queue}","payload":${nested(txDepth)}}]}]}`);
    assert.equal(tx.json.success, true, tx.text);
    const again = await api.get(`/api/v1/pop/queue/${queue}`);
    assert.deepEqual(again.json.messages[0].data, JSON.parse(nested(txDepth)));
  });
});

describe('item 5: lengths', () => {
  test('configure namespace or task longer than 255 characters is a 400; 255 is accepted', async () => {
    const { api } = setup;
    const queue = uniqueQueue('len');
    for (const field of ['namespace', 'task']) {
      for (const length of [256, 10_000]) {
        const res = await api.post('/api/v1/configure', { queue, [field]: 'n'.repeat(length) });
        assert.deepEqual([res.status, res.json], [400, { error: `Invalid ${field}` }], `${field} ${length}`);
      }
    }
    assert.equal(await queueCount(queue), 0);
    const ok = await api.post('/api/v1/configure', { queue, namespace: 'n'.repeat(255), task: 't'.repeat(255) });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.namespace, 'n'.repeat(255));
  });
});
