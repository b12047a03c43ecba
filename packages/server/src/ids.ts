/**
 * Identifiers: UUIDv7 minted by this process (monotonic: ids minted later always sort later, even within
 * one millisecond), and the UUID syntax check used at the edge.
 */
import { randomFillSync } from 'node:crypto';

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const pool = new Uint8Array(4096);
let poolOffset = pool.length;
let lastMillis = 0;
let sequence = 0; // 12-bit counter in rand_a, then carries into the timestamp

function randomBytes(count: number): Uint8Array {
  if (poolOffset + count > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + count);
  poolOffset += count;
  return bytes;
}

/** A new lowercase UUIDv7, strictly greater than every earlier one from this process. */
export function uuidv7(): string {
  let millis = Date.now();
  if (millis > lastMillis) {
    lastMillis = millis;
    sequence = randomBytes(1)[0]! & 0x7f; // leave room to count up within the millisecond
  } else {
    sequence += 1;
    if (sequence > 0xfff) {
      lastMillis += 1;
      sequence = 0;
    }
    millis = lastMillis;
  }
  const rand = randomBytes(8);
  const b = new Uint8Array(16);
  b[0] = Math.floor(millis / 2 ** 40) & 0xff;
  b[1] = Math.floor(millis / 2 ** 32) & 0xff;
  b[2] = (millis >>> 24) & 0xff;
  b[3] = (millis >>> 16) & 0xff;
  b[4] = (millis >>> 8) & 0xff;
  b[5] = millis & 0xff;
  b[6] = 0x70 | ((sequence >>> 8) & 0x0f);
  b[7] = sequence & 0xff;
  b[8] = 0x80 | (rand[0]! & 0x3f);
  for (let i = 9; i < 16; i++) b[i] = rand[i - 8]!;
  let out = '';
  for (let i = 0; i < 16; i++) {
    out += HEX[b[i]!];
    if (i === 3 || i === 5 || i === 7 || i === 9) out += '-';
  }
  return out;
}

const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** True for any UUID version in 8-4-4-4-12 hex form, any case (docs/api.md 1.9). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
