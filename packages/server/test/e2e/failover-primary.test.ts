/**
 * High availability without an HA manager: a real primary with a synchronous hot standby
 * (support/replicas.ts), and one broker on the multi-host URL that lists the standby first. The broker
 * settles on the writable primary, notices a primary that stops answering (SIGSTOP) within its probe
 * timeout instead of hanging, and follows a promotion after the primary is killed, without a restart;
 * every acknowledged push is delivered exactly once, in order per partition.
 *
 * The failover of a real HA engine (pg_auto_failover) is proved by `npm run bench -- failover`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { client, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { bufferDir, drain } from '../support/buffering.js';
import { signalServer, sql, startReplicaPair, type ReplicaPair } from '../support/replicas.js';

let folder: string;
let pair: ReplicaPair;
let broker: BrokerProcess;
const dir = bufferDir();
const PARTITIONS = ['p1', 'p2'];

before(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-failover-primary-'));
  fs.chmodSync(folder, 0o777); // as root, PostgreSQL runs as `postgres` and must reach its data folder
  pair = await startReplicaPair(folder);
  const url = `postgres://postgres:postgres@127.0.0.1:${pair.standbyPort},127.0.0.1:${pair.primaryPort}/postgres`;
  const database: TestDatabase = { name: 'postgres', env: { DATABASE_URL: url }, query: () => Promise.reject(new Error('unused')), close: async () => undefined };
  broker = await startBroker(database, {
    FILE_BUFFER_DIR: dir, FILE_BUFFER_FLUSH_MS: '20', DB_KEEPALIVES_INTERVAL: '1', DB_TCP_USER_TIMEOUT_MS: '2000', DB_CONNECT_TIMEOUT_MS: '1000', LOG_LEVEL: 'info',
  });
});

after(async () => {
  await broker?.stop();
  await pair?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Sequential producers, one per partition, until `stop()`: every answered push by status. */
function producers(queue: string) {
  const api = client(broker.url);
  const acknowledged = new Map<string, number>(PARTITIONS.map((p) => [p, 0]));
  const statuses: Array<{ at: number; status: string }> = [];
  let running = true;
  const done = Promise.all(PARTITIONS.map(async (partition) => {
    for (let n = 1; running; n++) {
      const res = await api.push([{ queue, partition, transactionId: `${partition}-${n}`, payload: { n } }]);
      assert.equal(res.status, 201, `push ${partition}-${n}: ${res.status} ${res.text}`);
      statuses.push({ at: Date.now(), status: res.json[0].status });
      acknowledged.set(partition, n);
      await new Promise((r) => setTimeout(r, 10));
    }
  }));
  return {
    acknowledged,
    /** When the first push after `since` was committed (not buffered). */
    firstQueuedAfter: (since: number) => statuses.find((s) => s.at > since && s.status === 'queued')?.at,
    bufferedAfter: (since: number) => statuses.filter((s) => s.at > since && s.status === 'buffered').length,
    count: () => statuses.length,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}\n${broker.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every acknowledged push is delivered once, in order per partition. */
async function assertDelivered(queue: string, acknowledged: Map<string, number>): Promise<void> {
  const got = await drain(client(broker.url), queue, acknowledged, 60_000);
  for (const [partition, count] of acknowledged) {
    assert.deepEqual(got.get(partition), Array.from({ length: count }, (_, i) => `${partition}-${i + 1}`), `partition ${partition}`);
  }
}

test('the standby listed first is skipped: the broker settles on the writable primary', async () => {
  const api = client(broker.url);
  const queue = uniqueQueue('settle');
  const pushed = await api.push([{ queue, payload: { n: 1 } }]);
  assert.equal(pushed.status, 201);
  assert.equal(pushed.json[0].status, 'queued', pushed.text);
  const popped = await api.get(`/api/v1/pop/queue/${queue}?autoAck=true`);
  assert.equal(popped.status, 200);
  const onStandby = await sql(pair.standbyPort, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'queen:%'`);
  assert.equal(onStandby.rows[0].n, 0, 'no broker session stays on the standby');
  await broker.outputMatching(new RegExp(`PostgreSQL primary is 127\\.0\\.0\\.1:${pair.primaryPort}`));
});

test('a primary that stops answering (SIGSTOP) is noticed within the probe timeout: pushes are buffered, not hung', async () => {
  const queue = uniqueQueue('stall');
  const load = producers(queue);
  await until(() => load.count() >= 20, 'pushes flow');
  const stalledAt = Date.now();
  signalServer(path.join(folder, 'primary'), 'SIGSTOP');
  try {
    // Pushes in flight hang on the stopped server until the probe gives up on it (2 s), then go to the buffer.
    await until(() => load.bufferedAfter(stalledAt) >= 30, 'pushes are answered (buffered) while the primary is stopped', 15_000);
  } finally {
    signalServer(path.join(folder, 'primary'), 'SIGCONT');
  }
  const resumedAt = Date.now();
  await until(() => load.firstQueuedAfter(resumedAt) !== undefined, 'pushes are committed again after SIGCONT');
  await load.stop();
  await assertDelivered(queue, load.acknowledged);
  await broker.outputMatching(/did not answer for \d+ s/);
});

test('the primary is killed and the standby promoted: the broker follows without a restart, nothing acknowledged is lost', async (t) => {
  const queue = uniqueQueue('promote');
  const load = producers(queue);
  await until(() => load.count() >= 20, 'pushes flow');
  pair.killPrimary();
  await new Promise((r) => setTimeout(r, 1500)); // the HA manager's detection time: pushes go to the buffer meanwhile
  await pair.promoteStandby();
  const promotedAt = Date.now();
  await until(() => load.firstQueuedAfter(promotedAt) !== undefined, 'a push is committed on the new primary', 10_000);
  const recoverySeconds = (load.firstQueuedAfter(promotedAt)! - promotedAt) / 1000;
  t.diagnostic(`first committed push ${recoverySeconds} s after the promotion`);
  assert.ok(recoverySeconds <= 3, `first committed push ${recoverySeconds} s after the promotion`);
  // Pops and acks work on the new primary without a restart.
  const api = client(broker.url);
  const other = uniqueQueue('after');
  assert.equal((await api.push([{ queue: other, payload: { n: 1 } }])).json[0].status, 'queued');
  const popped = await api.get(`/api/v1/pop/queue/${other}?wait=true&timeout=5000`);
  assert.equal(popped.status, 200, popped.text);
  const message = popped.json.messages[0];
  const acked = await api.post('/api/v1/ack', { transactionId: message.transactionId, partitionId: popped.json.partitionId, leaseId: popped.json.leaseId, status: 'completed' });
  assert.equal(acked.status, 200, acked.text);
  assert.equal((await api.get('/health')).json.database_server, `127.0.0.1:${pair.standbyPort}`, '/health names the new primary');
  await load.stop();
  await assertDelivered(queue, load.acknowledged);
  const sessions = await sql(pair.standbyPort, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'queen:%'`);
  assert.ok(sessions.rows[0].n > 0, 'the broker works on the promoted standby');
});
