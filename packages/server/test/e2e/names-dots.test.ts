/**
 * Names that are URL path segments (docs/decisions.md "Dot names"): `.` and `..` are refused where a queue,
 * partition or consumer group is created (push, transaction, configure, pop's consumerGroup), with a text
 * naming the rule; dots inside a name stay allowed; a queue named `..` that already exists stays reachable
 * by a client that sends the path as it is (node:http, curl --path-as-is).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';

const setup = useBroker();

/** GET with the path sent byte for byte (fetch would resolve `..`). */
function rawGet(url: string, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

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
  const stored = await setup.db.query(`SELECT count(*)::int AS n FROM queen.queues WHERE name IN ('.', '..')`);
  assert.equal(stored.rows[0]!.n, 0);
});

test('a queue named ".." that already exists stays reachable with the path sent as it is', async () => {
  await setup.db.query(`SELECT queen.queue_ensure('..')`);
  const found = await rawGet(setup.broker.url, '/api/v1/resources/queues/%2E%2E');
  assert.equal(found.status, 200, found.body);
  assert.equal(found.headers['x-queen-status'], undefined, 'found, not a 404');
  assert.equal(JSON.parse(found.body).name, '..');
});
