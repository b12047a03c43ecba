/**
 * The scan of buffer files found on disk (leftovers of a previous run, adopted directories): their valid
 * records, where the valid data ends (a torn or corrupt tail is left out) and the partitions they hold, read
 * in chunks (a file may be larger than one Buffer can hold).
 */
import fsp from 'node:fs/promises';
import { FILE_HEADER, FRAME_OVERHEAD, decodeFrames, hasFileHeader, partitionKey } from './format.js';
import { READ_CHUNK } from './log.js';

/** What a scan found in a leftover file. */
export interface ScannedFile {
  records: number;
  /** End of the valid data. */
  bytes: number;
  corruptTail: boolean;
  size: number;
  partitions: Set<string>;
}

/** Scans a leftover file in chunks of `chunk` bytes: its valid records and where they end (a torn or corrupt tail is left out). */
export async function scanFile(file: string, chunk = READ_CHUNK): Promise<ScannedFile> {
  const handle = await fsp.open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const header = Buffer.alloc(FILE_HEADER.length);
    const { bytesRead } = await handle.read(header, 0, header.length, 0);
    const partitions = new Set<string>();
    if (!hasFileHeader(header.subarray(0, bytesRead))) return { records: 0, bytes: 0, corruptTail: size > FILE_HEADER.length, size, partitions };
    let records = 0;
    let at = FILE_HEADER.length;
    let needed = 0;
    while (at < size) {
      const length = Math.min(size - at, Math.max(chunk, needed));
      const data = Buffer.allocUnsafe(length);
      const read = (await handle.read(data, 0, length, at)).bytesRead;
      const decoded = decodeFrames(data.subarray(0, read), 0, Number.MAX_SAFE_INTEGER);
      records += decoded.records.length;
      for (const record of decoded.records) partitions.add(partitionKey(record));
      const reachedEnd = at + read >= size;
      at += decoded.end;
      if (decoded.stop === 'corrupt') return { records, bytes: at, corruptTail: true, size, partitions };
      if (decoded.stop === 'torn') {
        if (reachedEnd) break; // a torn tail: never acknowledged
        // a frame runs past this chunk: the next read starts at it and takes all of it
        needed = decoded.needed ?? FRAME_OVERHEAD;
      } else {
        needed = 0;
      }
    }
    return { records, bytes: at, corruptTail: false, size, partitions };
  } finally {
    await handle.close();
  }
}

/** A file found on disk, ready for `BufferLog.add`. */
export type FoundFile = { path: string; records: number; bytes: number; corruptTail: boolean; partitions: Set<string> };

/** Scans leftover files: empty ones (they never acknowledged anything) are deleted, a corrupt tail is reported. */
export async function scanFiles(files: string[], onCorruptTail: (file: string, validBytes: number, size: number) => void): Promise<FoundFile[]> {
  const found: FoundFile[] = [];
  for (const file of files) {
    const scanned = await scanFile(file);
    if (scanned.records === 0 && !scanned.corruptTail) {
      await fsp.rm(file, { force: true });
      continue;
    }
    if (scanned.corruptTail) onCorruptTail(file, scanned.bytes, scanned.size);
    found.push({ path: file, ...scanned });
  }
  return found;
}
