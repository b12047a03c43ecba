/**
 * Direct access to the broker's database for the scenarios that need it: the bulk pre-fill of the backlog
 * scenarios, the connection count of the parked-pops scenario and the storage ceiling.
 *
 * Design: a small `pg` pool on the database the tool knows (the embedded PostgreSQL of the broker it
 * started, or the environment's; pg-info.ts). Sessions run with TimeZone=UTC like the broker's. The bulk
 * fill writes the broker's own tables in the shape push_messages leaves them (one segment per 200
 * messages, one key per message, the partition's tail bumped) with set-based INSERT ... SELECT over
 * generate_series: no HTTP, no per-message round trip, about an order of magnitude faster than pushing.
 */
import pg from 'pg';
import type { DatabaseTarget } from '../pg-info.js';

/** Messages per segment, as push_messages chunks them. */
const SEGMENT_MESSAGES = 200;

/** A pool of `size` sessions on `target`, set up like the broker's. */
export function openDatabase(target: DatabaseTarget, size: number): pg.Pool {
  const { label: _label, ...config } = target;
  const pool = new pg.Pool({ ...config, max: size, application_name: 'queen-bench', options: '-c TimeZone=UTC' });
  pool.on('error', () => undefined);
  return pool;
}

/** Creates partitions p0..p(count-1) of an existing queue; returns their ids in name order. */
export async function createPartitions(db: pg.Pool, queue: string, count: number): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    `INSERT INTO queen.partitions (id, queue_id, name)
     SELECT queen.uuid_v7(), q.id, 'p' || i FROM queen.queues q, generate_series(0, $2::integer - 1) i
     WHERE q.name = $1 ORDER BY i
     ON CONFLICT (queue_id, name) DO NOTHING RETURNING id`, [queue, count]);
  return result.rows.map((row) => row.id);
}

/**
 * Appends `count` messages to one partition in one transaction, as pushes would have stored them
 * (transactionIds `<tag>.<offset>`, payload `{"seq":<offset>,"ts":0}`).
 */
export async function bulkAppend(db: pg.Pool, partitionId: string, count: number, tag: string): Promise<void> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const locked = await client.query<{ tail: string }>('SELECT tail FROM queen.partitions WHERE id = $1 FOR UPDATE', [partitionId]);
    const tail = Number(locked.rows[0]?.tail ?? 0);
    await client.query(
      `INSERT INTO queen.segments (partition_id, first_offset, last_offset, created_at, message_ids, transaction_ids,
                                   trace_ids, payloads, producer_subs)
       SELECT $1::uuid, s.first, s.last, now(),
              ARRAY(SELECT gen_random_uuid() FROM generate_series(s.first, s.last)),
              ARRAY(SELECT $4 || '.' || o FROM generate_series(s.first, s.last) o),
              array_fill(NULL::uuid, ARRAY[(s.last - s.first + 1)::integer]),
              ARRAY(SELECT '{"seq":' || o || ',"ts":0}' FROM generate_series(s.first, s.last) o),
              NULL
       FROM (SELECT $2::bigint + k * $5::bigint + 1 AS first, $2::bigint + least((k + 1) * $5::bigint, $3::bigint) AS last
             FROM generate_series(0, ($3::bigint - 1) / $5::bigint) k) s`,
      [partitionId, tail, count, tag, SEGMENT_MESSAGES]);
    await client.query(
      `INSERT INTO queen.message_keys (partition_id, transaction_id, message_offset)
       SELECT $1::uuid, $3 || '.' || o, o FROM generate_series($2::bigint + 1, $2::bigint + $4::bigint) o`,
      [partitionId, tail, tag, count]);
    await client.query('UPDATE queen.partitions SET tail = $2, last_push_at = now() WHERE id = $1', [partitionId, tail + count]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Fills `total` messages spread evenly over `partitionIds`, in chunks of at most `chunk` messages per
 * transaction, with `parallel` sessions at once. Partition i's transactionIds are `<tag>.<i>.<offset>`:
 * unique across the queue, as the consumers' progress counts them.
 */
export async function bulkFill(db: pg.Pool, partitionIds: readonly string[], total: number, tag: string,
  parallel = 2, chunk = 100_000): Promise<void> {
  const work: { id: string; count: number; tag: string }[] = [];
  partitionIds.forEach((id, i) => {
    let left = Math.floor(total / partitionIds.length) + (i < total % partitionIds.length ? 1 : 0);
    while (left > 0) {
      const count = Math.min(left, chunk);
      work.push({ id, count, tag: `${tag}.${i}` });
      left -= count;
    }
  });
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    for (let item = work[next++]; item !== undefined; item = work[next++]) await bulkAppend(db, item.id, item.count, item.tag);
  }));
}

/** Deletes a queue with everything in it, without the broker's statement timeout (for very large queues). */
export async function dropQueue(db: pg.Pool, queue: string): Promise<void> {
  await db.query('SELECT queen.queue_delete($1)', [queue]);
  // A bulk-filled queue leaves as many dead rows as it had messages (10 M for scale-backlog-10m): vacuumed
  // here, that clean-up is paid by the scenario that made it, not by autovacuum during the next one (the
  // ceiling scenarios that followed scale-backlog in a full run ran at a sixth of their speed alone).
  await vacuumMessageTables(db);
}

/** VACUUM (ANALYZE) of the tables a queue's messages and cursors live in. */
export async function vacuumMessageTables(db: pg.Pool): Promise<void> {
  await db.query('VACUUM (ANALYZE) queen.segments, queen.message_keys, queen.partitions, queen.cursors, queen.backlog');
}

/** Sessions connected to the database other than `db`'s own (the broker's pool and LISTEN connection). */
export async function otherSessions(db: pg.Pool): Promise<number> {
  const result = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity
     WHERE datname = current_database() AND backend_type = 'client backend'
       AND pid <> pg_backend_pid() AND application_name <> 'queen-bench'`);
  return Number(result.rows[0]?.n ?? 0);
}
