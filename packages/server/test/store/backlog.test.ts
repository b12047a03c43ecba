/**
 * The backlog index of wildcard pops (sql/migrations/0013_backlog.sql, functions backlog_prepare,
 * backlog_drop, backlog_on_*): a wildcard pop reads only the partitions that may have something for its
 * (queue, group), and no interleaving of pushes, pops, seeks and deletions leaves a message without an
 * entry for longer than one rebuild interval. Two-session cases step explicit transactions and read lock
 * waits from pg_blocking_pids, as interleaving.test.ts does.
 *
 * Spec: docs/api.md 5.9 (the wildcard walk: every partition with deliverable messages is a candidate; a partition
 * being claimed is skipped without waiting), 2.1 (a committed message is never lost).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue } from '../support/harness.js';
import { QM, ack, pop, push, settlesWithin, track, useSqlSessions, type PopParams, type Queryable } from '../support/hot-path.js';

const PROMPT_MS = 5000;
const sql = useSqlSessions();
const session = (): ReturnType<typeof sql.session> => sql.session();

/** The partition names with an entry for (queue, group), sorted. */
async function entries(queue: string, group = QM): Promise<string[]> {
  const result = await sql.pool.query<{ name: string }>(
    `SELECT p.name FROM queen.backlog b JOIN queen.queues q ON q.id = b.queue_id JOIN queen.partitions p ON p.id = b.partition_id
     WHERE q.name = $1 AND b.consumer_group = $2 ORDER BY p.name`, [queue, group]);
  return result.rows.map((r) => r.name);
}

async function registered(queue: string, group = QM): Promise<boolean> {
  const result = await sql.pool.query(
    `SELECT 1 FROM queen.backlog_groups g JOIN queen.queues q ON q.id = g.queue_id WHERE q.name = $1 AND g.consumer_group = $2`,
    [queue, group]);
  return result.rowCount === 1;
}

/**
 * Gives every partition of (queue, group) its entry back although it is caught up: the state a claim or an
 * ack that reached the tail leaves when a push into the partition was open (it skips the removal), which the
 * next walk then cleans up.
 */
async function restoreEntries(queue: string, group = QM): Promise<void> {
  await sql.pool.query(
    `INSERT INTO queen.backlog (queue_id, consumer_group, partition_id)
     SELECT q.id, $2, p.id FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id WHERE q.name = $1
     ON CONFLICT DO NOTHING`, [queue, group]);
  assert.notDeepEqual(await entries(queue, group), []);
}

/**
 * `remove` runs in an open transaction and removes partition P's entry (holding P's share lock): a push into
 * P from another session must wait for it, then write the entry again, and `next` finds the pushed message.
 */
async function pushWaitsForRemoval(queue: string, remove: (client: Queryable) => Promise<void>, next: PopParams): Promise<void> {
  const c = await session();
  const a = await session();
  await c.client.query('BEGIN');
  await remove(c.client);
  const pushed = track(push(a.client, [{ queue, partition: 'P', tx: 'p2' }]));
  await sql.blockedBy(a.pid, c.pid);
  assert.equal(pushed.settled(), false);
  await c.client.query('COMMIT');
  assert.deepEqual((await pushed.promise).map((r) => r.status), ['queued']);
  assert.deepEqual(await entries(queue), ['P']);
  assert.deepEqual((await pop(sql.pool, next)).txns, ['p2']);
}

/** Makes the last rebuild of (queue, group) look older than the rebuild interval, as if time had passed. */
async function ageRebuild(queue: string, group = QM): Promise<void> {
  await sql.pool.query(
    `UPDATE queen.backlog_groups g SET repaired_at = g.repaired_at - interval '1 minute'
     FROM queen.queues q WHERE q.id = g.queue_id AND q.name = $1 AND g.consumer_group = $2`, [queue, group]);
}

const wildcard = (queue: string, group = QM, batch = 100) =>
  ({ scope: 'queue' as const, queue, group, batch, maxPartitions: 0, autoAck: true });

