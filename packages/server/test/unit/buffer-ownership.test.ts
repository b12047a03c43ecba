/**
 * Taking over a buffer directory (src/buffer/ownership.ts) as a restarted container does: the default
 * SERVER_ID `<hostname>:1` is the same after every restart, and the new container has a new pid namespace.
 * A released record or a previous incarnation (same hostname and pid) is taken over at once; a fresh record
 * of another owner in another namespace is waited out; a live owner in our own namespace still refuses.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { FailoverBuffer } from '../../src/buffer/failover-buffer.js';
import { NO_SEALING } from '../../src/core/payload-sealing.js';
import {
  BufferOwnerFreshError, BufferOwnershipError, acquireDirectory, currentOwner, ownerAlive, processStartTime, processState, readOwner, takeDirectory, type Owner,
} from '../../src/buffer/ownership.js';

function fixture(previous: Partial<Owner>, ageMs = 0): { root: string; own: string; me: Owner } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-ownership-'));
  const own = path.join(root, 'host_1');
  fs.mkdirSync(own);
  const me = currentOwner('host:1', 'cluster');
  const record = { ...me, pidNamespace: 'pid:[4026530000]', ...previous };
  fs.writeFileSync(path.join(own, 'owner.json'), JSON.stringify(record));
  fs.writeFileSync(path.join(own, '000000000000001-000000.qbuf'), 'x');
  const touched = new Date(Date.now() - ageMs);
  fs.utimesSync(path.join(own, 'owner.json'), touched, touched);
  return { root, own, me };
}

const inNamespace = currentOwner('probe', 'c').pidNamespace !== null;

test('a released record from another pid namespace is taken over at once', { skip: !inNamespace && 'no /proc' }, () => {
  const { root, own, me } = fixture({ pid: 999_999, pidStart: '1', released: true });
  assert.equal(takeDirectory(root, own, me), true);
  const now = readOwner(own)!;
  assert.deepEqual([now.pid, now.pidNamespace, now.released], [process.pid, me.pidNamespace, undefined]);
  fs.rmSync(root, { recursive: true, force: true });
});

test('a fresh record with our hostname and pid from another pid namespace is a previous incarnation: taken over at once', { skip: !inNamespace && 'no /proc' }, () => {
  const { root, own, me } = fixture({ pid: process.pid, pidStart: '1' });
  assert.equal(takeDirectory(root, own, me), true);
  assert.equal(readOwner(own)!.pidNamespace, me.pidNamespace);
  fs.rmSync(root, { recursive: true, force: true });
});

test('a fresh record of another pid in another namespace is waited out until stale, not refused', { skip: !inNamespace && 'no /proc' }, async () => {
  const { root, own, me } = fixture({ pid: 999_999, pidStart: '1' }, 59_300);
  assert.throws(() => takeDirectory(root, own, me), BufferOwnerFreshError);
  const waits: number[] = [];
  const started = Date.now();
  assert.equal(await acquireDirectory(root, own, me, (ms) => waits.push(ms)), true);
  assert.ok(Date.now() - started >= 500, 'waited for the record to go stale');
  assert.ok(waits.length >= 1 && waits[0]! <= 1000);
  assert.equal(readOwner(own)!.pid, process.pid);
  fs.rmSync(root, { recursive: true, force: true });
});

test('a live owner in our own pid namespace is still refused at once', () => {
  const { root, own, me } = fixture({ pid: process.ppid, pidStart: processStartTime(process.ppid), pidNamespace: currentOwner('p', 'c').pidNamespace });
  assert.throws(() => takeDirectory(root, own, me), (error: unknown) => error instanceof BufferOwnershipError && !(error instanceof BufferOwnerFreshError));
  fs.rmSync(root, { recursive: true, force: true });
});

test('a clean stop with files left marks the owner record released', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-ownership-stop-'));
  const buffer = new FailoverBuffer(
    { dir, flushMs: 1, maxBatch: 10, eventsPerFile: 10, serverId: 'host:1' },
    {
      store: { segmentAppendReplay: async () => [], ping: async () => undefined, bufferHoldsPublish: async () => undefined, bufferHoldsEarlier: async () => false, serverAliveList: async () => [] }, sealing: NO_SEALING, wake: () => undefined, classify: () => 'failed',
      pushMaintenance: () => true, perPartition: () => false, log: pino({ level: 'silent' }),
    },
  );
  await buffer.start('cluster');
  await buffer.write([{ queue: 'q', partition: 'p', messageId: 'm', transactionId: 't', traceId: null, payload: '1', producerSub: null, traceContext: null }]);
  assert.notEqual(readOwner(buffer.directory)!.released, true);
  await buffer.stop();
  assert.equal(readOwner(buffer.directory)!.released, true);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a zombie (killed, not yet reaped) owns nothing: a restart right after kill -9 takes over at once (issue 13 item 7)', { skip: !fs.existsSync('/proc/self/stat') && 'no /proc' }, async () => {
  // `sleep 30` never waits for its child, so the child stays a zombie after it exits.
  const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()))));
    const owner = { ...currentOwner('zombie', 'cluster'), pid, pidStart: processStartTime(pid) };
    assert.equal(ownerAlive(owner), true, 'alive while it runs');
    for (let i = 0; i < 100 && processState(pid) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(processState(pid), 'Z');
    assert.equal(ownerAlive(owner), false);
  } finally {
    parent.kill('SIGKILL');
  }
});
