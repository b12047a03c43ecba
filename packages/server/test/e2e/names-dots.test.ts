/**
 * Names that are URL path segments (docs/api.md 1.10, docs/decisions.md "Dot names"): `.` and `..` are
 * refused at every door that creates or changes something by name, with a text naming the rule: push,
 * transaction and sink items, configure, the three pop routes (sent without URL normalisation: before any
 * row is written), acks, traces, the streams routes, consumer-group subscription and seek. Dots inside a name stay
 * allowed; a queue or group named `..` that already exists stays readable and deletable by a client that
 * sends the path as it is (node:http, curl --path-as-is).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';

const setup = useBroker();

const DOTS = '"." and ".." are not allowed';

/** A request with the path sent byte for byte (fetch would resolve `.` and `..`). */
function raw(method: string, path: string, body?: unknown): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; json: any }> {
  const { hostname, port } = new URL(setup.broker.url);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers = data === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) };
    const req = http.request({ hostname, port, path, method, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: text === '' ? undefined : JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Queues, partitions, group rows and stream queries stored under a dot name. */
async function dotRows(): Promise<Record<string, number>> {
  const result = await setup.db.query(`SELECT
    (SELECT count(*)::int FROM queen.queues WHERE name IN ('.', '..') OR namespace IN ('.', '..') OR task IN ('.', '..')) AS queues,
    (SELECT count(*)::int FROM queen.partitions WHERE name IN ('.', '..')) AS partitions,
    (SELECT count(*)::int FROM queen.cursors WHERE consumer_group IN ('.', '..')) AS cursors,
    (SELECT count(*)::int FROM queen.subscriptions WHERE consumer_group IN ('.', '..')) AS subscriptions,
    (SELECT count(*)::int FROM queen_streams.queries WHERE name IN ('.', '..')) AS queries`);
  return result.rows[0]!;
}

const NONE = { queues: 0, partitions: 0, cursors: 0, subscriptions: 0, queries: 0 };

test('"." and ".." are refused as queue, partition and consumer group names where they are created', async () => {
  const { api } = setup;
  const queue = uniqueQueue('dots');
  const push = await api.push([
    { queue: '..', payload: 1 }, { queue: '.', payload: 2 }, { queue, partition: '..', payload: 3 }, { queue, partition: 'a.b', payload: 4 },
  ]);
  assert.equal(push.status, 201, push.text);
  assert.deepEqual(push.json.map((i: { status: string; error?: string }) => [i.status, i.error ?? null]), [
    ['failed', 'Invalid queue name: "." and ".." are not allowed'],
    ['failed', 'Invalid queue name: "." and ".." are not allowed'],
    ['failed', 'Invalid partition name: "." and ".." are not allowed'],
    ['queued', null],
  ]);
  const configure = await api.post('/api/v1/configure', { queue: '..' });
  assert.deepEqual([configure.status, configure.json], [400, { error: 'Invalid queue name: "." and ".." are not allowed' }]);
  assert.equal((await api.post('/api/v1/configure', { queue: `${queue}.v2` })).status, 200, 'dots inside a name are fine');
  const pop = await api.get(`/api/v1/pop/queue/${queue}?consumerGroup=..&wait=false`);
  assert.deepEqual([pop.status, pop.json], [400, { success: false, error: 'Invalid consumerGroup: "." and ".." are not allowed', messages: [] }]);
  const transaction = await api.post('/api/v1/transaction', { operations: [{ type: 'push', items: [{ queue, partition: '.', payload: 1 }] }] });
  assert.equal(transaction.json.success, false, transaction.text);
  assert.equal(transaction.json.results[0].error, 'Invalid partition name: "." and ".." are not allowed');
  assert.deepEqual(await dotRows(), NONE);
});

test('the three pop routes refuse "." and ".." (sent as they are) with 400 before any row is written', async () => {
  const queue = uniqueQueue('popdots');
  const refused = (what: string) => ({ success: false, error: `Invalid ${what}: ${DOTS}`, messages: [] });
  for (const [path, what] of [
    ['/api/v1/pop/queue/..?wait=false', 'queue name'],
    ['/api/v1/pop/queue/.?wait=false', 'queue name'],
    ['/api/v1/pop/queue/%2E%2E?wait=false', 'queue name'],
    [`/api/v1/pop/queue/${queue}/partition/..?wait=false`, 'partition name'],
    [`/api/v1/pop/queue/${queue}/partition/%2e?wait=false`, 'partition name'],
    [`/api/v1/pop/queue/${queue}/partition/p?consumerGroup=.&wait=false`, 'consumerGroup'],
    ['/api/v1/pop?namespace=..&wait=false', 'namespace'],
    ['/api/v1/pop?task=.&wait=false', 'task'],
    ['/api/v1/pop?namespace=n&consumerGroup=..&wait=false', 'consumerGroup'],
  ] as const) {
    const res = await raw('GET', path);
    assert.deepEqual([res.status, res.json], [400, refused(what)], path);
  }
  assert.deepEqual(await dotRows(), NONE);
  assert.equal((await setup.db.query('SELECT count(*)::int AS n FROM queen.queues WHERE name = $1', [queue])).rows[0]!.n, 0, 'the 400 wrote no queue row');
  const fine = await setup.api.get(`/api/v1/pop/queue/${queue}.v2/partition/a..b?consumerGroup=.g.&wait=false`);
  assert.equal(fine.status, 204, 'dots inside names are fine');
});

test('configure, acks, transaction acks and traces refuse "." and ".." as namespace, task, consumerGroup and trace name', async () => {
  const { api } = setup;
  const queue = uniqueQueue('cfgdots');
  for (const [body, text] of [
    [{ queue, namespace: '..' }, `Invalid namespace: ${DOTS}`],
    [{ queue, task: '.' }, `Invalid task: ${DOTS}`],
  ] as const) {
    const res = await api.post('/api/v1/configure', body);
    assert.deepEqual([res.status, res.json], [400, { error: text }], JSON.stringify(body));
  }
  const ack = { transactionId: 't', partitionId: randomUUID() };
  for (const [path, body] of [
    ['/api/v1/ack', { ...ack, consumerGroup: '..' }],
    ['/api/v1/ack/batch', { consumerGroup: '.', acknowledgments: [ack] }],
    ['/api/v1/ack/batch', { acknowledgments: [{ ...ack, consumerGroup: '..' }] }],
    ['/api/v1/transaction', { operations: [{ type: 'ack', ...ack, consumerGroup: '..' }] }],
  ] as const) {
    const res = await api.post(path, body);
    assert.deepEqual([res.status, res.json], [400, { error: `Invalid consumerGroup: ${DOTS}` }], `${path} ${JSON.stringify(body)}`);
  }
  for (const [body, text] of [
    [{ ...ack, data: {}, consumerGroup: '..' }, `Invalid consumerGroup: ${DOTS}`],
    [{ ...ack, data: {}, traceNames: ['ok', '.'] }, `Invalid traceNames: ${DOTS}`],
    [{ ...ack, data: {}, traceNames: '..' }, `Invalid traceNames: ${DOTS}`],
  ] as const) {
    const res = await api.post('/api/v1/traces', body);
    assert.deepEqual([res.status, res.json], [400, { error: text }], JSON.stringify(body));
  }
  const traced = await api.post('/api/v1/traces', { ...ack, data: {}, traceNames: ['a..b'] });
  assert.equal(traced.json.error, 'Message not found', 'a name with dots inside passes the checks');
  const scoped = await api.post('/api/v1/configure', { queue, namespace: 'a.b', task: '' });
  assert.deepEqual([scoped.status, scoped.json.namespace, scoped.json.task], [200, 'a.b', '']);
  assert.deepEqual(await dotRows(), NONE);
});

test('the streams routes refuse "." and ".." as query, queue and group names, and in sink items', async () => {
  const { api } = setup;
  for (const [body, text] of [
    [{ name: '..', source_queue: 'src', config_hash: 'h' }, `Invalid name: ${DOTS}`],
    [{ name: 'q', source_queue: '.', config_hash: 'h' }, `Invalid source_queue: ${DOTS}`],
    [{ name: 'q', source_queue: 'src', config_hash: 'h', sink_queue: '..' }, `Invalid sink_queue: ${DOTS}`],
  ] as const) {
    const res = await api.post('/streams/v1/queries', body);
    assert.deepEqual([res.status, res.json], [400, { error: text }], JSON.stringify(body));
  }
  const ids = { query_id: randomUUID(), partition_id: randomUUID() };
  const group = await api.post('/streams/v1/cycle', { ...ids, consumer_group: '..' });
  assert.deepEqual([group.status, group.json], [400, { error: `Invalid consumer_group: ${DOTS}` }]);
  const sink = await api.post('/streams/v1/cycle', { ...ids, push_items: [{ queue: 'sink', partition: '..', payload: {} }] });
  assert.equal(sink.status, 200, sink.text);
  assert.deepEqual([sink.json.success, sink.json.error], [false, `Invalid partition name: ${DOTS}`]);
  assert.deepEqual(await dotRows(), NONE);
});

test('subscription and seek refuse "." and ".." as group, queue and partition (sent as they are)', async () => {
  const queue = uniqueQueue('seekdots');
  assert.equal((await setup.api.push([{ queue, partition: 'p', payload: 1 }])).status, 201);
  for (const [path, body, what] of [
    ['/api/v1/consumer-groups/../subscription', { subscriptionTimestamp: 'now' }, 'consumerGroup'],
    ['/api/v1/consumer-groups/%2E/subscription', { subscriptionTimestamp: 'now' }, 'consumerGroup'],
    [`/api/v1/consumer-groups/../queues/${queue}/seek`, { toEnd: true }, 'consumerGroup'],
    ['/api/v1/consumer-groups/g/queues/../seek', { toEnd: true }, 'queue name'],
    [`/api/v1/consumer-groups/./queues/${queue}/partitions/p/seek`, { toEnd: true }, 'consumerGroup'],
    ['/api/v1/consumer-groups/g/queues/./partitions/p/seek', { toEnd: true }, 'queue name'],
    [`/api/v1/consumer-groups/g/queues/${queue}/partitions/../seek`, { toEnd: true }, 'partition name'],
  ] as const) {
    const res = await raw('POST', path, body);
    assert.deepEqual([res.status, res.json], [400, { error: `Invalid ${what}: ${DOTS}` }], path);
  }
  assert.deepEqual(await dotRows(), NONE);
});

test('a consumer group named ".." left from before the rule can still be read and deleted with the path sent as it is', async () => {
  const queue = uniqueQueue('olddots');
  assert.equal((await setup.api.push([{ queue, payload: 1 }])).status, 201);
  assert.equal((await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=legacy&wait=false&autoAck=true`)).status, 200);
  await setup.db.query(`UPDATE queen.cursors SET consumer_group = '..' WHERE consumer_group = 'legacy'`);
  await setup.db.query(`UPDATE queen.subscriptions SET consumer_group = '..' WHERE consumer_group = 'legacy'`);
  const detail = await raw('GET', '/api/v1/consumer-groups/..');
  assert.equal(detail.status, 200, detail.body);
  assert.deepEqual(Object.keys(detail.json), [queue]);
  const deleted = await raw('DELETE', `/api/v1/consumer-groups/../queues/${queue}`);
  assert.deepEqual([deleted.status, deleted.json.deletedPartitions, deleted.json.consumerGroup], [200, 1, '..']);
  assert.deepEqual(await dotRows(), NONE);
});

test('a queue named ".." that already exists stays readable and deletable with the path sent as it is, not poppable', async () => {
  await setup.db.query(`SELECT queen.queue_ensure('..')`);
  const found = await raw('GET', '/api/v1/resources/queues/%2E%2E');
  assert.equal(found.status, 200, found.body);
  assert.equal(found.headers['x-queen-status'], undefined, 'found, not a 404');
  assert.equal(found.json.name, '..');
  assert.equal((await raw('GET', '/api/v1/pop/queue/..?wait=false')).status, 400);
  const deleted = await raw('DELETE', '/api/v1/resources/queues/..');
  assert.equal(deleted.status, 200, deleted.body);
  assert.deepEqual(await dotRows(), NONE);
});
