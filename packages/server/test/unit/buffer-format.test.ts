/**
 * The failover buffer's file format and files (src/buffer/): framing with checksums, torn and corrupt
 * tails, the group-commit writer with file rotation, reads of durable data, and directory ownership.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { FILE_HEADER, decodeFrames, encodeRecord, type BufferRecord } from '../../src/buffer/format.js';
import { BufferLog } from '../../src/buffer/log.js';
import { scanFile } from '../../src/buffer/scan.js';
import {
  claimOrphan, currentOwner, directoryName, findOrphans, listBufferFiles, ownerAlive, takeDirectory, type Owner,
} from '../../src/buffer/ownership.js';

const record = (n: number, extra: Partial<BufferRecord> = {}): BufferRecord => ({
  queue: 'orders', partition: `p${n % 3}`, transactionId: `t-${n}`, traceId: null, payload: JSON.stringify({ n }), producerSub: null, traceContext: null, ...extra,
});

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'queen-buffer-unit-'));
}

test('records round-trip, with and without traceId, producerSub and trace context, any text', () => {
  const records = [
    record(1),
    record(2, { traceId: '0198f2e0-51c4-7e22-a1b0-3c4d5e6f7081', producerSub: 'alice' }),
    record(3, { queue: 'ünïcødé ✓', partition: 'a/b c', payload: JSON.stringify({ s: 'nul \u0000 and emoji 🐝' }), producerSub: '' }),
    record(4, { payload: 'null' }),
    record(5, { traceContext: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 congo=t61rcWkgMzE', producerSub: 'bob' }),
    record(6, { traceContext: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' }),
  ];
  const data = Buffer.concat(records.map(encodeRecord));
  const decoded = decodeFrames(data, 0, 100);
  assert.deepEqual(decoded.records, records);
  assert.equal(decoded.stop, 'end');
  assert.equal(decoded.end, data.length);
  assert.deepEqual(decodeFrames(data, 0, 2).records, records.slice(0, 2));
  assert.equal(decodeFrames(data, 0, 2).stop, 'limit');
});

test('a torn tail, cut at any byte, yields exactly the complete records before it', () => {
  const frames = [record(1), record(2), record(3)].map(encodeRecord);
  const whole = Buffer.concat(frames);
  const lastStart = frames[0]!.length + frames[1]!.length;
  for (let cut = lastStart; cut < whole.length; cut++) {
    const decoded = decodeFrames(whole.subarray(0, cut), 0, 100);
    assert.equal(decoded.records.length, 2, `cut at ${cut}`);
    assert.equal(decoded.end, lastStart);
    assert.equal(decoded.stop, cut === lastStart ? 'end' : 'torn');
  }
});

test('a record whose checksum does not match ends the readable data', () => {
  const frames = [record(1), record(2), record(3)].map(encodeRecord);
  const data = Buffer.concat(frames);
  const inSecondBody = frames[0]!.length + 8 + 5;
  data[inSecondBody] = data[inSecondBody]! ^ 0xff;
  const decoded = decodeFrames(data, 0, 100);
  assert.deepEqual(decoded.records, [record(1)]);
  assert.equal(decoded.stop, 'corrupt');
  assert.equal(decoded.end, frames[0]!.length);
  // A length field that is garbage is corrupt too, not a wait for 4 GB.
  const garbage = Buffer.concat([frames[0]!, Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])]);
  assert.equal(decodeFrames(garbage, 0, 100).stop, 'corrupt');
});

test('concurrent appends share fsyncs, files rotate every eventsPerFile records, reads return them in order', async () => {
  const dir = tempDir();
  let prepared = 0;
  let durable = 0;
  const log = new BufferLog({ dir, eventsPerFile: 10, prepare: () => {
    prepared += 1;
    fs.mkdirSync(dir, { recursive: true });
  }, onDurable: () => (durable += 1) });
  const all = Array.from({ length: 25 }, (_, i) => record(i + 1));
  // 25 single-record appends in one turn: one flush carries them all.
  await Promise.all(all.map((r) => log.append([r])));
  assert.equal(durable, 1, 'one group commit for appends made together');
  assert.ok(prepared >= 1);
  assert.equal(log.pendingCount, 25);
  assert.deepEqual(log.files.map((f) => f.records), [10, 10, 5]);
  assert.deepEqual(log.files.map((f) => f.sealed), [true, true, false]);
  const names = listBufferFiles(dir).map((p) => path.basename(p));
  assert.deepEqual(names, [...names].sort());
  assert.equal(names.length, 3);

  const seen: BufferRecord[] = [];
  while (log.files.length > 0) {
    const file = log.files[0]!;
    if (file.replayed === file.records) {
      assert.equal(await log.retireIfDone(file), true);
      continue;
    }
    const { records, next } = await log.read(file, 4);
    assert.ok(records.length > 0 && records.length <= 4);
    seen.push(...records);
    await log.replayed(file, records.length, next);
  }
  assert.deepEqual(seen, all);
  assert.equal(log.pendingCount, 0);
  assert.deepEqual(listBufferFiles(dir), [], 'replayed files are deleted, the one being written included');
  // The next append opens a new file.
  await log.append([record(99)]);
  assert.equal(log.files.length, 1);
  await log.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a leftover file with a torn tail is scanned to its valid records; a failed write is cut back', async () => {
  const dir = tempDir();
  const log = new BufferLog({ dir, eventsPerFile: 1000, prepare: () => undefined, onDurable: () => undefined });
  await log.append([record(1), record(2), record(3)]);
  await log.close();
  const [file] = listBufferFiles(dir);
  const validSize = fs.statSync(file!).size;
  fs.appendFileSync(file!, encodeRecord(record(4)).subarray(0, 11)); // a crash during the fourth write
  const { partitions, ...torn } = await scanFile(file!);
  assert.deepEqual(torn, { records: 3, bytes: validSize, corruptTail: false, size: validSize + 11 });
  assert.ok(partitions.size >= 1);
  // A corrupt record followed by more data is reported as such.
  const corrupt = Buffer.concat([encodeRecord(record(5))]);
  corrupt[12] = corrupt[12]! ^ 1;
  fs.writeFileSync(file!, Buffer.concat([FILE_HEADER, encodeRecord(record(1)), corrupt, encodeRecord(record(6))]));
  const scanned = await scanFile(file!);
  assert.equal(scanned.records, 1);
  assert.equal(scanned.corruptTail, true);

  // A log that cannot write rejects its appends and counts nothing as pending.
  const missing = path.join(dir, 'does-not-exist');
  const broken = new BufferLog({ dir: missing, eventsPerFile: 10, prepare: () => undefined, onDurable: () => undefined });
  await assert.rejects(broken.append([record(7)]));
  assert.equal(broken.pendingCount, 0);
  assert.equal(broken.writeHealthy, false);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A pid that certainly belongs to no process now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

test('ownership: a directory of a dead process on this host and database is adopted by exactly one claimant', () => {
  const root = tempDir();
  const cluster = 'c0ffee00-0000-4000-8000-000000000001';
  assert.equal(directoryName('host-a:4242'), 'host-a:4242');
  assert.equal(directoryName('a/b c'), 'a_b_c');
  assert.equal(directoryName('..'), '_..');

  const me = currentOwner('me', cluster);
  assert.equal(ownerAlive(me), true);
  const own = path.join(root, 'me');
  assert.equal(takeDirectory(root, own, me), false);
  assert.equal(takeDirectory(root, own, me), true, 'taking our own directory again is fine');

  const dead: Owner = { ...me, serverId: 'dead', pid: deadPid() };
  assert.equal(ownerAlive(dead), false);
  const otherHost: Owner = { ...dead, serverId: 'remote', hostname: `${os.hostname()}-elsewhere` };
  const otherDb: Owner = { ...dead, serverId: 'other-db', clusterId: 'c0ffee00-0000-4000-8000-000000000002' };
  const live: Owner = { ...me, serverId: 'live' };
  for (const owner of [dead, otherHost, otherDb, live]) {
    const d = path.join(root, owner.serverId);
    fs.mkdirSync(d);
    fs.writeFileSync(path.join(d, 'owner.json'), JSON.stringify(owner));
    fs.writeFileSync(path.join(d, '000000000000001-000000.qbuf'), FILE_HEADER);
  }
  fs.mkdirSync(path.join(root, 'no-owner'));
  assert.deepEqual(findOrphans(root, own, cluster), ['dead']);

  const second = path.join(root, 'second');
  takeDirectory(root, second, { ...me, serverId: 'second' });
  const first = claimOrphan(root, 'dead', own);
  const late = claimOrphan(root, 'dead', second);
  assert.ok(first !== null && first.startsWith(path.join(own, 'adopted')));
  assert.equal(late, null);
  assert.equal(listBufferFiles(own).length, 1);
  assert.deepEqual(findOrphans(root, own, cluster), []);

  // Another pid namespace (containers sharing a hostname): pids say nothing, the owner's touch decides.
  const foreign: Owner = { ...dead, serverId: 'container', pid: process.pid, pidNamespace: 'pid:[1]' };
  const foreignDir = path.join(root, 'container');
  fs.mkdirSync(foreignDir);
  fs.writeFileSync(path.join(foreignDir, 'owner.json'), JSON.stringify(foreign));
  assert.deepEqual(findOrphans(root, own, cluster), [], 'touched recently: alive');
  const old = new Date(Date.now() - 120_000);
  fs.utimesSync(path.join(foreignDir, 'owner.json'), old, old);
  assert.deepEqual(findOrphans(root, own, cluster), me.pidNamespace === null ? [] : ['container'], 'untouched for two minutes: dead');

  // A live owner keeps its directory: a second process with the same SERVER_ID is refused.
  assert.throws(() => takeDirectory(root, path.join(root, 'live'), { ...me, serverId: 'live', pid: deadPid() }), /owned by a live process/);
  fs.rmSync(root, { recursive: true, force: true });
});
