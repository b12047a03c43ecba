/**
 * The partition id computed from the names (docs/scale-out.md section 1), the same as SQL's
 * `queen.partition_uuid(queue, partition)`: UUIDv8 of the first 16 bytes of SHA-256(queue || 0x00 || partition).
 * On Citus it is the distribution key, so the broker knows a partition's shard before it talks to the database.
 */
import { createHash } from 'node:crypto';

/** `queen.partition_uuid(queue, partition)`, computed in the broker. */
export function partitionUuid(queue: string, partition: string): string {
  const h = createHash('sha256').update(queue, 'utf8').update(Buffer.of(0)).update(partition, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
