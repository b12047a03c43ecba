/**
 * The hot-path functions keep key look-ups when their tables were analysed empty: a table analysed while
 * its rows were all deleted (autovacuum's analyse after a queue is deleted) is estimated at about one row
 * until the next analyse, however large it grows, and a generic plan built then used to scan the whole of
 * `message_keys` once per pushed or acknowledged item (sql/functions/README.md, "Plans that survive any
 * statistics"). The work of one call is read from EXPLAIN (ANALYZE, BUFFERS) of the function, whose buffer
 * counts include every statement run inside it: it must not grow with the table. PostgreSQL 15 chose the
 * whole-index plan here (the previous functions read 203 152 buffers per push, 181 224 per ack; now 5 268
 * and 948); PostgreSQL 17, the embedded server, chose the key on this shape even before (908 and 844), so
 * run it against a 15 (PG_HOST=...) to see it fail on the old functions. The same holds for the look-up of
 * one partition by (queue, name): 528 buffers on PostgreSQL 15 before migration 0015, for 2 000 partitions.
 *
 * Spec: docs/architecture.md (push appends under the partition lock; the ack resolves transactionIds by key).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type pg from 'pg';
import { uniqueQueue } from '../support/harness.js';
import { ack, push, useSqlSessions, type PushItem } from '../support/hot-path.js';

const sql = useSqlSessions();

/** Items of `count` messages spread over `partitions` partitions of `queue`. */
function items(queue: string, tag: string, count: number, partitions: number): PushItem[] {
  return Array.from({ length: count }, (_, i) => ({ queue, partition: `p${i % partitions}`, tx: `${tag}.${i}` }));
}

/** Pushes `total` messages in calls of 1 000. */
async function fill(queue: string, tag: string, total: number): Promise<void> {
  for (let done = 0; done < total; done += 1000) await push(sql.pool, items(queue, `${tag}.${done}`, 1000, 50));
}

/** Shared buffer hits of one call of `statement`, nested statements included, on `db` (the pool by default). */
async function bufferHits(statement: string, params: unknown[], db: Pick<pg.Pool, 'query'> = sql.pool): Promise<number> {
  const result = await db.query<{ 'QUERY PLAN': [{ Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }] }>(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement}`, params);
  const plan = result.rows[0]!['QUERY PLAN'][0].Plan;
  return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
}

const PUSH = `SELECT * FROM queen.push_messages($1::text[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[])`;
const ACK = `SELECT * FROM queen.ack_messages($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[])`;

describe('hot-path plans on tables analysed empty', () => {
  const live = uniqueQueue('analysed-live');
  before(async () => {
    // The production shape: a queue's messages deleted, the tables analysed with only dead rows in them,
    // then another queue grows them again without a new analyse.
    const gone = uniqueQueue('analysed-gone');
    await fill(gone, 'g', 20_000);
    await sql.pool.query('SELECT queen.queue_delete($1)', [gone]);
    await sql.pool.query('ANALYZE queen.message_keys, queen.partitions, queen.segments, queen.queues');
    const estimate = await sql.pool.query<{ n: number }>(`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'queen.message_keys'::regclass`);
    assert.equal(estimate.rows[0]!.n, 0, 'message_keys is analysed empty');
    await fill(live, 'l', 20_000);
  });

  test('a 100-item push reads a bounded number of buffers, not the whole key index per item', async () => {
    const batch = items(live, 'probe', 100, 10);
    const hits = await bufferHits(PUSH, [
      batch.map((i) => i.queue), batch.map((i) => i.partition), batch.map(() => randomUUID()),
      batch.map((i) => i.tx), batch.map(() => null), batch.map((i) => JSON.stringify({ tx: i.tx })), batch.map(() => null),
    ]);
    // Tens per item with key look-ups; the whole-index plan read about 2 000 per item here.
    assert.ok(hits < 20_000, `one push of 100 items read ${hits} buffers`);
    const again = await push(sql.pool, batch);
    assert.ok(again.every((row) => row.status === 'duplicate'), 'the stored keys are still found: a repeat is a duplicate');
  });

  test('a 100-item ack reads a bounded number of buffers', async () => {
    const pushed = await push(sql.pool, items(live, 'acked', 100, 10));
    const byTx = items(live, 'acked', 100, 10).map((item, i) => ({ tx: item.tx, partitionId: pushed[i]!.partition_id }));
    const hits = await bufferHits(ACK, [
      byTx.map((i) => i.tx), byTx.map((i) => i.partitionId), byTx.map(() => 'completed'), byTx.map(() => '__QUEUE_MODE__'),
      byTx.map(() => null), byTx.map(() => null),
    ]);
    assert.ok(hits < 3000, `one ack of 100 items read ${hits} buffers`);
    const rows = await ack(sql.pool, byTx);
    assert.ok(rows.every((row) => row.success), 'every item was resolved and settled');
  });

  test('locking one partition of a wide queue reads it by (queue, name), not every partition of the queue', async () => {
    // 2 000 partitions created after the analyse: PostgreSQL 15 took partitions_rotation_idx (queue_id, id)
    // with the name as a filter, one heap fetch per partition of the queue for every partition locked.
    const wide = uniqueQueue('analysed-wide');
    await push(sql.pool, items(wide, 'w', 2000, 2000));
    const lock = `SELECT * FROM queen.partitions_lock($1::text[], $2::text[])`;
    const pop = `SELECT * FROM queen.pop_ready($1::text[], $2::text[], $3::text[])`;
    // Measured on one session after a first call of each: a session's first call also reads the system
    // catalogs to plan the function's statements (hundreds of buffers), which is not the look-up's cost.
    const session = await sql.pool.connect();
    try {
      await session.query(lock, [[wide], ['p1233']]);
      await session.query(pop, [[wide], ['p1233'], ['__QUEUE_MODE__']]);
      const hits = await bufferHits(lock, [[wide], ['p1234']], session);
      assert.ok(hits < 100, `locking one partition of 2 000 read ${hits} buffers`);
      const ready = await bufferHits(pop, [[wide], ['p1234'], ['__QUEUE_MODE__']], session);
      assert.ok(ready < 100, `the readiness of one partition of 2 000 read ${ready} buffers`);
    } finally {
      session.release();
    }
  });
});