describe('(1) the index holds the partitions with backlog, and costs one write per partition turning non-empty', () => {
  test('the first wildcard pop registers the pair and fills it; caught-up partitions leave it; a push brings one back', async () => {
    const queue = uniqueQueue('backlog-fill');
    await push(sql.pool, Array.from({ length: 20 }, (_, i) => ({ queue, partition: `p${String(i).padStart(2, '0')}`, tx: `m${i}` })));
    assert.equal(await registered(queue), false, 'pushes alone register nothing');

    const first = await pop(sql.pool, wildcard(queue, QM, 15));
    assert.equal(first.txns.length, 15);
    assert.equal(await registered(queue), true);
    // autoAck consumed 15 partitions to their tails: they left the index with the claim.
    const left = await entries(queue);
    assert.equal(left.length, 5);
    assert.deepEqual((await pop(sql.pool, wildcard(queue))).txns.sort(), left.map((p) => `m${Number(p.slice(1))}`).sort());
    assert.deepEqual(await entries(queue), []);
    assert.equal((await pop(sql.pool, wildcard(queue))).reason, 'none');

    await push(sql.pool, [{ queue, partition: 'p07', tx: 'late' }]);
    assert.deepEqual(await entries(queue), ['p07']);
    assert.deepEqual((await pop(sql.pool, wildcard(queue))).txns, ['late']);
  });

  test('a push into a partition that has its entry writes no index row; each registered group gets its own entry', async () => {
    const queue = uniqueQueue('backlog-cost');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'a0' }]);
    for (const group of [QM, 'g1', 'g2']) await pop(sql.pool, { scope: 'queue', queue, group, batch: 1, maxPartitions: 0 });
    const rows = async (): Promise<string[]> => (await sql.pool.query<{ v: string }>(
      `SELECT b.consumer_group || '@' || b.xmin::text || b.ctid::text AS v FROM queen.backlog b JOIN queen.queues q ON q.id = b.queue_id
       WHERE q.name = $1 ORDER BY b.consumer_group`, [queue])).rows.map((r) => r.v);
    const before = await rows();
    assert.equal(before.length, 3);
    for (let i = 1; i <= 3; i++) await push(sql.pool, [{ queue, partition: 'P', tx: `a${i}` }]);
    assert.deepEqual(await rows(), before, 'the same row versions: the pushes wrote nothing to the index');
  });
});

describe('(1b) an ack that reaches the tail removes the entry, so no later walk pays for it', () => {
  const leased = (queue: string, batch: number) => ({ scope: 'queue' as const, queue, batch, maxPartitions: 0 });

  test('acks up to the tail remove the entry; an ack short of it and a retry keep it', async () => {
    const queue = uniqueQueue('backlog-ack');
    const pushed = await push(sql.pool, [
      { queue, partition: 'A', tx: 'a1' }, { queue, partition: 'A', tx: 'a2' },
      { queue, partition: 'B', tx: 'b1' }, { queue, partition: 'C', tx: 'c1' },
    ]);
    const pid = (tx: string): string => pushed[['a1', 'a2', 'b1', 'c1'].indexOf(tx)]!.partition_id;
    const popped = await pop(sql.pool, leased(queue, 10));
    assert.deepEqual(popped.txns.sort(), ['a1', 'a2', 'b1', 'c1']);
    assert.deepEqual(await entries(queue), ['A', 'B', 'C'], 'leased partitions keep their entries');

    const rows = await ack(sql.pool, [
      { tx: 'a1', partitionId: pid('a1'), leaseId: popped.leaseId },
      { tx: 'b1', partitionId: pid('b1'), leaseId: popped.leaseId, status: 'retry' },
      { tx: 'c1', partitionId: pid('c1'), leaseId: popped.leaseId },
    ]);
    assert.deepEqual(rows.map((r) => r.success), [true, true, true]);
    assert.deepEqual(await entries(queue), ['A', 'B'], 'C reached its tail; A did not; B goes back to the queue');

    await ack(sql.pool, [{ tx: 'a2', partitionId: pid('a2'), leaseId: popped.leaseId }]);
    assert.deepEqual(await entries(queue), ['B']);
    assert.deepEqual((await pop(sql.pool, leased(queue, 10))).txns, ['b1'], 'the retried message is found through its entry');
  });

  test('an ack reaching the tail while a push into the partition is open keeps the entry and does not wait', async () => {
    const queue = uniqueQueue('backlog-ack-keep');
    const [row] = await push(sql.pool, [{ queue, partition: 'P', tx: 'p1' }]);
    const popped = await pop(sql.pool, leased(queue, 1));
    assert.deepEqual(popped.txns, ['p1']);

    const a = await session();
    await a.client.query('BEGIN');
    await push(a.client, [{ queue, partition: 'P', tx: 'p2' }]);
    const acked = await settlesWithin(ack(sql.pool, [{ tx: 'p1', partitionId: row!.partition_id, leaseId: popped.leaseId }]), PROMPT_MS);
    assert.notEqual(acked, 'blocked');
    assert.deepEqual(acked !== 'blocked' && acked.map((r) => r.success), [true]);
    assert.deepEqual(await entries(queue), ['P'], 'a partition being written keeps its entry');
    await a.client.query('COMMIT');
    assert.deepEqual((await pop(sql.pool, leased(queue, 1))).txns, ['p2']);
  });

  test('a push into a partition whose entry an open ack is removing waits for that ack, then writes the entry again', async () => {
    const queue = uniqueQueue('backlog-ack-race');
    const [row] = await push(sql.pool, [{ queue, partition: 'P', tx: 'p1' }]);
    const popped = await pop(sql.pool, leased(queue, 1));

    await pushWaitsForRemoval(queue, async (client) => {
      await ack(client, [{ tx: 'p1', partitionId: row!.partition_id, leaseId: popped.leaseId }]);
    }, leased(queue, 1));
  });
});

