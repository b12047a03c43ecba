/**
 * Identifiers minted on the client. Push transactionIds are minted here (not by the broker) so that an HTTP
 * retry of the same push carries the same ids and deduplicates. UUIDv7 keeps them time-ordered like the
 * broker's own ids. Only `crypto.getRandomValues` is used, so this runs in browsers too.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let lastMillis = 0;
let sequence = 0;

/** A fresh lowercase UUIDv7 (RFC 9562), monotonic within this process. */
export function uuidv7(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  let now = Date.now();
  // 12-bit counter in rand_a keeps ids minted in the same millisecond ordered.
  if (now <= lastMillis) {
    sequence += 1;
    if (sequence > 0xfff) {
      lastMillis += 1;
      sequence = 0;
    }
    now = lastMillis;
  } else {
    lastMillis = now;
    sequence = bytes[6]! & 0x07; // random start, with headroom
  }
  const high = Math.floor(now / 2 ** 16);
  bytes[0] = (high >>> 24) & 0xff;
  bytes[1] = (high >>> 16) & 0xff;
  bytes[2] = (high >>> 8) & 0xff;
  bytes[3] = high & 0xff;
  bytes[4] = (now >>> 8) & 0xff;
  bytes[5] = now & 0xff;
  bytes[6] = 0x70 | ((sequence >>> 8) & 0x0f);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** True for a UUID of any version (8-4-4-4-12 hex, any case), the broker's traceId rule. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
