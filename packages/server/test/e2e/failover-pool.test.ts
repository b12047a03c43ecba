/**
 * Pool exhaustion with a healthy database is not failover (docs/api.md 9.5 rule 3, 4.4): a push that gets no
 * connection within DB_POOL_ACQUIRE_TIMEOUT_MS answers 500 `{"error":"pool"}` and nothing is buffered.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { client, createDatabase, serverConnection, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { bufferDir, bufferFiles } from '../support/buffering.js';

let db: TestDatabase;
let broker: BrokerProcess;
let locker: pg.Client;
const dir = bufferDir();

before(async () => {
  db = await createDatabase();
  broker = await startBroker(db, { FILE_BUFFER_DIR: dir, DB_POOL_SIZE: '2', DB_POOL_ACQUIRE_TIMEOUT_MS: '300', DB_STATEMENT_TIMEOUT: '3000', DB_LOCK_TIMEOUT: '0' });
  locker = new pg.Client(serverConnection(db.name));
  await locker.connect();
});
after(async () => {
  await locker?.end();
  await broker?.stop();
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a push starved of connections answers 500 pool; nothing goes to the buffer', async () => {
  const api = client(broker.url);
  const queue = uniqueQueue('starved');
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE queen.queues IN ACCESS EXCLUSIVE MODE');
  let answers;
  try {
    // Two pushes take both connections and wait on the lock; the third finds none.
    const blocked = [api.push([{ queue, transactionId: 'a' }]), api.push([{ queue: `${queue}-2`, transactionId: 'b' }])];
    await new Promise((r) => setTimeout(r, 200));
    const starved = await api.push([{ queue: `${queue}-3`, transactionId: 'c' }]);
    assert.deepEqual([starved.status, starved.json], [500, { error: 'pool' }]);
    await new Promise((r) => setTimeout(r, 100));
    await locker.query('ROLLBACK');
    answers = await Promise.all(blocked);
  } finally {
    await locker.query('ROLLBACK').catch(() => undefined);
  }
  for (const res of answers) {
    assert.ok(res.status === 201 || res.status === 500, res.text);
    if (res.status === 201) assert.equal(res.json[0].status, 'queued', res.text);
  }
  const state = await api.get('/api/v1/system/maintenance');
  assert.equal(state.json.bufferedMessages, 0);
  assert.equal(state.json.bufferStats.dbHealthy, true);
  assert.deepEqual(bufferFiles(dir), []);
  // And the next push goes to the database.
  const next = await api.push([{ queue, transactionId: 'd' }]);
  assert.equal(next.json[0].status, 'queued', next.text);
});
