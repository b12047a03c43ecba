/**
 * The writer and scanner of the buffer files (src/buffer/log.ts) on real files, with failures injected
 * through a wrapped file handle: a short write (ENOSPC, EFBIG) rejects its appends and leaves the file
 * consistent; a rotation that cannot create the next file still resolves the appends already fsync'd;
 * files rotate by size; a leftover file is scanned in chunks.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { FILE_HEADER, encodeRecord, type BufferRecord } from '../../src/buffer/format.js';
import { BufferLog, ShortWriteError, type OpenFile } from '../../src/buffer/log.js';
import { scanFile } from '../../src/buffer/scan.js';

const record = (n: number, payload = String(n), partition = 'p'): BufferRecord => ({
  queue: 'q', partition, transactionId: `t${n}`, traceId: null, payload: JSON.stringify(payload), producerSub: null, traceContext: null,
});

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'queen-buffer-log-'));
}

function qbufFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.qbuf')).sort().map((f) => path.join(dir, f));
}

/** Everything a log's files replay, in order. */
async function replayAll(log: BufferLog): Promise<string[]> {
  const ids: string[] = [];
  for (const file of log.files) {
    let offset = file.replayOffset;
    while (offset < file.bytes) {
      const read = await log.read({ ...file, replayOffset: offset }, 100);
      ids.push(...read.records.map((r) => r.transactionId));
      offset = read.next;
    }
  }
  return ids;
}

