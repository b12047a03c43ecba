/**
 * The buffer files of one process: a group-commit writer and the reads of the replay.
 *
 * Writer: appends queue up; one flush at a time writes everything queued with one `writev` and one
 * `fdatasync`, then resolves every append it carried (concurrent requests share one fsync). A file takes
 * at most `eventsPerFile` records; the next record opens a new file (created, header written, directory
 * fsync'd so the new name survives a crash). A failed write truncates the file back to its last durable
 * length and closes it, so the next append starts a clean file.
 *
 * Files are replayed in name order (`<15-digit ms>-<6-digit sequence>.qbuf`; the time never goes back
 * within a process). Each file tracks its durable records and bytes (only fsync'd data is ever read) and
 * how far replay has got. A fully replayed file is deleted; the file being written is closed first.
 */
import type { FileHandle } from 'node:fs/promises';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { FILE_HEADER, decodeFrames, encodeRecord, hasFileHeader, type BufferRecord } from './format.js';
import { BUFFER_FILE_SUFFIX } from './ownership.js';

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
}

interface Job {
  frames: Buffer[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

const READ_CHUNK = 1 << 20;

/** Scans a leftover file: its valid records and where they end (a torn or corrupt tail is left out). */
export async function scanFile(file: string): Promise<{ records: number; bytes: number; corruptTail: boolean; size: number }> {
  const data = await fsp.readFile(file);
  if (!hasFileHeader(data)) return { records: 0, bytes: 0, corruptTail: data.length > FILE_HEADER.length, size: data.length };
  const decoded = decodeFrames(data, FILE_HEADER.length, Number.MAX_SAFE_INTEGER);
  return { records: decoded.records.length, bytes: decoded.end, corruptTail: decoded.stop === 'corrupt', size: data.length };
}

/** The buffer files of this process: writer and reader. */
export class BufferLog {
  /** Files in replay order. */
  readonly files: BufferFile[] = [];
  private current: { file: BufferFile; handle: FileHandle } | null = null;
  private queue: Job[] = [];
  private writing = false;
  private idle: Array<() => void> = [];
  private reserved = 0;
  private lastMillis = 0;
  private sequence = 0;
  /** False after a failed write, until a write succeeds again. */
  writeHealthy = true;

  constructor(
    private readonly dir: string,
    private readonly eventsPerFile: number,
    /** Creates the directory (with its owner record) before the first file is made in it. */
    private readonly prepare: () => void,
    /** Called after records became durable (the replay may have work). */
    private readonly onDurable: () => void,
  ) {}

  /** Records accepted but not replayed yet (in flight to disk, or on disk), outside the failed set. */
  get pendingCount(): number {
    let count = this.reserved;
    for (const f of this.files) if (!f.failed) count += f.records - f.replayed;
    return count;
  }

  /** Adds files found on disk (leftovers of a previous run, adopted directories); they are only replayed. */
  add(files: Array<{ path: string; records: number; bytes: number; corruptTail: boolean }>): void {
    for (const f of files) {
      this.files.push({ ...f, replayed: 0, replayOffset: FILE_HEADER.length, sealed: true, failed: false, failures: 0 });
      const millis = Number(path.basename(f.path).slice(0, 15));
      if (Number.isSafeInteger(millis)) this.lastMillis = Math.max(this.lastMillis, millis);
    }
    this.files.sort((a, b) => path.basename(a.path).localeCompare(path.basename(b.path)) || a.path.localeCompare(b.path));
  }

  /** Appends records; resolves once they are fsync'd, rejects when they could not be written. */
  append(records: BufferRecord[]): Promise<void> {
    const frames = records.map(encodeRecord); // encoding errors throw before anything is reserved
    this.reserved += frames.length;
    return new Promise((resolve, reject) => {
      this.queue.push({ frames, resolve, reject });
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
      const frames = jobs.flatMap((j) => j.frames);
      let written = 0;
      try {
        while (written < frames.length) {
          const target = await this.writable();
          const count = Math.min(this.eventsPerFile - target.file.records, frames.length - written);
          const slice = frames.slice(written, written + count);
          const size = slice.reduce((sum, b) => sum + b.length, 0);
          await target.handle.writev(slice, target.file.bytes);
          await target.handle.datasync();
          target.file.records += count;
          target.file.bytes += size;
          this.reserved -= count;
          written += count;
          if (target.file.records >= this.eventsPerFile) await this.seal();
        }
        this.writeHealthy = true;
        for (const job of jobs) job.resolve();
        this.onDurable();
      } catch (error) {
        this.writeHealthy = false;
        this.reserved -= frames.length - written;
        await this.abandonCurrent();
        for (const job of jobs) job.reject(error);
        if (written > 0) this.onDurable();
      }
    }
    this.writing = false;
    for (const resolve of this.idle.splice(0)) resolve();
  }

  /** The file to write to, opening a new one when there is none or it is full. */
  private async writable(): Promise<{ file: BufferFile; handle: FileHandle }> {
    // A file moved to the failed set takes no more records: new ones must not wait for its retry.
    if (this.current !== null && this.current.file.records < this.eventsPerFile && !this.current.file.failed) return this.current;
    if (this.current !== null) await this.seal();
    this.prepare();
    const millis = Math.max(Date.now(), this.lastMillis);
    this.sequence = millis === this.lastMillis ? this.sequence + 1 : 0;
    this.lastMillis = millis;
    const name = `${String(millis).padStart(15, '0')}-${String(this.sequence).padStart(6, '0')}${BUFFER_FILE_SUFFIX}`;
    const filePath = path.join(this.dir, name);
    const handle = await fsp.open(filePath, 'wx');
    try {
      await handle.write(FILE_HEADER, 0, FILE_HEADER.length, 0);
      await handle.datasync();
      const dir = await fsp.open(this.dir, 'r');
      await dir.sync().finally(() => dir.close());
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fsp.unlink(filePath).catch(() => undefined);
      throw error;
    }
    const file: BufferFile = { path: filePath, records: 0, bytes: FILE_HEADER.length, replayed: 0, replayOffset: FILE_HEADER.length,
      sealed: false, failed: false, failures: 0, corruptTail: false };
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

  /** The next records of a file to replay (at most `max`), and the offset after them. Only durable data is read. */
  async read(file: BufferFile, max: number): Promise<{ records: BufferRecord[]; next: number }> {
    if (file.replayOffset >= file.bytes) return { records: [], next: file.replayOffset };
    const handle = await fsp.open(file.path, 'r');
    try {
      let length = Math.min(file.bytes - file.replayOffset, READ_CHUNK);
      for (;;) {
        const data = Buffer.allocUnsafe(length);
        const { bytesRead } = await handle.read(data, 0, length, file.replayOffset);
        const decoded = decodeFrames(data.subarray(0, bytesRead), 0, max);
        if (decoded.records.length > 0) return { records: decoded.records, next: file.replayOffset + decoded.end };
        if (decoded.stop === 'torn' && decoded.needed !== undefined && decoded.needed > length && bytesRead === length) {
          length = Math.min(file.bytes - file.replayOffset, decoded.needed);
          continue;
        }
        throw new Error(`unreadable buffer record in ${file.path} at offset ${file.replayOffset}`);
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
    if (file.corruptTail) await fsp.rename(file.path, `${file.path}.corrupt`).catch(() => undefined);
    else await fsp.unlink(file.path).catch((error: NodeJS.ErrnoException) => { if (error.code !== 'ENOENT') throw error; });
    return true;
  }

  /** Waits for the writes in progress, then closes the file being written (everything acknowledged is fsync'd). */
  async close(): Promise<void> {
    if (this.writing) await new Promise<void>((resolve) => this.idle.push(resolve));
    await this.seal();
  }

  /** The directory this log writes to. */
  get directory(): string {
    return this.dir;
  }
}
