/**
 * The replay logic of the failover buffer (src/buffer/failover-buffer.ts) with a scripted append function:
 * order and batching, the replay flag, wake-ups, a database outage (replay stops until the probe answers)
 * and the failed set. The files are real (a temporary directory); only the database is scripted.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { FailoverBuffer } from '../../src/buffer/failover-buffer.js';
import { classifyFailure, type FailureKind } from '../../src/buffer/replay-pace.js';
import { NO_SEALING } from '../../src/core/payload-sealing.js';
import type { AppendItem, AppendResult } from '../../src/store/segments.js';

/** How the scripted store was called: `replay` is true for `segmentAppendReplay` (maxSize not enforced). */
interface AppendOptions {
  replay?: boolean;
}

const queued = (): AppendResult => ({ status: 'queued', messageId: 'm', partitionId: 'p', error: null, namespace: 'ns', task: '' });
const item = (n: number, queue = 'q'): AppendItem => ({
  queue, partition: `p${n % 2}`, messageId: 'minted-at-push', transactionId: `t${n}`, traceId: null, payload: String(n), producerSub: 'sub', traceContext: null,
});

class Down extends Error {}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function setup(
  script: (items: AppendItem[], options?: AppendOptions) => Promise<AppendResult[]>,
  probe: () => Promise<void> = async () => undefined,
  classify: (error: unknown) => FailureKind = (error) => (error instanceof Down ? 'down' : 'failed'),
  perPartition = false,
) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-failover-unit-'));
  let maintenance = true;
  const woken: string[] = [];
  const buffer = new FailoverBuffer(
    { dir, flushMs: 1, maxBatch: 3, eventsPerFile: 4, serverId: 'unit' },
    {
      // Replays reach the store through segmentAppendReplay only: the script sees them with the replay flag.
      store: { segmentAppendReplay: ({ items }) => script(items, { replay: true }), ping: probe, bufferHoldsPublish: async () => undefined, bufferHoldsEarlier: async () => false, serverAliveList: async () => [] },
      sealing: NO_SEALING,
      wake: (signal) => woken.push(signal.queue),
      classify,
      pushMaintenance: () => maintenance,
      perPartition: () => perPartition,
      log: pino({ level: 'silent' }),
    },
  );
  return { dir, buffer, woken, setMaintenance: (on: boolean) => (maintenance = on) };
}

