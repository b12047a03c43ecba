/**
 * The routing seam of a Citus deployment (docs/scale-out.md sections 3-4): the store calls these instead of the
 * set-based functions when the database is a Citus coordinator (citus-schema.ts detected it at start-up).
 *
 * A coalesced push batch is split by partition: each partition's items are one call of
 * `queen.partition_push` (sql/citus/functions/), which Citus delegates to the worker holding the partition by
 * its id, computed here from the names. The calls of one batch run concurrently on pooled connections (inside
 * a transaction they queue on its connection and Citus commits them together). A batch is therefore atomic
 * per partition, not as a whole: when one partition's call fails the batch fails, the others stay committed,
 * and a retry or the failover buffer's replay finds them as duplicates by transactionId.
 */
import type { Db } from './database.js';
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
  FROM queen.partition_push($1::uuid, $2, $3, $4::uuid[], $5::text[], $6::uuid[], $7::text[], $8::text[], $9::text[], NULL)`;

/** The item numbers (0-based, in batch order) of each (queue, partition) of the batch. */
function byPartition(items: AppendItem[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  items.forEach((item, i) => {
    const key = `${item.queue}\u0000${item.partition}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [i]);
    else group.push(i);
  });
  return groups;
}

async function pushPartition(db: Db, id: string, items: AppendItem[]): Promise<Row[]> {
  const { queue, partition } = items[0]!;
  const call = () => db.query<Row>({
    name: 'queen.partition_push',
    text: PUSH,
    values: [id, queue, partition, items.map((i) => i.messageId), items.map((i) => i.transactionId),
      items.map((i) => i.traceId), items.map((i) => i.payload), items.map((i) => i.producerSub),
      items.some((i) => i.traceContext !== null) ? items.map((i) => i.traceContext) : null],
  });
  let rows = (await call()).rows;
  if (rows[0]?.status === 'no-queue') {
    // A queue row is a reference-table write (every node): made on the coordinator, then the call again.
    await db.query('SELECT 1 FROM queen.queue_ensure($1)', [queue]);
    rows = (await call()).rows;
  }
  return rows;
}

/** `segmentAppend` on Citus: one delegated call per partition of the batch; results in item order. */
export async function segmentAppendByPartition(db: Db, params: { items: AppendItem[] }): Promise<AppendResult[]> {
  const results = new Array<AppendResult>(params.items.length);
  await Promise.all([...byPartition(params.items).values()].map(async (numbers) => {
    const items = numbers.map((n) => params.items[n]!);
    const id = partitionUuid(items[0]!.queue, items[0]!.partition);
    for (const row of await pushPartition(db, id, items)) {
      if (row.status === 'no-queue') throw new Error('partition_push found no queue after queue_ensure');
      results[numbers[row.item - 1]!] = { status: row.status, messageId: row.messageId, partitionId: id, error: row.error,
        namespace: row.namespace, task: row.task };
    }
  }));
  return results;
}
