/**
 * Maintenance flags across broker processes (docs/api.md 7.9, 9.2 rule 2, 9.4): the routes' exact shapes and
 * 400 text, flags seen by another process within about a second, pop maintenance answering parked and new
 * pops `paused` at once without taking a lease, shared state from the heartbeat rows.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { bufferDir } from '../support/buffering.js';
import { scrape, waitFor } from '../support/monitoring.js';

let db: TestDatabase;
let brokerA: BrokerProcess;
let brokerB: BrokerProcess;
let a: ReturnType<typeof client>;
let b: ReturnType<typeof client>;
const dir = bufferDir();

before(async () => {
  db = await createDatabase();
  // Parked pops re-check only every 10 s: an answer well before that comes from the flag change.
  const env = { FILE_BUFFER_DIR: dir, POP_WAIT_INITIAL_INTERVAL_MS: '10000', POP_WAIT_MAX_INTERVAL_MS: '10000' };
  brokerA = await startBroker(db, env);
  brokerB = await startBroker(db, env);
  a = client(brokerA.url);
  b = client(brokerB.url);
});
after(async () => {
  await Promise.all([brokerA?.stop(), brokerB?.stop()]);
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the 400 text for a body without a boolean `enabled`, on both POST routes', async () => {
  for (const path of ['/api/v1/system/maintenance', '/api/v1/system/maintenance/pop']) {
    for (const body of [{}, { enabled: 'true' }, { enabled: 1 }, { enabled: null }]) {
      const res = await a.post(path, body);
      assert.deepEqual([res.status, res.json], [400, { error: 'enabled (boolean) is required' }], `${path} ${JSON.stringify(body)}`);
    }
  }
  assert.equal((await a.get('/api/v1/system/maintenance/pop')).json.popMaintenanceMode, false);
});

test('a flag set on one process is seen by the other within about a second (push maintenance)', async () => {
  const on = await a.post('/api/v1/system/maintenance', { enabled: true });
  assert.equal(on.status, 200);
  const started = Date.now();
  await waitFor(() => b.get('/api/v1/system/maintenance'), (res) => res.json.maintenanceMode === true, 3000);
  const seenAfter = Date.now() - started;
  assert.ok(seenAfter < 3000, `seen after ${seenAfter} ms`);
  const health = await b.get('/health');
  assert.equal(health.json.shared_state.maintenance_mode, true);
  assert.equal(health.json.shared_state.pop_maintenance_mode, false);
  const off = await b.post('/api/v1/system/maintenance', { enabled: false });
  assert.deepEqual(Object.keys(off.json).sort(), ['bufferHealthy', 'bufferedMessages', 'maintenanceMode', 'message']);
  assert.equal(off.json.maintenanceMode, false);
  await waitFor(() => a.get('/api/v1/system/maintenance'), (res) => res.json.maintenanceMode === false, 3000);
});

test('a change whose notification never came is picked up by the one-second poll', async () => {
  // Written behind the brokers' backs: no NOTIFY, only the version bump a real change makes.
  await db.query('UPDATE queen.system_state SET pop_maintenance = true, version = version + 1');
  await Promise.all([a, b].map((api) => waitFor(() => api.get('/api/v1/system/maintenance/pop'), (res) => res.json.popMaintenanceMode === true, 3000)));
  assert.equal((await b.post('/api/v1/system/maintenance/pop', { enabled: false })).json.popMaintenanceMode, false);
  await waitFor(() => a.get('/api/v1/system/maintenance/pop'), (res) => res.json.popMaintenanceMode === false, 3000);
});

test('replayed messages wake parked pops, in another process too', async () => {
  const queue = uniqueQueue('replay-wake');
  assert.equal((await a.post('/api/v1/system/maintenance', { enabled: true })).status, 200);
  const pushed = await a.push([{ queue, transactionId: 'r1', payload: 1 }, { queue, transactionId: 'r2', payload: 2 }]);
  assert.deepEqual(pushed.json.map((r: any) => r.status), ['buffered', 'buffered']);
  await waitFor(() => b.get('/api/v1/system/maintenance'), (res) => res.json.maintenanceMode === true, 3000);
  const parked = b.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=30000&batch=10`);
  await waitFor(() => scrape(brokerB.url), (families) =>
    families.get('queen_long_polls_parked')?.samples.some((s) => s.labels.queue === queue && s.value === 1) === true);
  const offAt = Date.now();
  assert.equal((await b.post('/api/v1/system/maintenance', { enabled: false })).status, 200);
  const answer = await parked;
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(answer.json.messages.map((m: any) => m.transactionId), ['r1', 'r2']);
  assert.ok(Date.now() - offAt < 8000, `woken ${Date.now() - offAt} ms after maintenance off (the re-check would come at 10 s)`);
});

test('pop maintenance: a parked pop on another process answers 204 paused at once; new pops too; no lease is taken', async () => {
  const queue = uniqueQueue('popm');
  const empty = uniqueQueue('popm-empty');
  const pushed = await a.push([1, 2, 3].map((n) => ({ queue, transactionId: `t${n}`, payload: n })));
  assert.equal(pushed.status, 201);

  // Parked on A, on an empty queue, for up to 30 s.
  const parkedAt = Date.now();
  const parked = a.get(`/api/v1/pop/queue/${empty}?wait=true&timeout=30000`);
  await waitFor(() => scrape(brokerA.url), (families) =>
    families.get('queen_long_polls_parked')?.samples.some((s) => s.labels.queue === empty && s.value === 1) === true);

  const on = await b.post('/api/v1/system/maintenance/pop', { enabled: true });
  assert.equal(on.status, 200);
  assert.deepEqual(Object.keys(on.json).sort(), ['message', 'popMaintenanceMode']);
  assert.equal(on.json.popMaintenanceMode, true);
  assert.equal(typeof on.json.message, 'string');

  const answer = await parked;
  const waited = Date.now() - parkedAt;
  assert.equal(answer.status, 204);
  assert.equal(answer.headers.get('x-queen-empty-reason'), 'paused');
  assert.ok(waited < 8000, `the parked pop answered after ${waited} ms (its own re-check would come at 10 s)`);

  // New pops, on both processes and every route shape, answer paused although messages are waiting.
  for (const api of [a, b]) {
    for (const path of [`/api/v1/pop/queue/${queue}`, `/api/v1/pop/queue/${queue}/partition/Default`, `/api/v1/pop?namespace=${queue}`]) {
      const res = await api.get(`${path}${path.includes('?') ? '&' : '?'}wait=true&timeout=5000`);
      assert.equal(res.status, 204, path);
      assert.equal(res.headers.get('x-queen-empty-reason'), 'paused', path);
    }
  }
  // Validation still comes first.
  assert.equal((await a.get('/api/v1/pop')).status, 400);
  const state = await a.get('/api/v1/system/maintenance/pop');
  assert.deepEqual(Object.keys(state.json).sort(), ['message', 'popMaintenanceMode']);
  assert.equal(state.json.popMaintenanceMode, true);
  assert.equal((await a.get('/api/v1/system/maintenance')).json.popMaintenanceMode, true);
  assert.equal((await a.get('/health')).json.shared_state.pop_maintenance_mode, true);
  const mode = (await scrape(brokerA.url)).get('queen_maintenance_mode')!.samples;
  assert.deepEqual(mode.map((s) => [s.labels.kind, s.value]).sort(), [['pop', 1], ['push', 0]]);
  const paused = (await scrape(brokerA.url)).get('queen_pop_empty_total')!.samples.find((s) => s.labels.reason === 'paused');
  assert.ok(paused !== undefined && paused.value >= 4);
  // Pushes and acks are unaffected.
  const more = await b.push([{ queue, transactionId: 't4', payload: 4 }]);
  assert.equal(more.json[0].status, 'queued');
  const leases = await db.query(`SELECT count(*)::int AS n FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
    JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND c.lease_expires_at > now()`, [queue]);
  assert.equal(leases.rows[0]!.n, 0, 'no lease was taken while paused');

  // Off (on the other process): a pop gets every message at once, nothing is leased by a paused pop.
  const off = await a.post('/api/v1/system/maintenance/pop', { enabled: false });
  assert.equal(off.json.popMaintenanceMode, false);
  const res = await waitFor(() => b.get(`/api/v1/pop/queue/${queue}?batch=10`), (r) => r.status === 200, 3000);
  assert.deepEqual(res.json.messages.map((m: any) => m.transactionId), ['t1', 't2', 't3', 't4']);
});

test('shared state lists the live processes from their heartbeats, with the flags', async () => {
  const res = await a.get('/api/v1/system/shared-state');
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.json).sort(), ['maintenanceMode', 'popMaintenanceMode', 'processes', 'serverId']);
  assert.equal(res.json.maintenanceMode, false);
  assert.equal(res.json.popMaintenanceMode, false);
  const health = await a.get('/health');
  assert.equal(res.json.serverId, health.json.shared_state.server_id);
  assert.equal(res.json.processes.length, 2);
  for (const p of res.json.processes) {
    assert.deepEqual(Object.keys(p).sort(), ['hostname', 'lastHeartbeatAt', 'parkedPops', 'pid', 'serverId', 'startedAt']);
    assert.match(p.startedAt, /Z$/);
    assert.equal(typeof p.pid, 'number');
  }
  assert.deepEqual(res.json.processes.map((p: any) => p.pid).sort(), [brokerA.process.pid, brokerB.process.pid].sort());
  const buffers = await b.get('/api/v1/status/buffers');
  assert.deepEqual(buffers.json, { pending: 0, failed: 0, dbHealthy: true, worker: (await b.get('/health')).json.shared_state.server_id });
});
