/**
 * The offline database move, from the embedded PostgreSQL 17 (wal_level replica: it cannot publish) to
 * Debian's PostgreSQL 15: an online start is refused with the reason and the offer of `mode: offline`;
 * offline, the source is fenced, every table copied through the broker, the sequences set, and the broker
 * follows; pushes during the copy are buffered and replayed on the target, nothing acknowledged is lost.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../dist/index.js';
import { client, freePort, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { bufferDir } from '../support/buffering.js';
import { assertNothingLost, startLoad } from '../support/move-load.js';
import { startSystemPostgres, type SystemPostgres } from '../support/system-postgres.js';

let folder: string;
let source: EmbeddedServer;
let target: SystemPostgres;
let broker: BrokerProcess;

before(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-move-offline-'));
  fs.chmodSync(folder, 0o777);
  [source, target] = await Promise.all([startEmbeddedPostgres(path.join(folder, 'pgdata'), await freePort(), () => undefined, 100), startSystemPostgres()]);
  const database: TestDatabase = {
    name: 'postgres', env: { PG_HOST: '127.0.0.1', PG_PORT: String(source.port), PG_USER: source.user, PG_PASSWORD: source.password, PG_DB: source.database },
    query: () => Promise.reject(new Error('unused')), close: async () => undefined,
  };
  broker = await startBroker(database, { FILE_BUFFER_DIR: bufferDir(), FILE_BUFFER_FLUSH_MS: '20', LOG_LEVEL: 'info' });
});

after(async () => {
  await broker?.stop();
  await source?.stop();
  await target?.stop();
  fs.rmSync(folder, { recursive: true, force: true });
});

test('embedded 17 -> system 15: online is refused for wal_level; offline moves under load and the broker follows', async (t) => {
  const api = client(broker.url);
  const body = { host: '127.0.0.1', port: target.port, database: 'postgres', user: 'postgres', password: 'postgres' };
  const online = await api.post('/api/v1/migration/start', body);
  assert.equal(online.status, 422, online.text);
  assert.equal(online.json.error, 'source has wal_level=replica: an online migration needs wal_level=logical (set it and restart the source), or start with mode "offline"');
  const queue = uniqueQueue('offline');
  assert.equal((await api.post('/api/v1/configure', { queue, options: { leaseTime: 3 } })).status, 200);
  const load = startLoad({ queue, partitions: [{ name: 'p1', broker: broker.url }, { name: 'p2', broker: broker.url }], consumers: [broker.url] });
  while (load.pushStatuses.length < 60) await new Promise((r) => setTimeout(r, 50));
  const started = await api.post('/api/v1/migration/start', { ...body, mode: 'offline' });
  assert.equal(started.status, 202, started.text);
  const phases = new Set<string>();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = (await api.get('/api/v1/migration/status')).json;
    phases.add(status.status);
    assert.notEqual(status.status, 'error', JSON.stringify(status));
    if (status.status === 'complete') {
      t.diagnostic(`phases ${[...phases].join(' > ')}; pause ${status.progress.pauseMs} ms, ${status.progress.rows} rows copied`);
      break;
    }
    assert.ok(Date.now() < deadline, 'the offline move completes within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  while ((await api.get('/health')).json.database_server !== `127.0.0.1:${target.port}`) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1000));
  await load.finish(60_000);
  assertNothingLost(load);
  const onTarget = (await target.sql(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'queen:%'`)).rows[0].n;
  assert.ok(onTarget > 0, 'the broker works on the target');
  assert.equal(broker.process.exitCode, null, 'the broker was not restarted');
  // A message pushed now gets an id from the target's sequences, past every copied one.
  const pushed = await api.push([{ queue, partition: 'after', payload: { n: 1 } }]);
  assert.equal(pushed.json[0].status, 'queued', pushed.text);
});
