/**
 * Work that does not grow with a partition's backlog: a pop of a few messages and a seek read the segments
 * they deliver or land on, not every segment above the cursor. A partition written one message per push
 * holds one segment per message, so a read bounded only from below is a read of the whole backlog per call
 * (before the fix, a one-message pop from 60 000 such segments took 8 ms instead of 1).
 *
 * The rows read are counted with pg_stat_xact_user_tables, which reports the open transaction's own index
 * fetches: an observable, timing-free measure of how much of queen.segments a call touched.
 *
 * Spec: docs/api.md 5 (a pop delivers from the head of the partition), 7.7 (seek).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { uniqueQueue } from '../support/harness.js';
import { ack, pop, push, useSqlSessions, type Queryable } from '../support/hot-path.js';

/** Segments in the deep partition: each a push of its own. */
const DEPTH = 1500;
/** Segment rows a bounded call may read: its own few, plus the look-ups of the head and the span. */
const BOUNDED = 12;

const sql = useSqlSessions();

/** The rows of queen.segments the transaction of `client` has fetched through an index so far. */
async function segmentReads(client: Queryable): Promise<number> {
  const read = await client.query<{ n: string }>(
    `SELECT coalesce(idx_tup_fetch, 0) AS n FROM pg_stat_xact_user_tables WHERE relid = 'queen.segments'::regclass`);
  return Number(read.rows[0]?.n ?? 0);
}

/** Runs `call` in a transaction of its own and returns its result with the segment rows it read. */
async function counted<T>(call: (client: Queryable) => Promise<T>): Promise<{ result: T; reads: number }> {
  const { client } = await sql.session();
  await client.query('BEGIN');
  const before = await segmentReads(client);
  const result = await call(client);
  const reads = (await segmentReads(client)) - before;
  await client.query('COMMIT');
  return { result, reads };
}

describe('a partition of many one-message segments', () => {
  const queue = uniqueQueue('deep');
  let partitionId = '';

  before(async () => {
    // Eight writers of one-item pushes: DEPTH segments of one message each, in offset order. m0 goes first on
    // its own, so the head of the partition is known (concurrent writers commit, and take offsets, in any order).
    partitionId = (await push(sql.pool, [{ queue, partition: 'P', tx: 'm0' }]))[0]!.partition_id;
    let next = 1;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < DEPTH) {
        const i = next++;
        partitionId = (await push(sql.pool, [{ queue, partition: 'P', tx: `m${i}` }]))[0]!.partition_id;
      }
    }));
  });

  test('a pop of one message reads a bounded number of segments, wherever the cursor is', async () => {
    for (const round of [0, 1, 2]) {
      const { result, reads } = await counted((c) => pop(c, { scope: 'partition', queue, partition: 'P', batch: 1, autoAck: true }));
      assert.equal(result.txns.length, 1, `round ${round}: one message delivered`);
      assert.ok(reads <= BOUNDED, `round ${round}: segment rows read for one message: ${reads} (backlog ${DEPTH - round})`);
    }
  });

  test('a leased pop of a few messages reads about as many segments as it delivers, and its ack settles them', async () => {
    const { result, reads } = await counted((c) => pop(c, { scope: 'partition', queue, partition: 'P', batch: 5 }));
    assert.equal(result.txns.length, 5);
    assert.ok(reads <= 5 + BOUNDED, `segment rows read for five messages: ${reads}`);
    const rows = await ack(sql.pool, result.txns.map((tx) => ({ tx, partitionId, leaseId: result.leaseId })));
    assert.deepEqual(rows.map((r) => r.success), [true, true, true, true, true]);
  });

  test('a seek to a time before the first message reads a bounded number of segments', async () => {
    const { result, reads } = await counted((c) => c.query<{ outcome: string }>(
      `SELECT outcome FROM queen.cursor_seek('__QUEUE_MODE__', $1, NULL, false, '2000-01-01T00:00:00Z'::timestamptz)`, [queue]));
    assert.equal(result.rows[0]!.outcome, 'updated');
    assert.ok(reads <= BOUNDED, `segment rows read by the seek: ${reads}`);
    // The seek moved the cursor to the start: the next pop delivers the first message again.
    const again = await pop(sql.pool, { scope: 'partition', queue, partition: 'P', batch: 1, autoAck: true });
    assert.deepEqual(again.txns, ['m0']);
  });
});
