/**
 * A broker started while its external PostgreSQL is unreachable (docs/api.md 9.8 rule 3, issue 41): it opens
 * its port at once, is ready (`/ready` 200, writes to the buffer) while `/health` is 503, buffers pushes
 * (checked item by item as always; a malformed request is still a 400), answers pops, acks and the other
 * routes 503 with Retry-After, and, once PostgreSQL answers, migrates the fresh database and replays: every
 * message is delivered once, in order per partition. With a multi-host URL it does the same while it looks
 * for a primary.
 *
 * The PostgreSQL is this file's own (embedded binaries, data in a temporary folder), created, then stopped
 * before any broker ran on it: the schema does not exist yet when the broker starts.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../dist/index.js';
import { bufferDir, bufferFiles, drain, sent } from '../support/buffering.js';
import { client, freePort, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { waitFor } from '../support/monitoring.js';

const UNREACHABLE = { error: 'Service Unavailable: the database is unreachable' };
const PARTITIONS = ['p1', 'p2'];

let folder = '';
let port = 0;
let postgres: EmbeddedServer | null = null;
const brokers: BrokerProcess[] = [];
const dirs: string[] = [];

const startPostgres = async (): Promise<void> => {
  postgres = await startEmbeddedPostgres(path.join(folder, 'pgdata'), port, () => undefined, 100);
};
const stopPostgres = async (): Promise<void> => {
  await postgres?.stop();
  postgres = null;
};

before(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-offline-start-pg-'));
  fs.chmodSync(folder, 0o777); // as root, PostgreSQL runs as `postgres` and must reach its data folder
  port = await freePort();
  await startPostgres(); // creates the cluster
  await stopPostgres();
});

after(async () => {
  for (const broker of brokers) await broker.kill();
  await stopPostgres();
  fs.rmSync(folder, { recursive: true, force: true });
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A broker on `env`'s database, started while that database is down: resolves once /ready answers 200. */
async function offlineBroker(env: Record<string, string>): Promise<BrokerProcess> {
  const dir = bufferDir();
  dirs.push(dir);
  const database: TestDatabase = { name: 'postgres', env, query: () => Promise.reject(new Error('unused')), close: async () => undefined };
  const broker = await startBroker(database, { FILE_BUFFER_DIR: dir, FILE_BUFFER_FLUSH_MS: '20' }, undefined, '/ready');
  brokers.push(broker);
  return broker;
}

/** Pushes `count` single-item requests per partition, sequentially per partition; every one must be 201 `buffered`. */
async function pushBuffered(api: ReturnType<typeof client>, queue: string, prefix: string, count: number): Promise<void> {
  await Promise.all(PARTITIONS.map(async (partition) => {
    for (let n = 1; n <= count; n++) {
      const res = await api.push([{ queue, partition, transactionId: `${prefix}-${partition}-${n}`, payload: { n } }]);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json[0].status, 'buffered', res.text);
    }
  }));
}

test('started while PostgreSQL is down: ready, pushes buffered, the rest 503 + Retry-After; migrated and replayed once it answers', async () => {
  const env = { PG_HOST: '127.0.0.1', PG_PORT: String(port), PG_USER: 'postgres', PG_PASSWORD: 'postgres', PG_DB: 'postgres' };
  const broker = await offlineBroker(env);
  const api = client(broker.url);
  const queue = uniqueQueue('offline');

  const ready = await api.get('/ready');
  assert.deepEqual([ready.status, ready.json.ready, ready.json.reason, ready.json.writes, ready.json.buffer.state], [200, true, null, 'buffer', 'buffering']);
  const health = await api.get('/health');
  assert.deepEqual([health.status, health.json.status, health.json.database, health.headers.get('retry-after')], [503, 'unhealthy', 'disconnected', '1']);
  assert.equal((await api.get('/metrics')).status, 200, 'liveness answers');

  await pushBuffered(api, queue, 'o', 20);
  // Checked as always without the catalogue: a bad item fails alone, a malformed request is a 400.
  const mixed = await api.push([{ queue: '', payload: 1 }, { queue, partition: 'p1', transactionId: 'o-p1-21', payload: { n: 21 } }]);
  assert.equal(mixed.status, 201, mixed.text);
  assert.deepEqual(mixed.json.map((i: any) => i.status), ['failed', 'buffered']);
  assert.equal(mixed.json[0].error, 'Invalid queue name');
  assert.equal((await api.post('/api/v1/push', { items: 'nope' })).status, 400);
  assert.ok(bufferFiles(path.join(dirs[0]!)).length > 0, 'the pushes are on disk');

  const pop = await api.get(`/api/v1/pop/queue/${queue}/partition/p1`);
  assert.deepEqual([pop.status, pop.json, pop.headers.get('retry-after')], [503, UNREACHABLE, '1']);
  const ack = await api.post('/api/v1/ack', { transactionId: 'o-p1-1', partitionId: randomUUID(), leaseId: randomUUID(), status: 'completed' });
  assert.deepEqual([ack.status, ack.json, ack.headers.get('retry-after')], [503, UNREACHABLE, '1']);
  for (const route of ['/api/v1/resources/queues', '/api/v1/system/maintenance', '/api/v1/status']) {
    const res = await api.get(route);
    assert.deepEqual([res.status, res.json, res.headers.get('retry-after')], [503, UNREACHABLE, '1'], route);
  }
  assert.equal((await api.get('/api/v1/no-such-route')).status, 404, 'an unknown route is still a 404');

  await startPostgres();
  const healthy = await waitFor(() => api.get('/health'), (res) => res.status === 200 && res.json.buffer.state === 'idle', 30_000);
  assert.equal(healthy.json.database, 'connected');
  assert.equal(broker.process.exitCode, null);
  const got = await drain(api, queue, new Map([['p1', 21], ['p2', 20]]), 30_000);
  assert.deepEqual(got.get('p1'), sent('o', 'p1', 21), 'exactly once, in order, on p1');
  assert.deepEqual(got.get('p2'), sent('o', 'p2', 20), 'exactly once, in order, on p2');
  const after = await api.get('/ready');
  assert.deepEqual([after.status, after.json.writes], [200, 'database']);
  // Pushes now commit directly, and the schema was migrated by this broker.
  const direct = await api.push([{ queue, partition: 'p1', payload: 'now' }]);
  assert.equal(direct.json[0].status, 'queued', direct.text);
  await broker.stop();
});

test('a multi-host URL: buffered while no primary is found, replayed once the primary answers', async () => {
  await stopPostgres();
  const closed = await freePort();
  const broker = await offlineBroker({ DATABASE_URL: `postgres://postgres:postgres@127.0.0.1:${closed},127.0.0.1:${port}/postgres?target_session_attrs=read-write` });
  const api = client(broker.url);
  const queue = uniqueQueue('offline-multi');
  assert.equal((await api.get('/ready')).json.writes, 'buffer');
  await pushBuffered(api, queue, 'm', 10);
  await startPostgres();
  await waitFor(() => api.get('/health'), (res) => res.status === 200, 30_000);
  const got = await drain(api, queue, new Map([['p1', 10], ['p2', 10]]), 30_000);
  for (const p of PARTITIONS) assert.deepEqual(got.get(p), sent('m', p, 10), `in order on ${p}`);
  assert.equal((await api.get('/health')).json.database_server, `127.0.0.1:${port}`);
});
