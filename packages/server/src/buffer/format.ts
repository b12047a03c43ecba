/**
 * The buffer file format (docs/api.md 9.5 rule 4): an 8-byte header, then append-only records, each framed as
 * `u32 length | u32 crc32(body) | body` (little-endian). A reader stops at the first frame that is
 * incomplete (a torn tail: the crash came during the write) or whose checksum does not match: neither was
 * ever acknowledged, because a 201 `buffered` is sent only after the fsync that follows the whole write.
 *
 * Body: `u8 version | u8 flags | queue | partition | transactionId | traceId? | payload | producerSub? |
 * traceContext?`, every string as `u32 byte length | UTF-8`; flag bit 0 says a traceId follows, bit 1 a
 * producerSub, bit 2 a trace context (added later: older files never set it, so they read unchanged). A
 * binary body avoids escaping the payload's JSON text a second time.
 */
import path from 'node:path';
import { crc32 } from 'node:zlib';

/** The first bytes of every buffer file. */
export const FILE_HEADER = Buffer.from('QBUFv001', 'latin1');
/** The extension of buffer files. */
export const BUFFER_FILE_SUFFIX = '.qbuf';
/** Bytes of a frame before its body. */
export const FRAME_OVERHEAD = 8;
/** Larger bodies are taken for corruption (a request body is at most MAX_PAYLOAD_BYTES, far below). */
const MAX_BODY = 1 << 30;
const VERSION = 1;

/** One buffered message: everything a replay needs to append it (ids are minted again at replay). */
export interface BufferRecord {
  queue: string;
  partition: string;
  transactionId: string;
  traceId: string | null;
  /** The payload as JSON text. */
  payload: string;
  producerSub: string | null;
  /** The W3C trace context in its stored form (core/trace-context.ts), or null. */
  traceContext: string | null;
}

/** The (queue, partition) key of a record: the unit of FIFO order. */
export function partitionKey(record: { queue: string; partition: string }): string {
  return `${record.queue}\u0000${record.partition}`;
}

/** Replay order of buffer files: by file name (creation time, then sequence), then by full path. */
export function compareBufferFiles(a: string, b: string): number {
  const byName = path.basename(a).localeCompare(path.basename(b));
  return byName !== 0 ? byName : a.localeCompare(b);
}

/** Encodes one record as a complete frame. */
export function encodeRecord(record: BufferRecord): Buffer {
  const strings = [record.queue, record.partition, record.transactionId];
  if (record.traceId !== null) strings.push(record.traceId);
  strings.push(record.payload);
  if (record.producerSub !== null) strings.push(record.producerSub);
  if (record.traceContext !== null) strings.push(record.traceContext);
  const encoded = strings.map((s) => Buffer.from(s, 'utf8'));
  const bodyLength = 2 + encoded.reduce((sum, b) => sum + 4 + b.length, 0);
  const frame = Buffer.allocUnsafe(FRAME_OVERHEAD + bodyLength);
  let at = FRAME_OVERHEAD;
  frame.writeUInt8(VERSION, at++);
  frame.writeUInt8((record.traceId !== null ? 1 : 0) | (record.producerSub !== null ? 2 : 0) | (record.traceContext !== null ? 4 : 0), at++);
  for (const b of encoded) {
    frame.writeUInt32LE(b.length, at);
    b.copy(frame, at + 4);
    at += 4 + b.length;
  }
  frame.writeUInt32LE(bodyLength, 0);
  frame.writeUInt32LE(crc32(frame.subarray(FRAME_OVERHEAD)), 4);
  return frame;
}

function decodeBody(body: Buffer): BufferRecord | null {
  if (body.length < 2 || body[0] !== VERSION) return null;
  const flags = body[1]!;
  let at = 2;
  const next = (): string | null => {
    if (at + 4 > body.length) return null;
    const length = body.readUInt32LE(at);
    if (at + 4 + length > body.length) return null;
    const value = body.toString('utf8', at + 4, at + 4 + length);
    at += 4 + length;
    return value;
  };
  const queue = next();
  const partition = next();
  const transactionId = next();
  const traceId = flags & 1 ? next() : null;
  const payload = next();
  const producerSub = flags & 2 ? next() : null;
  const traceContext = flags & 4 ? next() : null;
  if (queue === null || partition === null || transactionId === null || payload === null) return null;
  if ((flags & 1 && traceId === null) || (flags & 2 && producerSub === null) || (flags & 4 && traceContext === null)) return null;
  if (at !== body.length) return null;
  return { queue, partition, transactionId, traceId, payload, producerSub, traceContext };
}

/** Why decoding stopped: end of the data, the record limit, an incomplete frame, or a bad frame. */
export type DecodeStop = 'end' | 'limit' | 'torn' | 'corrupt';

/** Records decoded from a run of frames, and the offset just after the last good one. */
export interface Decoded {
  records: BufferRecord[];
  /** Offset (in the buffer given) just after the last complete, valid frame. */
  end: number;
  stop: DecodeStop;
  /** When stop is 'torn' and the frame header was readable: the full frame size needed. */
  needed?: number;
}

/** Decodes the frames of `data` from `start`, at most `maxRecords`. */
export function decodeFrames(data: Buffer, start: number, maxRecords: number): Decoded {
  const records: BufferRecord[] = [];
  let at = start;
  for (;;) {
    if (records.length >= maxRecords) return { records, end: at, stop: 'limit' };
    if (at === data.length) return { records, end: at, stop: 'end' };
    if (at + FRAME_OVERHEAD > data.length) return { records, end: at, stop: 'torn' };
    const length = data.readUInt32LE(at);
    if (length > MAX_BODY) return { records, end: at, stop: 'corrupt' };
    if (at + FRAME_OVERHEAD + length > data.length) return { records, end: at, stop: 'torn', needed: FRAME_OVERHEAD + length };
    const body = data.subarray(at + FRAME_OVERHEAD, at + FRAME_OVERHEAD + length);
    if (crc32(body) !== data.readUInt32LE(at + 4)) return { records, end: at, stop: 'corrupt' };
    const record = decodeBody(body);
    if (record === null) return { records, end: at, stop: 'corrupt' };
    records.push(record);
    at += FRAME_OVERHEAD + length;
  }
}

/** True when the data starts with a complete, valid file header. */
export function hasFileHeader(data: Buffer): boolean {
  return data.length >= FILE_HEADER.length && data.subarray(0, FILE_HEADER.length).equals(FILE_HEADER);
}