describe('(2) a missing entry delays, never loses', () => {
  test('deleted index rows: nothing is lost, the next rebuild brings every waiting message back', async () => {
    const queue = uniqueQueue('backlog-lost');
    await push(sql.pool, [
      { queue, partition: 'A', tx: 'a1' }, { queue, partition: 'B', tx: 'b1' }, { queue, partition: 'C', tx: 'c1' },
    ]);
    const leased = await pop(sql.pool, { scope: 'queue', queue, group: 'G', batch: 1, maxPartitions: 1 });
    assert.equal(leased.txns.length, 1);
    // A fault (an operator, a restore from before the index): every entry of the pair is gone.
    await sql.pool.query(`DELETE FROM queen.backlog b USING queen.queues q WHERE q.id = b.queue_id AND q.name = $1`, [queue]);
    // The lease expires: its message must come back too.
    await sql.pool.query(
      `UPDATE queen.cursors c SET lease_expires_at = now() - interval '1 second'
       FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE c.partition_id = p.id AND q.name = $1`, [queue]);
    assert.equal((await pop(sql.pool, wildcard(queue, 'G'))).reason, 'none', 'delayed until the next rebuild');
    await ageRebuild(queue, 'G');
    assert.deepEqual((await pop(sql.pool, wildcard(queue, 'G'))).txns.sort(), ['a1', 'b1', 'c1']);
  });

  test('a rebuild runs in slices of 1 000 partitions, one per pop, until it has covered them all', async () => {
    const queue = uniqueQueue('backlog-slices');
    const names = Array.from({ length: 2500 }, (_, i) => `p${String(i).padStart(4, '0')}`);
    await push(sql.pool, names.map((partition) => ({ queue, partition, tx: `m-${partition}` })));
    const one = { scope: 'queue' as const, queue, group: 'G', batch: 1, maxPartitions: 1, autoAck: true };
    assert.equal((await pop(sql.pool, one)).txns.length, 1, 'registers the pair (every partition filled at once)');
    assert.equal((await entries(queue, 'G')).length, 2499, 'every partition but the one consumed to its tail');
    const sweep = async (): Promise<string | null> => (await sql.pool.query<{ sweep_after: string | null }>(
      `SELECT g.sweep_after FROM queen.backlog_groups g JOIN queen.queues q ON q.id = g.queue_id
       WHERE q.name = $1 AND g.consumer_group = 'G'`, [queue])).rows[0]!.sweep_after;
    assert.equal(await sweep(), null);

    await sql.pool.query(`DELETE FROM queen.backlog b USING queen.queues q WHERE q.id = b.queue_id AND q.name = $1`, [queue]);
    await ageRebuild(queue, 'G');
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      assert.equal((await pop(sql.pool, one)).txns.length, 1);
      counts.push((await entries(queue, 'G')).length);
      assert.equal(await sweep() === null, i === 2, `the sweep is ${i === 2 ? 'complete' : 'in progress'} after pop ${i + 1}`);
    }
    // Each pop restored one more slice of entries (the partitions it consumed from keep theirs until caught up).
    assert.ok(counts[0]! >= 998 && counts[0]! <= 1000, `after one slice: ${counts[0]} entries`);
    assert.ok(counts[1]! >= 1997 && counts[1]! <= 2000, `after two slices: ${counts[1]} entries`);
    assert.ok(counts[2]! >= 2496 && counts[2]! <= 2500, `after the last slice: ${counts[2]} entries`);
    // Nothing is lost: the rest drains.
    const rest = await pop(sql.pool, { scope: 'queue', queue, group: 'G', batch: 5000, maxPartitions: 0, autoAck: true });
    assert.equal(rest.txns.length, 2500 - 4);
  });

  test('seek back and group deletion give the partitions their entries back at once', async () => {
    const queue = uniqueQueue('backlog-seek');
    await push(sql.pool, [{ queue, partition: 'A', tx: 'a1' }, { queue, partition: 'B', tx: 'b1' }]);
    assert.equal((await pop(sql.pool, wildcard(queue, 'G'))).txns.length, 2);
    assert.equal((await pop(sql.pool, wildcard(queue, 'G'))).reason, 'none');
    assert.deepEqual(await entries(queue, 'G'), []);

    await sql.pool.query(`SELECT * FROM queen.cursor_seek('G', $1, 'A', false, '1970-01-01T00:00:00Z')`, [queue]);
    assert.deepEqual(await entries(queue, 'G'), ['A']);
    assert.deepEqual((await pop(sql.pool, wildcard(queue, 'G'))).txns, ['a1']);

    await sql.pool.query(`SELECT queen.consumer_group_delete('G', $1, true)`, [queue]);
    assert.deepEqual(await entries(queue, 'G'), ['A', 'B']);
    assert.deepEqual((await pop(sql.pool, wildcard(queue, 'G'))).txns.sort(), ['a1', 'b1']);
  });

  test('deleting the queue leaves no entries and no registrations behind', async () => {
    const queue = uniqueQueue('backlog-drop');
    await push(sql.pool, [{ queue, partition: 'A', tx: 'a1' }, { queue, partition: 'B', tx: 'b1' }]);
    await pop(sql.pool, { scope: 'queue', queue, group: 'G', batch: 1, maxPartitions: 1 });
    const id = (await sql.pool.query<{ id: string }>('SELECT id FROM queen.queues WHERE name = $1', [queue])).rows[0]!.id;
    await sql.pool.query('SELECT queen.queue_delete($1)', [queue]);
    const left = await sql.pool.query('SELECT 1 FROM queen.backlog WHERE queue_id = $1 UNION ALL SELECT 1 FROM queen.backlog_groups WHERE queue_id = $1', [id]);
    assert.equal(left.rowCount, 0);
  });
});

