/**
 * QUEEN_WORKERS=2 (docs/decisions.md "Workers"): two worker processes behind one port. /health lists every
 * worker, /metrics and /metrics/prometheus add up what each worker counted, a worker killed with SIGKILL
 * under push load loses nothing that was acknowledged and is replaced at once, and /health says so meanwhile.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runningServerOn } from '../../src/store/embedded.js';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type Client, type TestDatabase } from '../support/harness.js';

let db: TestDatabase;
let broker: BrokerProcess;
let api: Client;

before(async () => {
  db = await createDatabase();
  broker = await startBroker(db, { QUEEN_WORKERS: '2' });
  api = client(broker.url);
  // /health is 200 once worker 0 serves; worker 1 starts after it (it applied the migrations).
  for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    if ((await health()).workers.every((w) => w.status === 'healthy')) break;
  }
});
after(async () => {
  await broker?.stop();
  await db?.close();
});

interface WorkerEntry { worker_id: number; pid: number | null; status: string }

/** GET /health, bounded (a request the primary handed to a worker that died meanwhile is never answered). */
async function health(): Promise<{ status: number; workers: WorkerEntry[] }> {
  const res = await fetch(`${broker.url}/health`, { signal: AbortSignal.timeout(5000) });
  const body = (await res.json()) as { workers: WorkerEntry[] };
  return { status: res.status, workers: body.workers };
}

/** A push on a connection of its own (no keep-alive), so that the primary hands successive pushes to different workers. */
function pushOnNewConnection(queue: string, payload: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ items: [{ queue, payload }] });
    const req = http.request(`${broker.url}/api/v1/push`, { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

test('/health lists both workers, healthy, each with its own pid', async () => {
  const { status, workers } = await health();
  assert.equal(status, 200);
  assert.deepEqual(workers.map((w) => [w.worker_id, w.status]), [[0, 'healthy'], [1, 'healthy']]);
  assert.notEqual(workers[0]!.pid, workers[1]!.pid);
  assert.ok(!workers.some((w) => w.pid === broker.process.pid), 'the workers are not the primary');
});

test('/metrics and /metrics/prometheus add up the counters of both workers', async () => {
  const queue = uniqueQueue('workers-metrics');
  const before = (await api.get('/metrics')).json.messages.total as number;
  for (let i = 0; i < 40; i++) assert.equal(await pushOnNewConnection(queue, { i }), 201);
  const summary = (await api.get('/metrics')).json;
  assert.equal(summary.messages.total - before, 40, 'every worker\'s pushes counted once');
  assert.equal(summary.database.poolSize > 0, true);
  const text = await (await fetch(`${broker.url}/metrics/prometheus`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`queen_messages_pushed_total{queue="${queue}"}`));
  assert.equal(line?.split(' ')[1], '40', text.slice(0, 2000));
  // A database gauge is the same in every worker: taken once, not summed (each worker reads it at most every 5 s).
  let pending: string | undefined;
  for (const until = Date.now() + 10_000; pending === undefined && Date.now() < until; await new Promise((r) => setTimeout(r, 500))) {
    const scraped = await (await fetch(`${broker.url}/metrics/prometheus`)).text();
    pending = scraped.split('\n').find((l) => l.startsWith(`queen_queue_pending_messages{queue="${queue}"}`))?.split(' ')[1];
  }
  assert.equal(pending, '40');
});

test('a worker killed under push load loses nothing acknowledged, /health shows it, and it is replaced', async () => {
  const queue = uniqueQueue('workers-kill');
  const acknowledged = new Set<number>();
  let next = 0;
  let stop = false;
  const producer = async (): Promise<void> => {
    while (!stop) {
      const id = next++;
      // A push cut by the kill is not acknowledged: the client would retry it; only 201s are promised.
      const status = await pushOnNewConnection(queue, { id }).catch(() => 0);
      if (status === 201) acknowledged.add(id);
    }
  };
  const producers = Array.from({ length: 8 }, () => producer());
  while (acknowledged.size < 100) await new Promise((r) => setTimeout(r, 20));

  const { workers } = await health();
  const victim = workers[0]!;
  process.kill(victim.pid!, 'SIGKILL');
  const seen = new Set<string>();
  let replaced: WorkerEntry | undefined;
  const deadline = Date.now() + 30_000;
  while (replaced === undefined && Date.now() < deadline) {
    const now = await health().catch(() => null);
    const slot = now?.workers.find((w) => w.worker_id === victim.worker_id);
    if (slot !== undefined) seen.add(slot.status);
    if (slot !== undefined && slot.status === 'healthy' && slot.pid !== victim.pid) replaced = slot;
    else await new Promise((r) => setTimeout(r, 20));
  }
  const pushedAfter = acknowledged.size;
  while (acknowledged.size < pushedAfter + 100) await new Promise((r) => setTimeout(r, 20));
  stop = true;
  await Promise.all(producers);

  assert.ok(replaced !== undefined, `worker ${victim.worker_id} was not replaced; statuses seen: ${[...seen].join(', ')}`);
  // Before the primary has seen the exit the slot does not answer (503); after, it is restarting until the replacement serves.
  assert.ok(seen.has('restarting') || seen.has('not answering'), `/health never showed the dead worker: ${[...seen].join(', ')}`);
  await broker.outputMatching(/worker 0 died \(SIGKILL\): starting its replacement/);

  const delivered = new Set<number>();
  for (let i = 0; i < 100; i++) {
    const res = await api.get(`/api/v1/pop/queue/${queue}?batch=10000&partitions=0&autoAck=true`);
    if (res.status === 204) break;
    assert.equal(res.status, 200, res.text);
    for (const m of res.json.messages as { data: { id: number } }[]) delivered.add(m.data.id);
  }
  const lost = [...acknowledged].filter((id) => !delivered.has(id));
  assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.size} acknowledged pushes lost`);
  const final = await health();
  assert.equal(final.status, 200);
  assert.deepEqual(final.workers.map((w) => w.status), ['healthy', 'healthy']);
});

test('SIGTERM drains both workers and the primary exits 0', async () => {
  const code = await broker.stop();
  assert.equal(code, 0, broker.output());
});

test('with the embedded PostgreSQL the primary starts it before the workers and stops it after them', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-workers-'));
  fs.chmodSync(dataDir, 0o777);
  const embedded: TestDatabase = { name: 'embedded', env: {}, query: () => Promise.reject(new Error('embedded')), close: async () => undefined };
  const primary = await startBroker(embedded, { QUEEN_WORKERS: '2', QUEEN_DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' });
  try {
    const started = Date.now();
    while (!/listening on .* with 2 workers/.test(primary.output()) && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 50));
    assert.match(primary.output(), /Queen .* listening on http:\/\/127\.0\.0\.1:\d+ \(embedded PostgreSQL .*\) with 2 workers/);
    const body = (await (await fetch(`${primary.url}/health`)).json()) as { workers: WorkerEntry[] };
    assert.deepEqual(body.workers.map((w) => w.status), ['healthy', 'healthy']);
    assert.ok(runningServerOn(path.join(dataDir, 'pgdata')) !== null, 'PostgreSQL runs');
    assert.equal(await primary.stop(), 0, primary.output());
    assert.equal(runningServerOn(path.join(dataDir, 'pgdata')), null, 'PostgreSQL stopped with the primary');
    assert.equal((primary.output().match(/Queen broker stopped/g) ?? []).length, 3, primary.output());
  } finally {
    await primary.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