/** An `open` whose handles write only half the data of the next writev while `short` is set. */
function shortWrites(): { open: OpenFile; arm: () => void } {
  let short = false;
  const open: OpenFile = async (file, flags) => {
    const handle = await fsp.open(file, flags);
    return new Proxy(handle, {
      get(target, prop) {
        if (prop === 'writev') {
          return async (buffers: Buffer[], position: number) => {
            if (!short) return target.writev(buffers, position);
            short = false;
            const all = Buffer.concat(buffers);
            const half = all.subarray(0, Math.floor(all.length / 2));
            const { bytesWritten } = await target.write(half, 0, half.length, position);
            return { bytesWritten, buffers };
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as FileHandle;
  };
  return { open, arm: () => (short = true) };
}

test('a short write rejects its appends, truncates the torn data, and the next append lands at the right offset', async () => {
  const dir = tempDir();
  const { open, arm } = shortWrites();
  const log = new BufferLog({ dir, eventsPerFile: 100, prepare: () => fs.mkdirSync(dir, { recursive: true }), onDurable: () => undefined, options: { open } });
  await log.append([record(1), record(2)]);
  arm();
  await assert.rejects(log.append([record(3), record(4)]), ShortWriteError);
  assert.equal(log.writeHealthy, false);
  assert.equal(log.pendingCount, 2, 'only the fsync\'d records are pending');
  await log.append([record(5)]);
  assert.equal(log.writeHealthy, true);
  await log.close();

  const files = qbufFiles(dir);
  assert.equal(files.length, 2, 'the failed file is closed; the next append starts a new one');
  const first = await scanFile(files[0]!);
  assert.deepEqual([first.records, first.corruptTail, first.bytes === first.size], [2, false, true], 'the torn half record was cut off');
  const second = await scanFile(files[1]!);
  assert.deepEqual([second.records, second.corruptTail, second.bytes === second.size], [1, false, true]);
  assert.deepEqual(await replayAll(log), ['t1', 't2', 't5']);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a short write of a new file\'s header fails the append and leaves no file behind', async () => {
  const dir = tempDir();
  let short = true;
  const open: OpenFile = async (file, flags) => {
    const handle = await fsp.open(file, flags);
    return new Proxy(handle, {
      get(target, prop) {
        if (prop === 'write' && short) {
          short = false;
          return async (buffer: Buffer, offset: number, _length: number, position: number) => target.write(buffer, offset, 3, position);
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as FileHandle;
  };
  const log = new BufferLog({ dir, eventsPerFile: 100, prepare: () => fs.mkdirSync(dir, { recursive: true }), onDurable: () => undefined, options: { open } });
  await assert.rejects(log.append([record(1)]), ShortWriteError);
  assert.deepEqual(qbufFiles(dir), []);
  await log.append([record(2)]);
  await log.close();
  assert.deepEqual(await replayAll(log), ['t2']);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a rotation that cannot create the next file resolves the appends fsync\'d before it and rejects the rest', async () => {
  const dir = tempDir();
  let opens = 0;
  const open: OpenFile = async (file, flags) => {
    opens += 1;
    if (opens === 2) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    return fsp.open(file, flags);
  };
  const log = new BufferLog({ dir, eventsPerFile: 3, prepare: () => fs.mkdirSync(dir, { recursive: true }), onDurable: () => undefined, options: { open } });
  // One flush carries all three appends: the first two fill the first file, the third needs a second one.
  const outcomes = await Promise.allSettled([log.append([record(1), record(2)]), log.append([record(3)]), log.append([record(4)])]);
  assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'rejected']);
  assert.equal(log.pendingCount, 3);
  await log.close();
  assert.deepEqual(await replayAll(log), ['t1', 't2', 't3']);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('files rotate by size as well as by record count; a record larger than the limit still gets a file', async () => {
  const dir = tempDir();
  const frame = encodeRecord(record(1, 'x'.repeat(100))).length;
  const maxFileBytes = FILE_HEADER.length + 2 * frame + 10; // two such records fit, a third does not
  const log = new BufferLog({ dir, eventsPerFile: 1000, prepare: () => fs.mkdirSync(dir, { recursive: true }), onDurable: () => undefined, options: { maxFileBytes } });
  await log.append([1, 2, 3, 4, 5].map((n) => record(n, 'x'.repeat(100))));
  await log.append([record(6, 'y'.repeat(1000))]);
  await log.append([record(7, 'x'.repeat(100))]);
  await log.close();
  const files = qbufFiles(dir);
  const scanned = await Promise.all(files.map((f) => scanFile(f)));
  assert.deepEqual(scanned.map((s) => s.records), [2, 2, 1, 1, 1]);
  for (const f of files) assert.ok(fs.statSync(f).size <= maxFileBytes || (await scanFile(f)).records === 1);
  assert.deepEqual(await replayAll(log), ['t1', 't2', 't3', 't4', 't5', 't6', 't7']);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a leftover file is scanned in chunks: records spanning chunk ends, a torn tail, a corrupt tail', async () => {
  const dir = tempDir();
  const log = new BufferLog({ dir, eventsPerFile: 1000, prepare: () => fs.mkdirSync(dir, { recursive: true }), onDurable: () => undefined });
  const records = Array.from({ length: 40 }, (_, i) => record(i, 'z'.repeat((i * 37) % 300), `p${i % 3}`));
  await log.append(records);
  await log.close();
  const [file] = qbufFiles(dir);
  const whole = await scanFile(file!);
  assert.deepEqual([whole.records, whole.corruptTail, whole.bytes, whole.size], [40, false, fs.statSync(file!).size, fs.statSync(file!).size]);
  assert.deepEqual([...whole.partitions].sort(), ['q\u0000p0', 'q\u0000p1', 'q\u0000p2']);
  for (const chunk of [1, 7, 8, 64, 333, 4096]) {
    assert.deepEqual(await scanFile(file!, chunk), whole, `chunk ${chunk}`);
  }

  const size = whole.size;
  fs.appendFileSync(file!, encodeRecord(record(99)).subarray(0, 20)); // torn: never acknowledged
  for (const chunk of [1, 16, 1 << 20]) {
    const torn = await scanFile(file!, chunk);
    assert.deepEqual([torn.records, torn.bytes, torn.corruptTail], [40, size, false], `torn, chunk ${chunk}`);
  }
  fs.truncateSync(file!, size);
  const bad = encodeRecord(record(98));
  bad[bad.length - 1] = bad[bad.length - 1]! ^ 0xff; // checksum mismatch
  fs.appendFileSync(file!, Buffer.concat([bad, encodeRecord(record(97))]));
  for (const chunk of [1, 16, 1 << 20]) {
    const corrupt = await scanFile(file!, chunk);
    assert.deepEqual([corrupt.records, corrupt.bytes, corrupt.corruptTail], [40, size, true], `corrupt, chunk ${chunk}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a leftover file above 2 GiB (sparse here) is scanned without reading it whole', async () => {
  const dir = tempDir();
  const log = new BufferLog({ dir, eventsPerFile: 1000, prepare: () => fs.mkdirSync(dir, { recursive: true }), onDurable: () => undefined });
  await log.append([record(1), record(2), record(3)]);
  await log.close();
  const [file] = qbufFiles(dir);
  const valid = fs.statSync(file!).size;
  const size = 2 ** 31 + 4096; // beyond what fs.readFile can return
  fs.truncateSync(file!, size); // a hole of zeros: no disk space used
  try {
    const scanned = await scanFile(file!);
    assert.deepEqual([scanned.records, scanned.bytes, scanned.corruptTail, scanned.size], [3, valid, true, size]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