describe('(3) interleavings with pushes', () => {
  test('a pair registered while a push to a new partition is open: the pop does not wait, and the message is found after the commit', async () => {
    const queue = uniqueQueue('backlog-register');
    await push(sql.pool, [{ queue, partition: 'old', tx: 'o1' }]);
    const a = await session();
    const c = await session();
    await a.client.query('BEGIN');
    await push(a.client, [{ queue, partition: 'new', tx: 'n1' }]);

    const during = await settlesWithin(pop(c.client, wildcard(queue, 'G')), PROMPT_MS);
    assert.notEqual(during, 'blocked', 'the registering pop waited on the open push');
    assert.deepEqual(during !== 'blocked' && during.txns, ['o1']);
    await a.client.query('COMMIT');
    assert.deepEqual((await pop(c.client, wildcard(queue, 'G'))).txns, ['n1']);
    assert.equal(await registered(queue, 'G'), true);
  });

  test('after registration, a push to a brand-new partition writes its own entry: no rebuild needed', async () => {
    const queue = uniqueQueue('backlog-new');
    await push(sql.pool, [{ queue, partition: 'old', tx: 'o1' }]);
    assert.deepEqual((await pop(sql.pool, wildcard(queue, 'G'))).txns, ['o1']);
    await push(sql.pool, [{ queue, partition: 'new', tx: 'n1' }]);
    assert.ok((await entries(queue, 'G')).includes('new'));
    assert.deepEqual((await pop(sql.pool, wildcard(queue, 'G'))).txns, ['n1']);
  });

  test('a pop that finds a partition caught up while a push into it is open keeps the entry and does not wait', async () => {
    const queue = uniqueQueue('backlog-keep');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'p1' }]);
    assert.deepEqual((await pop(sql.pool, wildcard(queue))).txns, ['p1']);
    await restoreEntries(queue);

    const a = await session();
    await a.client.query('BEGIN');
    await push(a.client, [{ queue, partition: 'P', tx: 'p2' }]);
    const during = await settlesWithin(pop(sql.pool, wildcard(queue)), PROMPT_MS);
    assert.notEqual(during, 'blocked');
    assert.equal(during !== 'blocked' && during.reason, 'none');
    assert.deepEqual(await entries(queue), ['P'], 'a partition being written keeps its entry');
    await a.client.query('COMMIT');
    assert.deepEqual((await pop(sql.pool, wildcard(queue))).txns, ['p2']);
  });

  test('a push into a partition whose entry an open pop is removing waits for that pop, then writes the entry again', async () => {
    const queue = uniqueQueue('backlog-race');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'p1' }]);
    assert.deepEqual((await pop(sql.pool, wildcard(queue))).txns, ['p1']);
    await restoreEntries(queue);

    await pushWaitsForRemoval(queue, async (client) => {
      assert.equal((await pop(client, wildcard(queue))).reason, 'none');
    }, wildcard(queue));
  });
});

