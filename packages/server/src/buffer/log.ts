/**
 * The buffer files of one process: a group-commit writer and the reads of the replay.
 *
 * Writer: appends queue up; one flush at a time writes everything queued with one `writev` and one
 * `fdatasync`, then resolves every append it carried (concurrent requests share one fsync). A file takes
 * at most `eventsPerFile` records and about `maxFileBytes` bytes (a file is read by offsets that must stay
 * far below 2 GiB, and one record alone may exceed the limit); the next record opens a new file (created,
 * header written, directory fsync'd so the new name survives a crash). A failed or short write (ENOSPC,
 * EFBIG can write part of the data) truncates the file back to its last durable length and closes it, so
 * the next append starts a clean file; the appends whose records were all fsync'd before the failure
 * still resolve (they will replay), the others reject.
 *
 * The files together take at most `maxBytes` (FILE_BUFFER_MAX_BYTES): an append that would pass it is refused
 * whole (`BufferFullError`) before anything is reserved, and the log counts as full until a file is deleted by
 * replay or an append fits again.
 *
 * Files are replayed in name order (`<15-digit ms>-<6-digit sequence>.qbuf`; the time never goes back
 * within a process). Each file tracks its durable records and bytes (only fsync'd data is ever read) and
 * how far replay has got, and the (queue, partition) keys it holds (a file in the failed set blocks those
 * partitions). A fully replayed file is deleted; the file being written is closed first. Leftover files
 * are scanned by scan.ts.
 */
import type { FileHandle } from 'node:fs/promises';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { BufferFullError } from '../core/push.js';
import type { FoundFile } from './scan.js';
import {
  BUFFER_FILE_SUFFIX, FILE_HEADER, compareBufferFiles, decodeFrames, encodeRecord, partitionKey, type BufferRecord,
} from './format.js';

/** One buffer file and the replay's progress through it. */
export interface BufferFile {
  path: string;
  /** Durable, valid records in the file. */
  records: number;
  /** End of the durable, valid data. */
  bytes: number;
  /** Records replayed so far, and the offset of the next one. */
  replayed: number;
  replayOffset: number;
  /** No more appends go to this file. */
  sealed: boolean;
  /** In the failed set (a non-connectivity failure kept repeating); retried every minute. */
  failed: boolean;
  /** Consecutive failed replay attempts. */
  failures: number;
  /** Unreadable bytes follow the valid data (found by a scan): the file is kept as `.corrupt` after replay. */
  corruptTail: boolean;
  /** The `partitionKey`s of its records. */
  partitions: Set<string>;
  /** When this process wrote the first record of each key (ms); absent for files found on disk. */
  firstAt: Map<string, number>;
}

