/**
 * Heartbeats of broker processes (docs/api.md 9.2 rule 4) and the `shared_state.server_health` of /health (4.1):
 * each process writes its row every QUEEN_HEARTBEAT_INTERVAL_MS (200 ms here, so "dead" = no beat for
 * 600 ms); a killed process turns dead, a restarted one (same SERVER_ID, or same host and port) replaces its
 * predecessor and counts a restart, a cleanly stopped one is neither alive nor dead.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { pushIds, waitFor } from '../support/monitoring.js';

const FAST = { QUEEN_HEARTBEAT_INTERVAL_MS: '200' };

interface ServerHealth {
  servers_tracked: number;
  servers_alive: number;
  servers_dead: number;
  heartbeats_received: number;
  restarts_detected: number;
}

let db: TestDatabase;
let a: BrokerProcess;

before(async () => {
  db = await createDatabase();
  a = await startBroker(db, { ...FAST, SERVER_ID: 'hb-a' });
});
after(async () => {
  await a?.stop();
  await db?.close();
});

async function health(broker: BrokerProcess): Promise<ServerHealth> {
  const res = await client(broker.url).get('/health');
  assert.equal(res.status, 200);
  return res.json.shared_state.server_health;
}

/** Waits until broker's view of the cluster has these tracked/alive/dead counts (and restarts, when given). */
function healthIs(broker: BrokerProcess, expected: { tracked: number; alive: number; dead: number; restarts?: number }): Promise<ServerHealth> {
  return waitFor(() => health(broker), (h) =>
    h.servers_tracked === expected.tracked && h.servers_alive === expected.alive && h.servers_dead === expected.dead &&
    (expected.restarts === undefined || h.restarts_detected === expected.restarts));
}

test('one process: its row, the health counters in the order of docs/api.md 4.1, heartbeats that keep coming', async () => {
  const first = await healthIs(a, { tracked: 1, alive: 1, dead: 0, restarts: 0 });
  assert.deepEqual(Object.keys(first), ['servers_tracked', 'servers_alive', 'servers_dead', 'heartbeats_received', 'restarts_detected']);
  await waitFor(() => health(a), (h) => h.heartbeats_received >= first.heartbeats_received + 2);
  const rows = await db.query('SELECT server_id, hostname, pid, port, stopped_at FROM queen.server_heartbeats');
  assert.deepEqual(rows.rows, [{ server_id: 'hb-a', hostname: os.hostname(), pid: a.process.pid, port: a.port, stopped_at: null }]);
});

test('parked pops are written with the heartbeat, in total and per queue', async () => {
  const queue = uniqueQueue('hb-park');
  const parked = client(a.url).get(`/api/v1/pop/queue/${queue}?wait=true&timeout=10000`);
  const row = await waitFor(
    async () => (await db.query(`SELECT parked_pops, parked_by_queue FROM queen.server_heartbeats WHERE server_id = 'hb-a'`)).rows[0]!,
    (r) => r.parked_pops === 1,
  );
  assert.deepEqual(row.parked_by_queue, { [queue]: 1 });
  await pushIds(client(a.url), queue, ['wake']);
  assert.equal((await parked).status, 200);
  await waitFor(async () => (await db.query(`SELECT parked_pops FROM queen.server_heartbeats WHERE server_id = 'hb-a'`)).rows[0]!, (r) => r.parked_pops === 0);
});

test('a second process is tracked and alive; killed, it turns dead', async () => {
  const b = await startBroker(db, { ...FAST, SERVER_ID: 'hb-b' });
  await healthIs(a, { tracked: 2, alive: 2, dead: 0 });
  await healthIs(b, { tracked: 2, alive: 2, dead: 0 });
  await b.kill();
  await healthIs(a, { tracked: 2, alive: 1, dead: 1, restarts: 0 });
});

test('restarted under the same SERVER_ID: one restart, alive again; a clean stop is neither alive nor dead', async () => {
  const b = await startBroker(db, { ...FAST, SERVER_ID: 'hb-b' });
  await healthIs(a, { tracked: 2, alive: 2, dead: 0, restarts: 1 });
  await healthIs(b, { tracked: 2, alive: 2, dead: 0, restarts: 1 });
  assert.equal(await b.stop(), 0);
  const afterStop = await healthIs(a, { tracked: 1, alive: 1, dead: 0, restarts: 1 });
  assert.equal(afterStop.restarts_detected, 1);
  const stopped = await db.query(`SELECT stopped_at FROM queen.server_heartbeats WHERE server_id = 'hb-b'`);
  assert.notEqual(stopped.rows[0]!.stopped_at, null);
});

test('queen.server_heartbeat: a new server id on the host and port of a dead one replaces it and counts a restart', async () => {
  // SQL level: the harness picks every broker's port itself, so a broker cannot be restarted on a given port.
  const beat = async (serverId: string, pid: number) => (await db.query(
    `SELECT * FROM queen.server_heartbeat($1, 'other-host', $2, 7000, now(), 0, '{}', 0.6)`, [serverId, pid])).rows[0]!;
  try {
    const first = await beat('other-host:1', 1);
    await db.query(`UPDATE queen.server_heartbeats SET last_heartbeat_at = now() - interval '1 minute' WHERE server_id = 'other-host:1'`);
    const second = await beat('other-host:2', 2);
    assert.equal(Number(second.restarts_detected), Number(first.restarts_detected) + 1);
    assert.equal(Number(second.servers_dead), 0, 'the dead predecessor was replaced, not left dead');
    const rows = await db.query(`SELECT server_id, restarts FROM queen.server_heartbeats WHERE hostname = 'other-host'`);
    assert.deepEqual(rows.rows, [{ server_id: 'other-host:2', restarts: 1 }]);
  } finally {
    await db.query(`DELETE FROM queen.server_heartbeats WHERE hostname = 'other-host'`);
  }
});