describe('(4) a queue pays for its own partitions, not for a large neighbour', () => {
  const NEIGHBOUR = 3000;

  /**
   * Pops `queue`'s one message p1 as group G in a transaction of its own; the rows of queen.partitions it
   * read through an index (pg_stat_xact_user_tables counts the open transaction's reads).
   */
  async function popCountingPartitionReads(queue: string): Promise<number> {
    const s = await session();
    await s.client.query('BEGIN');
    assert.deepEqual((await pop(s.client, wildcard(queue, 'G'))).txns, ['p1']);
    const read = await s.client.query<{ n: string }>(
      `SELECT idx_tup_fetch AS n FROM pg_stat_xact_user_tables WHERE relid = 'queen.partitions'::regclass`);
    await s.client.query('COMMIT');
    return Number(read.rows[0]!.n);
  }

  /** A queue of NEIGHBOUR partitions, one message each, analysed so the planner knows its size. */
  async function largeNeighbour(): Promise<void> {
    const neighbour = uniqueQueue('backlog-neighbour');
    await push(sql.pool, Array.from({ length: NEIGHBOUR }, (_, i) => ({ queue: neighbour, partition: `n${i}`, tx: `n${i}` })));
    await sql.pool.query('ANALYZE queen.partitions');
  }

  test('registering the pair of a new queue reads its own partitions only', async () => {
    await largeNeighbour();
    const queue = uniqueQueue('backlog-small');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'p1' }]);
    const read = await popCountingPartitionReads(queue);
    assert.equal(await registered(queue, 'G'), true);
    // The old fill walked partitions_pkey from the first id and filtered on the queue: NEIGHBOUR rows.
    assert.ok(read < 20, `partition rows read: ${read}`);
  });

  test('a walk of a pair that could not register (pushes held the lock) reads its own partitions only', async () => {
    await largeNeighbour();
    const queue = uniqueQueue('backlog-small-walk');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'p1' }]);
    const pusher = await session();
    await pusher.client.query('BEGIN');
    await pusher.client.query('SELECT pg_advisory_xact_lock_shared(queen.backlog_lock_key($1))', [queue]);
    const read = await popCountingPartitionReads(queue);
    await pusher.client.query('ROLLBACK');
    assert.equal(await registered(queue, 'G'), false, 'registration gave up after 50 ms and the pop walked the partitions');
    assert.ok(read < 20, `partition rows read: ${read}`);
  });
});