interface Job {
  frames: Buffer[];
  keys: string[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Bytes read at once from a buffer file. */
export const READ_CHUNK = 1 << 20;
/** The default size limit of one buffer file. */
export const MAX_FILE_BYTES = 1 << 30;

/** Opens a file (node's `fs.promises.open`; a test may wrap the handle to inject failures). */
export type OpenFile = (file: string, flags: string) => Promise<FileHandle>;

/** Optional limits and hooks of a BufferLog. */
export interface BufferLogOptions {
  /** Size at which a file is sealed (default 1 GiB). */
  maxFileBytes?: number;
  open?: OpenFile;
}

/** Thrown when the file system wrote only part of the data (ENOSPC, EFBIG, a file size limit). */
export class ShortWriteError extends Error {}

/** What a buffer log is built from. */
export interface BufferLogParams {
  /** The directory its files live in. */
  dir: string;
  /** Records per file before the next file is started. */
  eventsPerFile: number;
  /** Bytes all files may take together (Infinity: no limit). */
  maxBytes?: number;
  /** Creates the directory (with its owner record) before the first file is made in it. */
  prepare: () => void;
  /** Called after records became durable (the replay may have work). */
  onDurable: () => void;
  /** Limits and hooks of the files (tests). */
  options?: BufferLogOptions;
}

/** Records read for replay and the offset after them. */
type ReadBatch = { records: BufferRecord[]; next: number };

/** The buffer files of this process: writer and reader. */
export class BufferLog {
  /** Files in replay order. */
  readonly files: BufferFile[] = [];
  private current: { file: BufferFile; handle: FileHandle } | null = null;
  private queue: Job[] = [];
  /** The appends being written now (taken from `queue` by `flush`). */
  private flushing: Job[] = [];
  private writing = false;
  private idle: Array<() => void> = [];
  private reserved = 0;
  private lastMillis = 0;
  /** The next replay batch, read while the current one commits (`prefetch`). */
  private ahead: { file: BufferFile; from: number; result: Promise<ReadBatch> } | null = null;
  private sequence = 0;
  /** False after a failed write, until a write succeeds again. */
  writeHealthy = true;
  /** True after an append was refused for lack of room, until a file is deleted or an append fits. */
  full = false;
  /** Bytes of the appends queued or being written. */
  private reservedBytes = 0;
  /** The limit of `bytes`. */
  maxBytes: number;

  private readonly maxFileBytes: number;
  private readonly open: OpenFile;

  private readonly dir: string;
  private readonly eventsPerFile: number;
  private readonly prepare: () => void;
  private readonly onDurable: () => void;

  constructor(params: BufferLogParams) {
    this.dir = params.dir;
    this.eventsPerFile = params.eventsPerFile;
    this.prepare = params.prepare;
    this.onDurable = params.onDurable;
    this.maxFileBytes = params.options?.maxFileBytes ?? MAX_FILE_BYTES;
    this.maxBytes = params.maxBytes ?? Number.POSITIVE_INFINITY;
    this.open = params.options?.open ?? ((file, flags) => fsp.open(file, flags));
  }

  /** Records accepted but not replayed yet (in flight to disk, or on disk), outside the failed set. */
  get pendingCount(): number {
    let count = this.reserved;
    for (const f of this.files) if (!f.failed) count += f.records - f.replayed;
    return count;
  }

  /**
   * True when one of `keys` (partition keys) has a record accepted and not replayed yet (reserved, on disk, or
   * in the failed set): a new push to that partition must be buffered behind it. Synchronous, like the
   * reservation of `append`, so a push answered `buffered` is never overtaken by a later one.
   */
  holdsAny(keys: readonly string[]): boolean {
    if (this.reserved === 0 && this.files.every((f) => !f.failed && f.replayed >= f.records)) return false;
    for (const job of this.flushing) if (job.keys.some((k) => keys.includes(k))) return true;
    for (const job of this.queue) if (job.keys.some((k) => keys.includes(k))) return true;
    return this.files.some((f) => (f.failed || f.replayed < f.records) && keys.some((k) => f.partitions.has(k)));
  }

  /** Bytes the files take (durable data, headers included) and the appends in progress will add. */
  get bytes(): number {
    let total = this.reservedBytes;
    for (const f of this.files) total += f.bytes;
    return total;
  }

  /** Adds files found on disk (leftovers of a previous run, adopted directories); they are only replayed. */
  add(files: FoundFile[]): void {
    for (const f of files) {
      this.files.push({ ...f, replayed: 0, replayOffset: FILE_HEADER.length, sealed: true, failed: false, failures: 0, firstAt: new Map() });
      const millis = Number(path.basename(f.path).slice(0, 15));
      if (Number.isSafeInteger(millis)) this.lastMillis = Math.max(this.lastMillis, millis);
    }
    this.files.sort((a, b) => compareBufferFiles(a.path, b.path));
  }

  /** Drops files moved elsewhere (`paths`) from the replay list; they are not deleted. */
  forget(paths: readonly string[]): void {
    const gone = new Set(paths);
    for (let i = this.files.length - 1; i >= 0; i--) if (gone.has(this.files[i]!.path)) this.files.splice(i, 1);
  }

  /** Appends records; resolves once they are fsync'd, rejects when they could not be written. */
  append(records: BufferRecord[]): Promise<void> {
    const frames = records.map(encodeRecord); // encoding errors throw before anything is reserved
    const size = frames.reduce((sum, frame) => sum + frame.length, 0) + FILE_HEADER.length;
    if (this.bytes + size > this.maxBytes) {
      this.full = true;
      return Promise.reject(new BufferFullError(`the failover buffer is full (${this.bytes} of ${this.maxBytes} bytes)`));
    }
    this.full = false;
    const keys = records.map(partitionKey);
    this.reserved += frames.length;
    this.reservedBytes += size;
    return new Promise((resolve, reject) => {
      this.queue.push({ frames, keys, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const jobs = this.queue;
      this.queue = [];
      this.flushing = jobs;
      const frames = jobs.flatMap((j) => j.frames);
      // Reserved with a file header each (a rotation may need one): released as the files take the bytes.
      let unwritten = frames.reduce((sum, frame) => sum + frame.length, 0) + jobs.length * FILE_HEADER.length;
      const keys = jobs.flatMap((j) => j.keys);
      let written = 0;
      try {
        while (written < frames.length) {
          const target = await this.writable();
          const limit = Math.min(this.eventsPerFile - target.file.records, frames.length - written);
          let count = 0;
          let size = 0;
          while (count < limit) {
            const length = frames[written + count]!.length;
            // a file always takes its first record, however large
            if ((target.file.records > 0 || count > 0) && target.file.bytes + size + length > this.maxFileBytes) break;
            count += 1;
            size += length;
          }
          if (count === 0) {
            await this.seal();
            continue;
          }
          const slice = frames.slice(written, written + count);
          for (const key of keys.slice(written, written + count)) {
            if (target.file.partitions.has(key)) continue;
            target.file.partitions.add(key);
            target.file.firstAt.set(key, Date.now());
          }
          const { bytesWritten } = await target.handle.writev(slice, target.file.bytes);
          if (bytesWritten !== size) throw new ShortWriteError(`short write to ${target.file.path}: ${bytesWritten} of ${size} bytes`);
          await target.handle.datasync();
          target.file.records += count;
          target.file.bytes += size;
          this.reservedBytes -= size;
          unwritten -= size;
          this.reserved -= count;
          written += count;
          if (target.file.records >= this.eventsPerFile || target.file.bytes >= this.maxFileBytes) await this.seal();
        }
        this.reservedBytes -= unwritten;
        this.writeHealthy = true;
        for (const job of jobs) job.resolve();
        this.onDurable();
      } catch (error) {
        this.reservedBytes -= unwritten;
        this.writeHealthy = false;
        this.reserved -= frames.length - written;
        await this.abandonCurrent();
        // Appends whose records were all fsync'd (before a rotation failed) are durable: they resolve.
        let end = 0;
        for (const job of jobs) {
          end += job.frames.length;
          if (end <= written) job.resolve();
          else job.reject(error);
        }
        if (written > 0) this.onDurable();
      }
    }
    this.flushing = [];
    this.writing = false;
    for (const resolve of this.idle.splice(0)) resolve();
  }

  /** The file to write to, opening a new one when there is none or it is full. */
  private async writable(): Promise<{ file: BufferFile; handle: FileHandle }> {
    // A file moved to the failed set takes no more records: new ones must not wait for its retry.
    const current = this.current;
    if (current !== null && current.file.records < this.eventsPerFile && current.file.bytes < this.maxFileBytes && !current.file.failed) return current;
    if (this.current !== null) await this.seal();
    this.prepare();
    const millis = Math.max(Date.now(), this.lastMillis);
    this.sequence = millis === this.lastMillis ? this.sequence + 1 : 0;
    this.lastMillis = millis;
    const name = `${String(millis).padStart(15, '0')}-${String(this.sequence).padStart(6, '0')}${BUFFER_FILE_SUFFIX}`;
    const filePath = path.join(this.dir, name);
    const handle = await this.open(filePath, 'wx');
    try {
      const { bytesWritten } = await handle.write(FILE_HEADER, 0, FILE_HEADER.length, 0);
      if (bytesWritten !== FILE_HEADER.length) throw new ShortWriteError(`short write of the header of ${filePath}`);
      await handle.datasync();
      const dir = await fsp.open(this.dir, 'r');
      await dir.sync().finally(() => dir.close());
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fsp.unlink(filePath).catch(() => undefined);
      throw error;
    }
    const file: BufferFile = { path: filePath, records: 0, bytes: FILE_HEADER.length, replayed: 0, replayOffset: FILE_HEADER.length,
      sealed: false, failed: false, failures: 0, corruptTail: false, partitions: new Set(), firstAt: new Map() };
    this.files.push(file);
    this.current = { file, handle };
    return this.current;
  }

  private async seal(): Promise<void> {
    const current = this.current;
    if (current === null) return;
    this.current = null;
    current.file.sealed = true;
    await current.handle.close().catch(() => undefined);
  }

  /** After a failed write: cut the file back to its durable data and stop writing to it. */
  private async abandonCurrent(): Promise<void> {
    const current = this.current;
    if (current === null) return;
    await current.handle.truncate(current.file.bytes).catch(() => undefined);
    await this.seal();
  }

  /**
   * The next records of a file to replay (at most `max`), and the offset after them. Only durable data is
   * read. A prefetch of exactly these records (same file, same offset) is used when there is one.
   */
  async read(file: BufferFile, max: number): Promise<ReadBatch> {
    const ahead = this.ahead;
    this.ahead = null;
    if (ahead !== null && ahead.file === file && ahead.from === file.replayOffset) {
      const early = await ahead.result.catch(() => null);
      if (early !== null && early.records.length > 0) return early; // its size was chosen by the caller too
    }
    return this.readAt(file, file.replayOffset, max);
  }

  /** Starts reading the batch after `from` while the current one commits (replay is one batch at a time). */
  prefetch(file: BufferFile, from: number, max: number): void {
    const result = this.readAt(file, from, max);
    result.catch(() => undefined); // a failed prefetch is read again, and fails, in read()
    this.ahead = { file, from, result };
  }

  private async readAt(file: BufferFile, from: number, max: number): Promise<ReadBatch> {
    if (from >= file.bytes) return { records: [], next: from };
    const handle = await fsp.open(file.path, 'r');
    try {
      let length = Math.min(file.bytes - from, READ_CHUNK);
      for (;;) {
        const data = Buffer.allocUnsafe(length);
        const { bytesRead } = await handle.read(data, 0, length, from);
        const decoded = decodeFrames(data.subarray(0, bytesRead), 0, max);
        if (decoded.records.length > 0) return { records: decoded.records, next: from + decoded.end };
        if (decoded.stop === 'torn' && decoded.needed !== undefined && decoded.needed > length && bytesRead === length) {
          length = Math.min(file.bytes - from, decoded.needed);
          continue;
        }
        throw new Error(`unreadable buffer record in ${file.path} at offset ${from}`);
      }
    } finally {
      await handle.close();
    }
  }

  /** Records that a read's records were appended to the database; deletes the file once it is done. */
  async replayed(file: BufferFile, count: number, next: number): Promise<void> {
    file.replayed += count;
    file.replayOffset = next;
    await this.retireIfDone(file);
  }

  /** Deletes a fully replayed file (closing it first when it is the one being written and no write is queued). */
  async retireIfDone(file: BufferFile): Promise<boolean> {
    if (file.replayed < file.records) return false;
    if (!file.sealed) {
      if (this.writing || this.current?.file !== file) return false;
      await this.seal();
      if (file.replayed < file.records) return false;
    }
    const index = this.files.indexOf(file);
    if (index === -1) return true;
    this.files.splice(index, 1);
    this.full = false; // room again
    if (file.corruptTail) await fsp.rename(file.path, `${file.path}.corrupt`).catch(() => undefined);
    else await fsp.unlink(file.path).catch((error: NodeJS.ErrnoException) => { if (error.code !== 'ENOENT') throw error; });
    return true;
  }

  /** Waits for the writes in progress, then closes the file being written (everything acknowledged is fsync'd). */
  async close(): Promise<void> {
    if (this.writing) await new Promise<void>((resolve) => this.idle.push(resolve));
    await this.seal();
  }
}
