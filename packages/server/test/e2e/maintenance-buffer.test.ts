/**
 * Push maintenance and the durable buffer (docs/api.md 9.4, 9.5, 4.4, 7.9-7.11): pushes are validated as usual,
 * buffered (fsync'd) and answered `buffered`; turning maintenance off replays them exactly once, in order
 * per partition; a broker SIGKILLed while buffering loses nothing (a restarted process adopts the files).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { UUID_V7 } from '../support/messaging.js';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { assertBuffered, bufferDir, bufferFiles, drain, produce, sent } from '../support/buffering.js';
import { scrape, waitFor } from '../support/monitoring.js';

let db: TestDatabase;
const brokers: BrokerProcess[] = [];
const dirs: string[] = [];

before(async () => {
  db = await createDatabase();
});
after(async () => {
  for (const b of brokers) await b.kill();
  await db?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function start(dir: string): Promise<{ broker: BrokerProcess; api: ReturnType<typeof client> }> {
  const broker = await startBroker(db, { FILE_BUFFER_DIR: dir, FILE_BUFFER_FLUSH_MS: '20', FILE_BUFFER_MAX_BATCH: '50', FILE_BUFFER_EVENTS_PER_FILE: '64' });
  brokers.push(broker);
  return { broker, api: client(broker.url) };
}

async function setMaintenance(api: ReturnType<typeof client>, enabled: boolean): Promise<any> {
  const res = await api.post('/api/v1/system/maintenance', { enabled });
  assert.equal(res.status, 200, res.text);
  return res.json;
}

const PARTITIONS = ['p1', 'p2', 'p3'];

test('maintenance on: 300 pushes are buffered (exact shape); off: all 300 delivered exactly once, in order per partition', async () => {
  const dir = bufferDir();
  dirs.push(dir);
  const { broker, api } = await start(dir);
  const queue = uniqueQueue('maint');

  const on = await setMaintenance(api, true);
  assert.deepEqual(Object.keys(on).sort(), ['bufferHealthy', 'bufferedMessages', 'maintenanceMode', 'message']);
  assert.equal(on.maintenanceMode, true);
  assert.equal(on.bufferHealthy, true);
  assert.equal(typeof on.message, 'string');

  await produce(api, queue, PARTITIONS, 100, 'm', (item, partition, n) =>
    assertBuffered(item, { index: 0, queue, partition, transactionId: `m-${partition}-${n}` }));

  // Validation is unchanged: a 400 writes nothing, a bad item fails alone, a missing transactionId is minted.
  const bad = await api.post('/api/v1/push', { items: [{ queue, partition: 7 }] });
  assert.deepEqual([bad.status, bad.json], [400, { error: 'Partition must be a string' }]);
  const mixed = await api.push([
    { queue, partition: 'other', payload: 1, traceId: 'not-a-uuid' },
    { queue, partition: 'other', payload: 2 },
  ]);
  assert.equal(mixed.status, 201);
  assert.equal(mixed.json[0].status, 'failed');
  assert.equal(mixed.json[0].error, 'Invalid traceId: must be a UUID');
  assert.match(mixed.json[1].transaction_id, UUID_V7);
  assertBuffered(mixed.json[1], { index: 1, queue, partition: 'other', transactionId: mixed.json[1].transaction_id });

  // Nothing reached the database yet; the buffer reports 301 pending, on every surface.
  assert.equal((await api.get(`/api/v1/pop/queue/${queue}/partition/p1`)).status, 204);
  const state = await api.get('/api/v1/system/maintenance');
  assert.equal(state.status, 200);
  assert.deepEqual(state.json, {
    maintenanceMode: true, popMaintenanceMode: false, bufferedMessages: 301, bufferHealthy: true,
    bufferStats: { pendingCount: 301, failedCount: 0, dbHealthy: true, failedFiles: { count: 0, totalBytes: 0, totalMB: 0, failoverCount: 0, qos0Count: 0 } },
  });
  const buffers = await api.get('/api/v1/status/buffers');
  assert.equal(buffers.json.pending, 301);
  assert.equal(buffers.json.failed, 0);
  assert.equal(buffers.json.dbHealthy, true);
  assert.equal(typeof buffers.json.worker, 'string');
  const families = await scrape(broker.url);
  assert.equal(families.get('queen_file_buffer_pending_messages')?.samples[0]?.value, 301);
  const mode = families.get('queen_maintenance_mode')!.samples;
  assert.deepEqual(mode.map((s) => [s.labels.kind, s.value]).sort(), [['pop', 0], ['push', 1]]);
  const health = await api.get('/health');
  assert.equal(health.json.shared_state.maintenance_mode, true);
  assert.ok(bufferFiles(dir).length >= 5, 'records spread over files of 64 records');

  const off = await setMaintenance(api, false);
  assert.equal(off.maintenanceMode, false);
  const got = await drain(api, queue, new Map([...PARTITIONS.map((p) => [p, 100] as [string, number]), ['other', 1]]));
  for (const p of PARTITIONS) assert.deepEqual(got.get(p), sent('m', p, 100), `order of ${p}`);
  assert.deepEqual(got.get('other'), [mixed.json[1].transaction_id]);

  const after = await api.get('/api/v1/system/maintenance');
  assert.equal(after.json.bufferedMessages, 0);
  assert.deepEqual(bufferFiles(dir), [], 'replayed files are deleted');
  const replayed = await scrape(broker.url);
  assert.equal(replayed.get('queen_file_buffer_pending_messages')?.samples[0]?.value, 0);
  // Replayed messages count as pushed when they reach the log (not when they were buffered).
  assert.equal(replayed.get('queen_messages_pushed_total')?.samples.find((s) => s.labels.queue === queue)?.value, 301);
});

test('replay ignores maxSize, drops duplicates of stored messages, and keeps buffering new pushes until it is drained', async () => {
  const dir = bufferDir();
  dirs.push(dir);
  const { api } = await start(dir);
  const queue = uniqueQueue('maint-cap');
  assert.equal((await api.post('/api/v1/configure', { queue, options: { maxSize: 5 } })).status, 200);
  const stored = await api.push([{ queue, partition: 'p1', transactionId: 'dup', payload: 'first' }]);
  assert.equal(stored.json[0].status, 'queued');

  await setMaintenance(api, true);
  const items = [{ queue, partition: 'p1', transactionId: 'dup', payload: 'second' },
    ...Array.from({ length: 10 }, (_, i) => ({ queue, partition: 'p1', transactionId: `c-${i + 1}`, payload: i + 1 }))];
  const res = await api.push(items);
  assert.equal(res.status, 201);
  res.json.forEach((item: any, i: number) => assertBuffered(item, { index: i, queue, partition: 'p1', transactionId: items[i]!.transactionId }));

  // Maintenance off: replay starts at once (adaptive batches, all 11 records fit in one). A push made while
  // records are left goes behind them and past maxSize with them; once replay has drained the buffer, it goes
  // to the database, where the queue (now 11 messages) refuses it. Which one happens is a race; both are exact.
  await setMaintenance(api, false);
  const late = await api.push([{ queue, partition: 'p1', transactionId: 'late', payload: 'late' }]);
  assert.equal(late.status, 201);
  const lateBuffered = late.json[0].status === 'buffered';
  if (!lateBuffered) {
    assert.deepEqual({ status: late.json[0].status, error: late.json[0].error },
      { status: 'failed', error: `Queue '${queue}' would exceed max capacity` }, late.text);
  }
  const replayedIds = ['dup', ...Array.from({ length: 10 }, (_, i) => `c-${i + 1}`)];
  const expected = lateBuffered ? [...replayedIds, 'late'] : replayedIds;
  const got = await drain(api, queue, new Map([['p1', expected.length]]));
  assert.deepEqual(got.get('p1'), expected);
  const first = await db.query(`SELECT count(*)::int AS n FROM queen.message_keys k JOIN queen.partitions p ON p.id = k.partition_id
    JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1`, [queue]);
  assert.equal(first.rows[0]!.n, expected.length, 'the buffered duplicate was dropped at replay');
});

test('a broker SIGKILLed after answering buffered loses nothing: a restarted process adopts its files, in order', async () => {
  const dir = bufferDir();
  dirs.push(dir);
  const first = await start(dir);
  const queue = uniqueQueue('maint-kill');
  await setMaintenance(first.api, true);
  await produce(first.api, queue, PARTITIONS, 100, 'k', (item) => assert.equal(item.status, 'buffered'));
  await first.broker.kill();
  assert.ok(bufferFiles(dir).length > 0);

  // A new process (new pid, new server id, same FILE_BUFFER_DIR): maintenance is still on (it is in the
  // database), so its own pushes are buffered behind the adopted ones.
  const second = await start(dir);
  const state = await second.api.get('/api/v1/system/maintenance');
  assert.equal(state.json.maintenanceMode, true);
  assert.equal(state.json.bufferedMessages, 300, 'the dead process\'s records were adopted');
  await produce(second.api, queue, PARTITIONS, 20, 'k2', (item) => assert.equal(item.status, 'buffered'));
  await setMaintenance(second.api, false);
  const got = await drain(second.api, queue, new Map(PARTITIONS.map((p) => [p, 120])));
  for (const p of PARTITIONS) assert.deepEqual(got.get(p), [...sent('k', p, 100), ...sent('k2', p, 20)], `order of ${p}`);
  assert.deepEqual(bufferFiles(dir), []);
  // The dead process's directory was moved into the adopter's, then removed once replayed: only the live
  // broker's directory and its owner record remain.
  await waitFor(async () => (fs.readdirSync(dir, { recursive: true }) as string[]).sort(), (left) => left.length === 2 && left[1] === `${left[0]}/owner.json`);
});

test('a buffer that cannot be written: 500 with the items failed `File buffer write failed`, bufferHealthy false', async () => {
  const parent = bufferDir();
  dirs.push(parent);
  const notADirectory = `${parent}/file`;
  fs.writeFileSync(notADirectory, 'x');
  const { api } = await start(`${notADirectory}/buffer`); // every mkdir under a regular file fails, even as root
  const queue = uniqueQueue('maint-broken');
  await setMaintenance(api, true);
  try {
    const res = await api.push([
      { queue, partition: 'p1', transactionId: 'bad', traceId: 'nope' },
      { queue, partition: 'p1', transactionId: 'good', payload: 1 },
      { queue, partition: 'p2', payload: 2 },
    ]);
    assert.equal(res.status, 500);
    assert.deepEqual(res.json, [
      { index: 0, transaction_id: 'bad', status: 'failed', queueName: queue, queue, partition: 'p1', error: 'Invalid traceId: must be a UUID' },
      { index: 1, transaction_id: 'good', status: 'failed', queueName: queue, queue, partition: 'p1', error: 'File buffer write failed' },
      { index: 2, transaction_id: null, status: 'failed', queueName: queue, queue, partition: 'p2', error: 'File buffer write failed' },
    ]);
    const state = await api.get('/api/v1/system/maintenance');
    assert.equal(state.json.bufferHealthy, false);
    assert.equal(state.json.bufferedMessages, 0);
  } finally {
    await setMaintenance(api, false);
  }
  // Maintenance off: pushes reach the database again.
  const res = await api.push([{ queue, partition: 'p1', transactionId: 'good', payload: 1 }]);
  assert.equal(res.json[0].status, 'queued', res.text);
});