test('replay: append order, the first batch of maxBatch, the replay flag, fresh message ids, wake-ups, files deleted', async () => {
  const calls: Array<{ ids: string[]; replay: boolean | undefined; messageIds: string[] }> = [];
  const { dir, buffer, woken, setMaintenance } = setup(async (items, options) => {
    calls.push({ ids: items.map((i) => i.transactionId), replay: options?.replay, messageIds: items.map((i) => i.messageId) });
    return items.map(queued);
  });
  await buffer.start('cluster');
  assert.equal(buffer.active(), true, 'push maintenance on');
  await Promise.all([buffer.write([item(1), item(2)]), buffer.write([item(3)]), buffer.write([item(4), item(5), item(6), item(7)])]);
  assert.equal(buffer.pendingCount, 7);
  assert.equal(calls.length, 0, 'nothing is replayed while push maintenance is on');

  setMaintenance(false);
  assert.equal(buffer.active(), true, 'items still pending keep new pushes in the buffer');
  buffer.kick();
  await until(() => buffer.pendingCount === 0);
  assert.deepEqual(calls.flatMap((c) => c.ids), ['t1', 't2', 't3', 't4', 't5', 't6', 't7']);
  assert.equal(calls[0]!.ids.length, 3, 'the first batch is FILE_BUFFER_MAX_BATCH records');
  assert.ok(calls.every((c) => c.replay === true));
  assert.ok(calls.flatMap((c) => c.messageIds).every((id) => id !== 'minted-at-push'));
  assert.ok(woken.length >= 1 && woken.every((q) => q === 'q'));
  assert.equal(buffer.active(), false);
  await until(() => (fs.readdirSync(buffer.directory).filter((f) => f.endsWith('.qbuf')).length === 0));
  await buffer.stop();
  assert.equal(fs.existsSync(buffer.directory), false, 'an empty directory is removed at stop');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a database outage stops replay until the probe answers; the batch is replayed again, nothing lost', async () => {
  let down = true;
  let probes = 0;
  const replayed: string[] = [];
  const { dir, buffer, setMaintenance } = setup(async (items) => {
    if (down) throw new Down('connection refused');
    replayed.push(...items.map((i) => i.transactionId));
    return items.map(queued);
  }, async () => {
    probes += 1;
    if (probes < 2) throw new Down('still down');
    down = false;
  });
  await buffer.start('cluster');
  setMaintenance(false);
  assert.equal(buffer.divert(new Error('a query error')), false, 'only outages divert');
  assert.equal(buffer.divert(new Down('refused')), true);
  assert.equal(buffer.databaseDown, true);
  assert.equal(buffer.stats().dbHealthy, false);
  await buffer.write([item(1), item(2), item(3), item(4)]);
  await until(() => buffer.databaseDown === false, 5000);
  await until(() => buffer.pendingCount === 0);
  assert.deepEqual(replayed, ['t1', 't2', 't3', 't4']);
  assert.ok(probes >= 2);
  await buffer.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('per partition (Citus): only partitions with buffered records are held; an unreachable node does not mark the database down', async () => {
  let reachable = false;
  const replayed: string[] = [];
  const { dir, buffer, setMaintenance } = setup(async (items) => {
    if (!reachable) throw new Down('connection to the remote node failed');
    replayed.push(...items.map((i) => i.transactionId));
    return items.map(queued);
  }, undefined, undefined, true);
  await buffer.start('cluster');
  setMaintenance(false);
  const p1 = [{ queue: 'q', partition: 'p1' }];
  const p0 = [{ queue: 'q', partition: 'p0' }];
  assert.equal(buffer.active(p1), false, 'an empty buffer holds nothing');
  const written = buffer.write([item(1), item(3)]);
  assert.equal(buffer.active(p1), true, 'held from the reservation on, before the fsync');
  assert.equal(buffer.active(p0), false, 'another partition is not held');
  await written;
  await new Promise((r) => setTimeout(r, 50)); // replay attempts meet the unreachable node
  assert.equal(buffer.databaseDown, false, 'a replay batch meeting an unreachable node does not hold every push');
  assert.equal(buffer.active(p0), false);
  assert.equal(buffer.active([...p0, ...p1]), true, 'a push naming a held partition is buffered');
  await buffer.write([item(5)]);
  reachable = true;
  await until(() => buffer.pendingCount === 0, 5000);
  assert.deepEqual(replayed, ['t1', 't3', 't5'], 'replayed in order once the node answers');
  assert.equal(buffer.active(p1), false);
  await buffer.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a file whose items keep being refused moves to the failed set; later files of other partitions carry on', async () => {
  const { dir, buffer, setMaintenance } = setup(async (items) =>
    items.map((i) => (i.transactionId === 't2' ? { ...queued(), status: 'failed' as const, error: 'refused' } : queued())));
  await buffer.start('cluster');
  await buffer.write([item(1), item(2), item(3), item(4)]); // file 1 (eventsPerFile 4)
  await buffer.write([item(5, 'other')]); // file 2
  setMaintenance(false);
  buffer.kick();
  await until(() => buffer.pendingCount === 0);
  const stats = buffer.stats();
  assert.equal(stats.failedCount, 4, 'the whole first file is in the failed set');
  assert.equal(stats.failedFiles.count, 1);
  assert.equal(stats.failedFiles.failoverCount, 1);
  assert.equal(stats.failedFiles.qos0Count, 0);
  assert.ok(stats.failedFiles.totalBytes > 0);
  assert.equal(buffer.active([item(9, 'other'), item(10, 'third')]), false, 'failed files do not hold back pushes to other partitions');
  assert.equal(buffer.active([item(9, 'other'), item(11)]), true, 'a push to a partition held by the failed set is buffered (FIFO)');
  // A file in the failed set takes no new records, even the one being written.
  const { dir: dir2, buffer: second, setMaintenance: setMaintenance2 } = setup(async (items) =>
    items.map((i) => (i.transactionId === 't1' ? { ...queued(), status: 'failed' as const, error: 'refused' } : queued())));
  await second.start('cluster');
  await second.write([item(1)]);
  setMaintenance2(false);
  second.kick();
  await until(() => second.stats().failedCount === 1);
  await second.write([item(2)]);
  await until(() => second.pendingCount === 0);
  assert.equal(second.stats().failedCount, 1, 'the new record went to a new file and was replayed');
  await second.stop();
  fs.rmSync(dir2, { recursive: true, force: true });
  await buffer.stop();
  assert.equal(fs.readdirSync(buffer.directory).filter((f) => f.endsWith('.qbuf')).length, 1, 'the failed file stays on disk');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('FIFO per partition across the failed set: a later file holding one of its partitions waits, others carry on', async () => {
  const replayed: string[] = [];
  const { dir, buffer, setMaintenance } = setup(async (items) => {
    replayed.push(...items.map((i) => i.transactionId));
    return items.map((i) => (i.transactionId === 't2' ? { ...queued(), status: 'failed' as const, error: 'refused' } : queued()));
  });
  await buffer.start('cluster');
  await buffer.write([item(1), item(2), item(3), item(4)]); // file 1: q/p1, q/p0; t2 is refused
  await buffer.write([item(5), item(6, 'other'), item(8, 'other'), item(10, 'other')]); // file 2: holds q/p1, held back behind file 1
  await buffer.write([item(7, 'other')]); // file 3: other/p1
  setMaintenance(false);
  buffer.kick();
  await until(() => buffer.stats().failedCount === 4 && replayed.includes('t7'));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(replayed.includes('t5'), false, 'the later record of q/p1 is not replayed ahead of the failed file');
  assert.equal(replayed.includes('t6'), false, 'the whole file waits');
  assert.equal(buffer.pendingCount, 4);
  assert.equal(buffer.bufferedCount, 8, 'bufferedMessages: pending plus the failed set');
  assert.equal(buffer.active([item(9, 'other')]), true, 'items are still pending: new pushes keep going to the buffer');
  await buffer.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('classifyFailure: passing database conditions are transient, not failures of the file', () => {
  const dbError = (code: string): Error => Object.assign(new Error(`error ${code}`), { code });
  for (const code of ['55P03', '40P01', '40001', '53300', '53200', '53100', '57014']) {
    assert.equal(classifyFailure(dbError(code)), 'transient', code);
  }
  assert.equal(classifyFailure(dbError('57P01')), 'down');
  assert.equal(classifyFailure(dbError('25006')), 'down', 'a read-only server is a demoted primary: the buffer waits for the new one');
  assert.equal(classifyFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })), 'down');
  for (const code of ['23505', '22P02', '42P01', 'XX000']) assert.equal(classifyFailure(dbError(code)), 'failed', code);
  assert.equal(classifyFailure(new Error('no code')), 'failed');
});

test('a lock timeout, deadlock or too many connections during replay retries the batch: no failed set, order kept', async () => {
  const replayed: string[] = [];
  const codes = ['55P03', '40P01', '53300', '53200', '55P03'];
  const { dir, buffer, setMaintenance } = setup(async (items) => {
    const code = codes.shift();
    if (code !== undefined) throw Object.assign(new Error(`error ${code}`), { code });
    replayed.push(...items.map((i) => i.transactionId));
    return items.map(queued);
  }, async () => undefined, classifyFailure);
  await buffer.start('cluster');
  await buffer.write([item(1), item(2), item(3), item(4)]);
  await buffer.write([item(5), item(6)]);
  setMaintenance(false);
  buffer.kick();
  await until(() => buffer.pendingCount === 0 || buffer.stats().failedCount > 0);
  assert.equal(buffer.stats().failedCount, 0);
  assert.deepEqual(replayed, ['t1', 't2', 't3', 't4', 't5', 't6']);
  await buffer.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});
