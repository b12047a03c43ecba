/**
 * The routing seam of a Citus deployment (docs/scale-out.md sections 3-4): the store calls these instead of the
 * set-based functions when the database is a Citus coordinator (citus-schema.ts detected it at start-up). Each
 * single-partition call names the partition's computed id as a bound parameter, so Citus delegates it to the
 * worker holding the partition: `queen.partition_push`, `partition_claim` (citus-claims.ts), `partition_ack`
 * (sql/citus/functions/). Calls that are not single-partition are statements Citus plans across shards.
 *
 * A coalesced push batch is split by partition, the id computed here from the names. The calls of one batch
 * run concurrently on pooled connections (inside a transaction they queue on its connection and Citus commits
 * them together, with two-phase commit when they span workers). A batch is therefore atomic
 * per partition, not as a whole. Outside a transaction (`settle`) a partition whose worker cannot be reached
 * answers its items `unreachable` and the others keep their results, so the push buffers only those
 * (docs/scale-out.md section 7); any other failure of one partition's call fails the batch, the others stay
 * committed, and a retry or the failover buffer's replay finds them as duplicates by transactionId.
 */
import type { AckItem, AckResult, LeaseExtendResult } from './cursors.js';
import { classifyDatabaseError, type Db } from './database.js';
import { partitionUuid } from './partition-id.js';
import type { AppendItem, AppendResult } from './segments.js';

/** A result row of partition_push: item is 1-based within the partition's items. */
interface Row {
  item: number;
  status: AppendResult['status'] | 'no-queue';
  messageId: string | null;
  error: string | null;
  namespace: string;
  task: string;
}

const PUSH = `SELECT item, status, message_id AS "messageId", error, queue_namespace AS namespace, queue_task AS task
  FROM queen.partition_push($1::uuid, $2, $3, $4::uuid[], $5::text[], $6::uuid[], $7::text[], $8::text[], $9::text[], $10::bigint, $11::boolean)`;

/**
 * The capped queues of a batch (a read of the reference table, local to the coordinator), then for each the room
 * left: max_size less its queue-mode backlog, a multi-shard aggregate (partitions, cursors and segments are
 * co-located: pushed down per shard). None during a replay of the failover buffer (`queen.replay`,
 * sql/functions/queue_mode_backlog.sql: replays are never refused).
 */
const CAPPED = `SELECT q.id, q.name, q.max_size AS "maxSize" FROM queen.queues q
  WHERE q.name = ANY ($1::text[]) AND q.max_size > 0 AND coalesce(current_setting('queen.replay', true), '') <> 'on'`;
const BACKLOG = `SELECT coalesce(sum(s.last_offset - greatest(s.first_offset, coalesce(c.committed, 0) + 1) + 1), 0) AS backlog
  FROM queen.partitions p
  LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = '__QUEUE_MODE__'
  JOIN queen.segments s ON s.partition_id = p.id AND s.last_offset > coalesce(c.committed, 0)
  WHERE p.queue_id = $1::uuid`;

/**
 * The room each capped queue of the batch has left (see CAPPED). With `settle`, a queue whose backlog cannot be
 * read because a worker is down is left out of `rooms` and named in `unreachable` (its items are not written).
 */
async function roomLeft(db: Db, queues: string[], settle: boolean): Promise<{ rooms: Map<string, number>; unreachable: Set<string> }> {
  const capped = await db.query<{ id: string; name: string; maxSize: string }>(CAPPED, [queues]);
  const rooms = new Map<string, number>();
  const unreachable = new Set<string>();
  for (const queue of capped.rows) {
    try {
      const backlog = await db.query<{ backlog: string }>(BACKLOG, [queue.id]);
      rooms.set(queue.name, Math.max(Number(queue.maxSize) - Number(backlog.rows[0]!.backlog), 0));
    } catch (error) {
      if (!settle || classifyDatabaseError(error) !== 'down') throw error;
      unreachable.add(queue.name);
    }
  }
  return { rooms, unreachable };
}

/** The item numbers (0-based, in batch order) of each key of the batch. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  items.forEach((item, i) => {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [i]);
    else group.push(i);
  });
  return groups;
}

async function pushPartition(db: Db, id: string, items: AppendItem[], room: number | null, sealing: boolean): Promise<Row[]> {
  const { queue, partition } = items[0]!;
  const call = () => db.query<Row>({
    name: 'queen.partition_push',
    text: PUSH,
    values: [id, queue, partition, items.map((i) => i.messageId), items.map((i) => i.transactionId),
      items.map((i) => i.traceId), items.map((i) => i.payload), items.map((i) => i.producerSub),
      items.some((i) => i.traceContext !== null) ? items.map((i) => i.traceContext) : null, room, sealing],
  });
  let rows = (await call()).rows;
  if (rows[0]?.status === 'no-queue') {
    // A queue row is a reference-table write (every node): made on the coordinator, then the call again.
    await db.query('SELECT 1 FROM queen.queue_ensure($1)', [queue]);
    rows = (await call()).rows;
  }
  return rows;
}

/**
 * `segmentAppend` on Citus: one delegated call per partition of the batch; results in item order. Uncapped
 * queues' partitions are written concurrently. maxSize is soft here (docs/scale-out.md section 4): a capped
 * queue's room is read once per batch (one coordinator round trip, only for batches that name a capped queue)
 * and handed to its partitions one after the other; concurrent batches of other brokers may take the same room.
 * With `settle` (outside a transaction), items whose worker is down answer `unreachable` (a capped queue's all of
 * them when its backlog cannot be read) and the other partitions' are written.
 */
