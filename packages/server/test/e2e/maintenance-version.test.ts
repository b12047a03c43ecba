/**
 * The maintenance state when the database goes back in time (a restore, a failover to a lagging replica):
 * `queen.system_state.version` becomes lower than the one the broker holds. The broker's own change is
 * still applied, and a poll that finds different flags at a lower version adopts the database's state.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { client, createDatabase, startBroker, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { bufferDir } from '../support/buffering.js';
import { waitFor } from '../support/monitoring.js';

let db: TestDatabase;
let broker: BrokerProcess;
let api: ReturnType<typeof client>;
const dir = bufferDir();

before(async () => {
  db = await createDatabase();
  broker = await startBroker(db, { FILE_BUFFER_DIR: dir });
  api = client(broker.url);
});
after(async () => {
  await broker?.stop();
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const pushMode = async (): Promise<boolean> => (await api.get('/api/v1/system/maintenance')).json.maintenanceMode as boolean;

test("the broker's own change applies even when the database's version went back", async () => {
  for (let i = 0; i < 4; i += 1) assert.equal((await api.post('/api/v1/system/maintenance', { enabled: true })).status, 200);
  assert.equal(await pushMode(), true);
  await db.query('UPDATE queen.system_state SET version = 0'); // restored: same flags, an older version
  await new Promise((r) => setTimeout(r, 1500)); // a poll or two read it (same flags: nothing to adopt)
  assert.equal(await pushMode(), true);
  const off = await api.post('/api/v1/system/maintenance', { enabled: false });
  assert.deepEqual([off.status, off.json.maintenanceMode], [200, false]);
  assert.equal(await pushMode(), false, 'applied before the call returned');
});

test("a poll that finds different flags at a lower version adopts the database's state", async () => {
  for (let i = 0; i < 4; i += 1) assert.equal((await api.post('/api/v1/system/maintenance', { enabled: false })).status, 200);
  assert.equal(await pushMode(), false);
  await db.query('UPDATE queen.system_state SET push_maintenance = true, version = 1');
  await waitFor(pushMode, (on) => on === true, 5000);
  assert.equal((await api.post('/api/v1/system/maintenance', { enabled: false })).status, 200);
  assert.equal(await pushMode(), false);
});
