/**
 * Failover (docs/api.md 9.5, 4.1, 1.4): PostgreSQL stops under a push load. Pushes keep being answered 201
 * (`queued` before, `buffered` after), `/health` answers 503 (buffer `buffering`, nothing `draining`) while
 * `/ready` stays 200 (writes go to the buffer), pops
 * and acks 503 `database is unreachable` with Retry-After; the
 * broker process never exits; when PostgreSQL is back the buffer is replayed and every message is delivered
 * exactly once, in order per partition.
 *
 * This file stops and starts a PostgreSQL of its own (embedded, data under a temporary folder), never the
 * test runner's shared one.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { client, uniqueQueue } from '../support/harness.js';
import { useOwnPostgres } from '../support/own-postgres.js';
import { bufferFiles, drain, sent } from '../support/buffering.js';
import { waitFor } from '../support/monitoring.js';

const own = useOwnPostgres('failover', { FILE_BUFFER_FLUSH_MS: '20', FILE_BUFFER_MAX_BATCH: '50' });

const PARTITIONS = ['p1', 'p2', 'p3'];

const UNREACHABLE = { error: 'Service Unavailable: the database is unreachable' };

test('PostgreSQL stopped during a push load: buffered, 503 + Retry-After while down, everything delivered exactly once after', async () => {
  const api = client(own.broker.url);
  const queue = uniqueQueue('failover');
  const answered = new Map<string, string[]>(PARTITIONS.map((p) => [p, []]));
  let running = true;

  // One sequential producer per partition, paced, until told to stop.
  const producers = Promise.all(PARTITIONS.map(async (partition) => {
    for (let n = 1; running; n++) {
      const transactionId = `f-${partition}-${n}`;
      const res = await api.push([{ queue, partition, transactionId, payload: { n } }]);
      assert.equal(res.status, 201, `push ${transactionId}: ${res.status} ${res.text}`);
      assert.ok(['queued', 'buffered'].includes(res.json[0].status), res.text);
      assert.equal(res.json[0].transaction_id, transactionId);
      answered.get(partition)!.push(res.json[0].status);
      await new Promise((r) => setTimeout(r, 5));
    }
  }));
  const count = (): number => Math.min(...[...answered.values()].map((l) => l.length));

  await waitFor(async () => count(), (n) => n >= 30, 20_000);
  await own.stopPostgres();
  const atStop = count();
  await waitFor(async () => count(), (n) => n >= atStop + 40, 20_000);

  // Down: health 503, pops and acks 503 with Retry-After; the buffer holds the pushes; nothing drains.
  const health = await api.get('/health');
  assert.equal(health.status, 503);
  assert.equal(health.headers.get('retry-after'), '1');
  assert.equal(health.json.status, 'unhealthy');
  assert.equal(health.json.database, 'disconnected');
  assert.equal(health.json.queen.status, 'active', 'nothing drains while the database is down');
  assert.equal(health.json.buffer.state, 'buffering');
  assert.ok(health.json.buffer.buffered_messages > 0);
  // Ready all the same: pushes are buffered, so a load balancer following /ready keeps this broker in service.
  const ready = await api.get('/ready');
  assert.equal(ready.status, 200, ready.text);
  assert.deepEqual([ready.json.ready, ready.json.reason, ready.json.writes, ready.json.buffer.state], [true, null, 'buffer', 'buffering']);
  const pop = await api.get(`/api/v1/pop/queue/${queue}/partition/p1`);
  assert.deepEqual([pop.status, pop.json, pop.headers.get('retry-after')], [503, UNREACHABLE, '1']);
  const ack = await api.post('/api/v1/ack', { transactionId: 'f-p1-1', partitionId: randomUUID(), leaseId: randomUUID(), status: 'completed' });
  assert.deepEqual([ack.status, ack.json, ack.headers.get('retry-after')], [503, UNREACHABLE, '1']);
  for (const [method, route, body] of [
    ['GET', '/api/v1/resources/queues', undefined], ['GET', '/api/v1/status', undefined], ['GET', '/api/v1/system/shared-state', undefined],
    ['POST', '/api/v1/configure', { queue }], ['POST', '/api/v1/system/maintenance', { enabled: true }],
    ['POST', '/api/v1/transaction', { operations: [{ type: 'push', items: [{ queue, payload: 1 }] }] }],
  ] as const) {
    const res = method === 'GET' ? await api.get(route) : await api.post(route, body);
    assert.deepEqual([res.status, res.json, res.headers.get('retry-after')], [503, UNREACHABLE, '1'], `${method} ${route}`);
  }
  const maintenance = await api.get('/api/v1/system/maintenance');
  assert.equal(maintenance.status, 200, 'the flags and buffer figures are answered from memory');
  assert.equal(maintenance.json.bufferStats.dbHealthy, false);
  assert.ok(maintenance.json.bufferedMessages > 0);
  const buffers = await api.get('/api/v1/status/buffers');
  assert.equal(buffers.json.dbHealthy, false);
  assert.ok(buffers.json.pending > 0);
  assert.ok(bufferFiles(own.bufferDir).length > 0);
  for (const statuses of answered.values()) assert.ok(statuses.slice(atStop + 5).every((s) => s === 'buffered'), 'pushes while down are buffered');

  await own.startPostgres();
  const atStart = count();
  await waitFor(async () => count(), (n) => n >= atStart + 30, 30_000);
  running = false;
  await producers;
  assert.equal(own.broker.process.exitCode, null, 'the broker never exited');

  const expected = new Map([...answered].map(([p, l]) => [p, l.length]));
  const got = await drain(api, queue, expected, 60_000);
  for (const p of PARTITIONS) assert.deepEqual(got.get(p), sent('f', p, answered.get(p)!.length), `exactly once, in order, on ${p}`);
  const healthy = await waitFor(() => api.get('/health'), (res) => res.status === 200 && res.json.buffer.state === 'idle', 10_000);
  assert.deepEqual([healthy.json.queen.status, healthy.json.buffer], ['active', { state: 'idle', buffered_messages: 0, detail: 'empty' }]);
  const readyAfter = await api.get('/ready');
  assert.deepEqual([readyAfter.status, readyAfter.json.writes, readyAfter.json.buffer.state], [200, 'database', 'idle']);
  await waitFor(async () => bufferFiles(own.bufferDir).length, (n) => n === 0, 10_000);
  const after = await api.get('/api/v1/system/maintenance');
  assert.equal(after.json.bufferedMessages, 0);
  assert.equal(after.json.bufferStats.dbHealthy, true);
  assert.ok([...answered.values()].every((l) => l.includes('queued') && l.includes('buffered')));
  // The LISTEN/NOTIFY connection came back by itself too.
  await waitFor(() => own.database.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%queen_wake%' AND pid <> pg_backend_pid()`),
    (res) => res.rows[0]!.n >= 1, 10_000);
});