export async function segmentAppendByPartition(db: Db, params: { items: AppendItem[]; settle: boolean; sealing: boolean }): Promise<AppendResult[]> {
  const { items, settle, sealing } = params;
  const results = new Array<AppendResult>(items.length);
  const unreached = (numbers: number[], id: string): void => {
    for (const n of numbers) results[n] = { status: 'unreachable', messageId: null, partitionId: id, error: null, namespace: '', task: '' };
  };
  const queues = [...new Set(items.map((i) => i.queue))];
  const { rooms, unreachable } = await roomLeft(db, queues, settle);
  const write = async (numbers: number[]): Promise<void> => {
    const mine = numbers.map((n) => items[n]!);
    const { queue, partition } = mine[0]!;
    const id = partitionUuid(queue, partition);
    const room = rooms.get(queue) ?? null;
    if (unreachable.has(queue)) return unreached(numbers, id);
    let rows: Row[];
    try {
      rows = await pushPartition(db, id, mine, room, sealing);
    } catch (error) {
      if (!settle || classifyDatabaseError(error) !== 'down') throw error;
      return unreached(numbers, id);
    }
    for (const row of rows) {
      if (row.status === 'no-queue') throw new Error('partition_push found no queue after queue_ensure');
      if (room !== null && row.status === 'queued') rooms.set(queue, rooms.get(queue)! - 1);
      results[numbers[row.item - 1]!] = { status: row.status, messageId: row.messageId, partitionId: id, error: row.error,
        namespace: row.namespace, task: row.task };
    }
  };
  const partitions = [...groupBy(items, (item) => `${item.queue}\u0000${item.partition}`).values()];
  const sequential = partitions.filter((numbers) => rooms.has(items[numbers[0]!]!.queue));
  await Promise.all([
    ...partitions.filter((numbers) => !rooms.has(items[numbers[0]!]!.queue)).map(write),
    (async () => { for (const numbers of sequential) await write(numbers); })(),
  ]);
  return results;
}

const ACK = `SELECT item, success, error, queue_name AS "queueName", partition_name AS "partitionName",
    lease_released AS "leaseReleased", dlq
  FROM queen.partition_ack($1::uuid, $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])`;

/**
 * `cursorAck` on Citus: the items grouped by partition id, one delegated `partition_ack` each, concurrently.
 * Items whose partitionId is not a UUID are not found anywhere (ack_messages answers them alike).
 */
export async function cursorAckByPartition(db: Db, params: { items: AckItem[] }): Promise<AckResult[]> {
  const { items } = params;
  const results = new Array<AckResult>(items.length);
  await Promise.all([...groupBy(items, (item) => item.partitionId ?? '').entries()].map(async ([id, numbers]) => {
    const mine = numbers.map((n) => items[n]!);
    if (id === '') {
      for (const n of numbers) {
        const valid = ['completed', 'success', 'failed', 'dlq', 'retry'].includes(items[n]!.status);
        results[n] = { success: false, error: valid ? 'Message not found' : `Invalid status: ${items[n]!.status}`, queueName: null,
          partitionName: null, leaseReleased: false, dlq: false };
      }
      return;
    }
    const rows = await db.query<AckResult & { item: number }>({
      name: 'queen.partition_ack',
      text: ACK,
      values: [id, mine.map((i) => i.transactionId), mine.map((i) => i.status), mine.map((i) => i.group),
        mine.map((i) => i.leaseId), mine.map((i) => i.error)],
    });
    for (const { item, ...result } of rows.rows) results[numbers[item - 1]!] = result;
  }));
  return results;
}

/**
 * `leaseExtend` on Citus: lease_extend's statements sent as they are (a lease id may span partitions of several
 * workers, so a multi-shard UPDATE; Citus plans it with these values, which the function's generic plan prevents).
 */
export async function leaseExtendMultiShard(db: Db, params: { leaseId: string; seconds: number }): Promise<LeaseExtendResult> {
  const extended = await db.query<{ until: Date }>(
    `UPDATE queen.cursors c SET lease_expires_at = greatest(c.lease_expires_at, now() + make_interval(secs => $2))
     WHERE c.lease_id = $1::uuid AND c.lease_expires_at > now() RETURNING c.lease_expires_at AS until`,
    [params.leaseId, params.seconds]);
  if (extended.rows.length > 0) {
    const earliest = extended.rows.reduce((min, r) => (r.until < min ? r.until : min), extended.rows[0]!.until);
    const formatted = await db.query<{ expiresAt: string }>('SELECT queen.format_millis($1::timestamptz) AS "expiresAt"', [earliest]);
    return { outcome: 'extended', expiresAt: formatted.rows[0]!.expiresAt };
  }
  const known = await db.query('SELECT 1 FROM queen.cursors c WHERE c.lease_id = $1::uuid LIMIT 1', [params.leaseId]);
  return { outcome: known.rowCount === 0 ? 'not_found' : 'expired', expiresAt: null };
}

/** `leaseRelease` on Citus: the multi-shard UPDATE by lease id, without lease_release's NOTIFY: parked pops find the partition on their next re-check. */
export async function leaseReleaseMultiShard(db: Db, params: { leaseId: string }): Promise<void> {
  await db.query(
    `UPDATE queen.cursors c SET lease_id = NULL, lease_span_end = NULL, lease_expires_at = NULL
     WHERE c.lease_id = $1::uuid AND c.lease_expires_at > now()`, [params.leaseId]);
}

/**
 * `cursorsReady` on Citus: every key may have something (pop_ready's look-ups by name cannot be routed); the
 * answer is a superset by contract, so parked pops simply re-attempt on each wake and tick.
 */
export function cursorsReadyAll(params: { keys: readonly unknown[] }): Promise<boolean[]> {
  return Promise.resolve(params.keys.map(() => true));
}
