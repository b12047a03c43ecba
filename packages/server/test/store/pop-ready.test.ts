/**
 * The readiness check of parked pops (sql/functions/pop_ready.sql, store `cursorsReady`): for many wait keys
 * in one statement, which may have something to claim. It must answer every key an attempt would deliver to
 * (a key left out waits for a wake or its next tick), and it should leave out keys an attempt would find empty
 * for the reasons a parked pop waits on: nothing above the cursor, a live lease, a retry delay.
 *
 * Spec: docs/api.md 5.4 (long polling), 5.9 (the wildcard walk), 5.6 (leases and their expiry).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cursorsReady, type ReadyKey } from '../../src/store/cursors.js';
import { uniqueQueue } from '../support/harness.js';
import { QM, pop, push, useSqlSessions } from '../support/hot-path.js';

const sql = useSqlSessions();

const ready = (keys: ReadyKey[]): Promise<boolean[]> => cursorsReady(sql.pool, { keys });
const wildcard = (queue: string, group = QM): ReadyKey => ({ queue, partition: null, group });
const partition = (queue: string, name: string, group = QM): ReadyKey => ({ queue, partition: name, group });

/** Moves every lease of the queue's cursors into the past, as if its lease time had run out. */
async function expireLeases(queue: string): Promise<void> {
  await sql.pool.query(
    `UPDATE queen.cursors c SET lease_expires_at = now() - interval '1 second'
     FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE c.partition_id = p.id AND q.name = $1`, [queue]);
}

describe('pop_ready answers, per key, whether an attempt may deliver', () => {
  test('a queue that does not exist, or has nothing above the cursor, is not ready; a push makes it ready', async () => {
    const queue = uniqueQueue('ready-basic');
    assert.deepEqual(await ready([wildcard(queue), partition(queue, 'A')]), [false, false]);
    await push(sql.pool, [{ queue, partition: 'A', tx: 'a1' }]);
    assert.deepEqual(await ready([wildcard(queue), partition(queue, 'A'), partition(queue, 'B')]), [true, true, false],
      'an unregistered wildcard pair and a partition with a message are ready; a partition that does not exist is not');
    assert.deepEqual((await pop(sql.pool, { scope: 'queue', queue, group: QM, batch: 10, maxPartitions: 0, autoAck: true })).txns, ['a1']);
    assert.deepEqual(await ready([wildcard(queue), partition(queue, 'A')]), [false, false], 'consumed: nothing above the cursor');
  });

  test('a live lease or a retry delay is not ready; an expired lease is (the redelivery a parked pop waits for)', async () => {
    const queue = uniqueQueue('ready-lease');
    await push(sql.pool, [{ queue, partition: 'A', tx: 'a1' }]);
    const leased = await pop(sql.pool, { scope: 'queue', queue, group: 'G', batch: 10, maxPartitions: 0 });
    assert.deepEqual(leased.txns, ['a1']);
    assert.deepEqual(await ready([wildcard(queue, 'G'), partition(queue, 'A', 'G')]), [false, false], 'leased');
    assert.deepEqual(await ready([wildcard(queue, 'H'), partition(queue, 'A', 'H')]), [true, true], 'another group has no cursor yet');
    await expireLeases(queue);
    assert.deepEqual(await ready([wildcard(queue, 'G'), partition(queue, 'A', 'G')]), [true, true], 'the lease expired');

    await sql.pool.query(
      `UPDATE queen.cursors c SET lease_expires_at = NULL, not_before = now() + interval '1 hour'
       FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE c.partition_id = p.id AND q.name = $1`, [queue]);
    assert.deepEqual(await ready([wildcard(queue, 'G'), partition(queue, 'A', 'G')]), [false, false], 'retry delay');
  });

  test('a registered wildcard pair reads its index; a pair due for its rebuild is ready, so a missing entry only delays', async () => {
    const queue = uniqueQueue('ready-index');
    await push(sql.pool, [{ queue, partition: 'A', tx: 'a1' }, { queue, partition: 'B', tx: 'b1' }]);
    assert.equal((await pop(sql.pool, { scope: 'queue', queue, group: 'G', batch: 10, maxPartitions: 0, autoAck: true })).txns.length, 2);
    assert.deepEqual(await ready([wildcard(queue, 'G')]), [false]);
    await push(sql.pool, [{ queue, partition: 'B', tx: 'b2' }]);
    assert.deepEqual(await ready([wildcard(queue, 'G')]), [true], 'the push gave B its entry');

    // A fault removes the entry: the check misses the message until the pair's rebuild is due, then it is ready.
    await sql.pool.query(`DELETE FROM queen.backlog b USING queen.queues q WHERE q.id = b.queue_id AND q.name = $1`, [queue]);
    assert.deepEqual(await ready([wildcard(queue, 'G')]), [false]);
    await sql.pool.query(
      `UPDATE queen.backlog_groups g SET repaired_at = g.repaired_at - interval '1 minute'
       FROM queen.queues q WHERE q.id = g.queue_id AND q.name = $1`, [queue]);
    assert.deepEqual(await ready([wildcard(queue, 'G')]), [true]);
    assert.deepEqual((await pop(sql.pool, { scope: 'queue', queue, group: 'G', batch: 10, maxPartitions: 0, autoAck: true })).txns, ['b2']);
  });

  test('many keys in one statement: each answered in its own position', async () => {
    const queues = Array.from({ length: 300 }, (_, i) => uniqueQueue(`ready-many-${i}`));
    await push(sql.pool, queues.filter((_, i) => i % 3 === 0).map((queue) => ({ queue, partition: 'P', tx: 'm' })));
    const keys = queues.map((queue, i) => (i % 2 === 0 ? wildcard(queue) : partition(queue, 'P')));
    assert.deepEqual(await ready(keys), queues.map((_, i) => i % 3 === 0));
  });
});
