/**
 * The brokers' buffer holds (`queen.buffer_holds`, sql/migrations/0019_buffer_holds.sql): per partition, when the
 * oldest record still pending in a broker's failover buffer was buffered. Replay reads them to keep a partition's
 * order across brokers (buffer/replay-order.ts).
 */
import type { Db } from './database.js';

/** One partition a buffer holds records of, and when the oldest of them was buffered. */
export interface BufferHold {
  queue: string;
  partition: string;
  oldestAt: Date;
}

/** Replaces this server's holds with `holds` (none: it holds nothing now), refreshing their time; never a moment without one of `holds`. */
export async function bufferHoldsPublish(db: Db, params: { serverId: string; holds: readonly BufferHold[] }): Promise<void> {
  const queues = params.holds.map((h) => h.queue);
  const partitions = params.holds.map((h) => h.partition);
  await db.query(
    `INSERT INTO queen.buffer_holds (queue_name, partition_name, server_id, oldest_at)
     SELECT q, p, $1, t FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS h(q, p, t)
     ON CONFLICT (queue_name, partition_name, server_id) DO UPDATE SET oldest_at = EXCLUDED.oldest_at, updated_at = now()`,
    [params.serverId, queues, partitions, params.holds.map((h) => h.oldestAt)],
  );
  await db.query(
    `DELETE FROM queen.buffer_holds b WHERE b.server_id = $1
       AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[]) AS h(q, p) WHERE h.q = b.queue_name AND h.p = b.partition_name)`,
    [params.serverId, queues, partitions],
  );
}

/**
 * True when another server's hold, refreshed within `freshSeconds`, has records of one of `holds`' partitions
 * buffered before the time given for it: this server's records of that partition must wait.
 */
export async function bufferHoldsEarlier(db: Db, params: { serverId: string; holds: readonly BufferHold[]; freshSeconds: number }): Promise<boolean> {
  const result = await db.query(
    `SELECT 1 FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS h(q, p, t)
     JOIN queen.buffer_holds b ON b.queue_name = h.q AND b.partition_name = h.p
     WHERE b.server_id <> $1 AND b.oldest_at < h.t AND b.updated_at > now() - make_interval(secs => $5)
     LIMIT 1`,
    [params.serverId, params.holds.map((h) => h.queue), params.holds.map((h) => h.partition), params.holds.map((h) => h.oldestAt), params.freshSeconds],
  );
  return (result.rowCount ?? 0) > 0;
}
