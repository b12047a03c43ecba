/**
 * A database move whose source dies mid-move: pushes are buffered meanwhile, the status answers 503 (it lives in
 * the database), and once the source is back the move resumes (or, had the driver recorded the failure, a reset
 * and a new start finish it).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { client, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { bufferDir, drain } from '../support/buffering.js';
import { startSystemPostgres, type SystemPostgres } from '../support/system-postgres.js';

let source: SystemPostgres;
let target: SystemPostgres;
let broker: BrokerProcess;
let database: TestDatabase;
const env = { FILE_BUFFER_DIR: bufferDir(), FILE_BUFFER_FLUSH_MS: '20', MIGRATION_SWITCH_TIMEOUT_MS: '3000', LOG_LEVEL: 'info' };

before(async () => {
  [source, target] = await Promise.all([startSystemPostgres({ wal_level: 'logical' }), startSystemPostgres()]);
  database = {
    name: 'postgres', env: { PG_HOST: '127.0.0.1', PG_PORT: String(source.port), PG_USER: 'postgres', PG_PASSWORD: 'postgres', PG_DB: 'postgres' },
    query: (text, values) => source.sql(text, values), close: async () => undefined,
  };
  broker = await startBroker(database, env);
});

after(async () => {
  await broker?.stop();
  await source?.stop();
  await target?.stop();
});

const body = () => ({ host: '127.0.0.1', port: target.port, database: 'postgres', user: 'postgres', password: 'postgres' });

async function statusUntil(done: (status: any) => boolean, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client(broker.url).get('/api/v1/migration/status');
    if (res.status === 200 && done(res.json)) return res.json;
    if (Date.now() > deadline) assert.fail(`status: ${res.text}\n${broker.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the source dies mid-move: pushes are buffered, and when it is back the move resumes by itself', async () => {
  const api = client(broker.url);
  const queue = uniqueQueue('source-dies');
  for (let n = 1; n <= 10; n++) assert.equal((await api.push([{ queue, partition: 'p', transactionId: `p-${n}`, payload: { n } }])).status, 201);
  assert.equal((await api.post('/api/v1/migration/start', body())).status, 202);
  await source.kill();
  for (let n = 11; n <= 15; n++) {
    const res = await api.push([{ queue, partition: 'p', transactionId: `p-${n}`, payload: { n } }]);
    assert.deepEqual([res.status, res.json[0].status], [201, 'buffered'], res.text);
  }
  const unavailable = await api.get('/api/v1/migration/status');
  assert.equal(unavailable.status, 503, 'the status lives in the database: 503 while it is down');
  await source.restart();
  const resumed = await statusUntil((s) => s.status === 'complete' || s.status === 'error', 90_000);
  // Either the driver recorded the failure before the source went (an error the operator resets), or the row kept
  // its phase and the move resumed once the driver's silence passed the take-over limit.
  if (resumed.status === 'error') {
    assert.match(resumed.error, /^the move stopped during preparing: /);
    assert.equal((await api.post('/api/v1/migration/reset')).status, 200);
    assert.equal((await api.post('/api/v1/migration/start', body())).status, 202);
    assert.equal((await statusUntil((s) => s.status === 'complete' || s.status === 'error', 60_000)).status, 'complete');
  }
  while ((await client(broker.url).get('/health').catch(() => null))?.json?.database_server !== `127.0.0.1:${target.port}`) await new Promise((r) => setTimeout(r, 100));
  const got = await drain(api, queue, new Map([['p', 15]]));
  assert.deepEqual(got.get('p'), Array.from({ length: 15 }, (_, i) => `p-${i + 1}`));
});
