/**
 * Two- and three-session interleavings of the hot-path SQL functions (queen.push_messages, queen.pop_messages,
 * queen.ack_messages) on a real PostgreSQL. Each session is its own pg.Client stepping through explicit
 * transactions; a test awaits the exact point it needs (a statement returned, or a session is waiting on a
 * lock held by another one, read from pg_blocking_pids) instead of sleeping.
 *
 * Spec: docs/api.md 2.1 (offsets dense, assigned in commit order, never visible out of order), 4.4 rule 3
 * (concurrent identical pushes: exactly one queued), 5.9 rule 3 (a partition being claimed by a concurrent
 * pop is skipped without waiting), 5.13 (reason `leased` on the single-partition route), docs/architecture.md (fixed
 * lock order: no deadlock).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { uniqueQueue } from '../support/harness.js';
import { QM, ack, pop, push, settlesWithin, track, useSqlSessions, type PopOutcome, type PushRow } from '../support/hot-path.js';

/** Upper bound for "this statement does not block": generous, far above any honest execution time. */
const PROMPT_MS = 5000;

const sql = useSqlSessions();

/** A session: a dedicated connection. A statement timeout turns an unexpected hang into a failure. */
interface Session {
  client: pg.Client;
  pid: number;
  query: pg.Client['query'];
}

async function session(): Promise<Session> {
  const { client, pid } = await sql.session();
  return { client, pid, query: client.query.bind(client) as pg.Client['query'] };
}

/** Offsets of the stored messages of a partition: transactionId -> offset. */
async function offsets(queue: string, partition: string): Promise<Record<string, number>> {
  const result = await sql.pool.query<{ transaction_id: string; message_offset: string }>(
    `SELECT k.transaction_id, k.message_offset
     FROM queen.message_keys k JOIN queen.partitions p ON p.id = k.partition_id JOIN queen.queues q ON q.id = p.queue_id
     WHERE q.name = $1 AND p.name = $2 ORDER BY k.message_offset`,
    [queue, partition],
  );
  return Object.fromEntries(result.rows.map((r) => [r.transaction_id, Number(r.message_offset)]));
}

async function tail(queue: string, partition: string): Promise<number> {
  const result = await sql.pool.query<{ tail: string }>(
    `SELECT p.tail FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND p.name = $2`,
    [queue, partition],
  );
  return Number(result.rows[0]!.tail);
}

async function partitionId(queue: string, partition: string): Promise<string> {
  const result = await sql.pool.query<{ id: string }>(
    `SELECT p.id::text AS id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND p.name = $2`,
    [queue, partition],
  );
  return result.rows[0]!.id;
}

/** Resolves once `waiter` is waiting on a lock held by `holder` (pg_blocking_pids); fails after 10 s. */
function blockedBy(waiter: Session, holder: Session): Promise<void> {
  return sql.blockedBy(waiter.pid, holder.pid);
}

/**
 * Waits until the statement either finishes or is seen waiting on a lock held by `holder` (or PROMPT_MS
 * passes without it finishing). Nothing is cancelled: a blocked statement's promise is handed back.
 */
async function promptOrBlocked<T>(
  promise: Promise<T>,
  waiter: Session,
  holder: Session,
): Promise<{ kind: 'settled'; value: T } | { kind: 'blocked'; promise: Promise<T> }> {
  const tracked = track(promise);
  promise.catch(() => undefined);
  const deadline = Date.now() + PROMPT_MS;
  for (;;) {
    if (tracked.settled()) return { kind: 'settled', value: await promise };
    const blockers = (await sql.pool.query<{ b: number[] }>('SELECT pg_blocking_pids($1) AS b', [waiter.pid])).rows[0]!.b;
    if (tracked.settled()) return { kind: 'settled', value: await promise };
    if (blockers.includes(holder.pid) || Date.now() > deadline) return { kind: 'blocked', promise };
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('(1) offsets are dense and assigned in commit order', () => {
  test('a push blocked behind an open push to the same partition gets the next offsets after that commit', async () => {
    const queue = uniqueQueue('order');
    assert.deepEqual((await push(sql.pool, [{ queue, partition: 'P', tx: 'seed' }])).map((r) => r.status), ['queued']);
    const a = await session();
    const b = await session();

    // B's transaction starts first: start order must not matter, commit order does.
    await b.query('BEGIN');
    await a.query('BEGIN');
    assert.deepEqual((await push(a.client, [{ queue, partition: 'P', tx: 'a1' }, { queue, partition: 'P', tx: 'a2' }])).map((r) => r.status), ['queued', 'queued']);
    const bPush = track(push(b.client, [{ queue, partition: 'P', tx: 'b1' }]));
    await blockedBy(b, a);
    assert.equal(bPush.settled(), false, 'B must wait for A');

    await a.query('COMMIT');
    assert.deepEqual((await bPush.promise).map((r) => r.status), ['queued']);
    await b.query('COMMIT');

    assert.deepEqual(await offsets(queue, 'P'), { seed: 1, a1: 2, a2: 3, b1: 4 });
    assert.equal(await tail(queue, 'P'), 4);
    const delivered = await pop(sql.pool, { scope: 'partition', queue, partition: 'P', autoAck: true });
    assert.deepEqual(delivered.txns, ['seed', 'a1', 'a2', 'b1']);
  });

  test('the same on a partition (and queue) created by the first of the two pushes', async () => {
    const queue = uniqueQueue('order-new');
    const a = await session();
    const b = await session();
    await a.query('BEGIN');
    await b.query('BEGIN');
    assert.deepEqual((await push(a.client, [{ queue, partition: 'fresh', tx: 'a1' }])).map((r) => r.status), ['queued']);
    const bPush = track(push(b.client, [{ queue, partition: 'fresh', tx: 'b1' }, { queue, partition: 'fresh', tx: 'b2' }]));
    await blockedBy(b, a);
    assert.equal(bPush.settled(), false);
    await a.query('COMMIT');
    assert.deepEqual((await bPush.promise).map((r) => r.status), ['queued', 'queued']);
    await b.query('COMMIT');

    assert.deepEqual(await offsets(queue, 'fresh'), { a1: 1, b1: 2, b2: 3 });
    assert.equal(await tail(queue, 'fresh'), 3);
    const partitions = await sql.pool.query('SELECT 1 FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1', [queue]);
    assert.equal(partitions.rowCount, 1);
  });

  test('a rolled-back push leaves no hole: the blocked push takes the offsets it would have had', async () => {
    const queue = uniqueQueue('rollback');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'seed' }]);
    const a = await session();
    const b = await session();
    await a.query('BEGIN');
    await push(a.client, [{ queue, partition: 'P', tx: 'lost1' }, { queue, partition: 'P', tx: 'lost2' }]);
    const bPush = track(push(b.client, [{ queue, partition: 'P', tx: 'b1' }]));
    await blockedBy(b, a);
    await a.query('ROLLBACK');
    assert.deepEqual((await bPush.promise).map((r) => r.status), ['queued']);
    assert.deepEqual(await offsets(queue, 'P'), { seed: 1, b1: 2 });
    assert.equal(await tail(queue, 'P'), 2);
  });

  test('three writers: offsets follow commit order, whatever order the statements started in', async () => {
    const queue = uniqueQueue('three');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'seed' }]);
    const a = await session();
    const b = await session();
    const c = await session();
    await a.query('BEGIN');
    await push(a.client, [{ queue, partition: 'P', tx: 'a1' }]);
    await c.query('BEGIN');
    const cPush = track(push(c.client, [{ queue, partition: 'P', tx: 'c1' }]));
    await blockedBy(c, a);
    await a.query('COMMIT');
    await cPush.promise;
    // C holds the partition now (open transaction); B queues behind C.
    const bPush = track(push(b.client, [{ queue, partition: 'P', tx: 'b1' }]));
    await blockedBy(b, c);
    assert.equal(bPush.settled(), false);
    await c.query('COMMIT');
    await bPush.promise;
    assert.deepEqual(await offsets(queue, 'P'), { seed: 1, a1: 2, c1: 3, b1: 4 });
  });
});

describe('(2) a reader never sees an uncommitted segment', () => {
  test('while a push is open, pops from other sessions see only committed messages and do not wait', async () => {
    const queue = uniqueQueue('visible');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'm1' }]);
    const a = await session();
    const c = await session();

    await a.query('BEGIN');
    await push(a.client, [{ queue, partition: 'P', tx: 'm2' }, { queue, partition: 'P', tx: 'm3' }]);

    const single = await settlesWithin(pop(c.client, { scope: 'partition', queue, partition: 'P', group: 'g1', batch: 10, autoAck: true }), PROMPT_MS);
    assert.notEqual(single, 'blocked', 'a pop must not wait for an open push');
    assert.deepEqual(single, { reason: null, txns: ['m1'], partitions: ['P'], leaseId: (single as PopOutcome).leaseId });

    const wildcard = await settlesWithin(pop(c.client, { scope: 'queue', queue, group: 'g2', batch: 10, autoAck: true }), PROMPT_MS);
    assert.notEqual(wildcard, 'blocked');
    assert.deepEqual((wildcard as PopOutcome).txns, ['m1']);

    // Nothing further is visible to g1 while A is open.
    const again = await settlesWithin(pop(c.client, { scope: 'partition', queue, partition: 'P', group: 'g1', batch: 10, autoAck: true }), PROMPT_MS);
    assert.notEqual(again, 'blocked');
    assert.equal((again as PopOutcome).reason, 'none');
    assert.deepEqual((again as PopOutcome).txns, []);

    // Queue mode inside an open transaction of its own sees the same.
    await c.query('BEGIN');
    const inTxn = await settlesWithin(pop(c.client, { scope: 'partition', queue, partition: 'P', batch: 10 }), PROMPT_MS);
    assert.deepEqual((inTxn as PopOutcome).txns, ['m1']);
    await c.query('ROLLBACK');

    await a.query('COMMIT');
    assert.deepEqual((await pop(c.client, { scope: 'partition', queue, partition: 'P', group: 'g1', batch: 10, autoAck: true })).txns, ['m2', 'm3']);
    assert.deepEqual((await pop(c.client, { scope: 'queue', queue, group: 'g2', batch: 10, autoAck: true })).txns, ['m2', 'm3']);
    assert.deepEqual((await pop(c.client, { scope: 'partition', queue, partition: 'P', batch: 10, autoAck: true })).txns, ['m1', 'm2', 'm3']);
  });

  test('an open push to a brand-new partition is invisible: single-partition pop says no_partition, wildcard finds nothing', async () => {
    const queue = uniqueQueue('visible-new');
    await push(sql.pool, [{ queue, partition: 'other', tx: 'o1' }]);
    await pop(sql.pool, { scope: 'partition', queue, partition: 'other', autoAck: true });
    const a = await session();
    const c = await session();
    await a.query('BEGIN');
    await push(a.client, [{ queue, partition: 'late', tx: 'l1' }]);

    const single = await settlesWithin(pop(c.client, { scope: 'partition', queue, partition: 'late' }), PROMPT_MS);
    assert.notEqual(single, 'blocked');
    assert.deepEqual({ reason: (single as PopOutcome).reason, txns: (single as PopOutcome).txns }, { reason: 'no_partition', txns: [] });
    const wildcard = await settlesWithin(pop(c.client, { scope: 'queue', queue, maxPartitions: 0 }), PROMPT_MS);
    assert.notEqual(wildcard, 'blocked');
    assert.deepEqual({ reason: (wildcard as PopOutcome).reason, txns: (wildcard as PopOutcome).txns }, { reason: 'none', txns: [] });

    await a.query('COMMIT');
    assert.deepEqual((await pop(c.client, { scope: 'queue', queue, maxPartitions: 0, autoAck: true })).txns, ['l1']);
  });

  test('with a later writer queued behind an open one, readers see neither until each commits, and never the later one first', async () => {
    const queue = uniqueQueue('visible-two');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'm1' }]);
    const a = await session();
    const b = await session();
    const c = await session();
    await a.query('BEGIN');
    await push(a.client, [{ queue, partition: 'P', tx: 'a1' }]);
    await b.query('BEGIN');
    const bPush = track(push(b.client, [{ queue, partition: 'P', tx: 'b1' }]));
    await blockedBy(b, a);

    assert.deepEqual((await pop(c.client, { scope: 'partition', queue, partition: 'P', group: 'g', autoAck: true, batch: 10 })).txns, ['m1']);
    await a.query('COMMIT');
    await bPush.promise;
    // B has its offset but has not committed: a reader sees a1 and stops there.
    assert.deepEqual((await pop(c.client, { scope: 'partition', queue, partition: 'P', group: 'g', autoAck: true, batch: 10 })).txns, ['a1']);
    assert.equal((await pop(c.client, { scope: 'partition', queue, partition: 'P', group: 'g', autoAck: true, batch: 10 })).reason, 'none');
    await b.query('COMMIT');
    assert.deepEqual((await pop(c.client, { scope: 'partition', queue, partition: 'P', group: 'g', autoAck: true, batch: 10 })).txns, ['b1']);
  });
});

describe('(3) batches touching the same partitions in opposite item order do not deadlock', () => {
  test('held transactions: {P1,P2} then {P2,P1}: the second waits, then completes', async () => {
    const queue = uniqueQueue('order-lock');
    await push(sql.pool, [{ queue, partition: 'P1', tx: 's1' }, { queue, partition: 'P2', tx: 's2' }]);
    const a = await session();
    const b = await session();
    await a.query('BEGIN');
    await b.query('BEGIN');
    await push(a.client, [{ queue, partition: 'P1', tx: 'a-p1' }, { queue, partition: 'P2', tx: 'a-p2' }]);
    const bPush = track(push(b.client, [{ queue, partition: 'P2', tx: 'b-p2' }, { queue, partition: 'P1', tx: 'b-p1' }]));
    await blockedBy(b, a);
    await a.query('COMMIT');
    assert.deepEqual((await bPush.promise).map((r) => r.status), ['queued', 'queued']);
    await b.query('COMMIT');
    assert.deepEqual(await offsets(queue, 'P1'), { s1: 1, 'a-p1': 2, 'b-p1': 3 });
    assert.deepEqual(await offsets(queue, 'P2'), { s2: 1, 'a-p2': 2, 'b-p2': 3 });
  });

  test('two batches in opposite order queued behind a third holder both complete (no deadlock when the holder commits)', async () => {
    // If partition locks were taken in item order, this interleaving deadlocks deterministically:
    // X holds P1; B ([P1, P2]) waits for P1 holding nothing; A ([P2, P1]) would take P2 and wait for P1;
    // X commits, B gets P1 and waits for P2 held by A, A waits for P1 held by B.
    const queue = uniqueQueue('deadlock');
    await push(sql.pool, [{ queue, partition: 'P1', tx: 's1' }, { queue, partition: 'P2', tx: 's2' }]);
    const x = await session();
    const a = await session();
    const b = await session();
    await x.query('BEGIN');
    await push(x.client, [{ queue, partition: 'P1', tx: 'x-p1' }]);

    const bPush = track(push(b.client, [{ queue, partition: 'P1', tx: 'b-p1' }, { queue, partition: 'P2', tx: 'b-p2' }]));
    await blockedBy(b, x);
    const aPush = track(push(a.client, [{ queue, partition: 'P2', tx: 'a-p2' }, { queue, partition: 'P1', tx: 'a-p1' }]));
    // A waits too (on X or on B, depending on the lock it needs first).
    const deadline = Date.now() + 10_000;
    for (;;) {
      const blockers = (await sql.pool.query<{ b: number[] }>('SELECT pg_blocking_pids($1) AS b', [a.pid])).rows[0]!.b;
      if (blockers.length > 0) break;
      assert.equal(aPush.settled(), false, 'A cannot finish while X holds P1');
      if (Date.now() > deadline) assert.fail('A never waited');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await x.query('COMMIT');

    const [aResult, bResult] = await Promise.allSettled([aPush.promise, bPush.promise]);
    assert.equal(aResult.status, 'fulfilled', `A failed: ${aResult.status === 'rejected' ? String(aResult.reason) : ''}`);
    assert.equal(bResult.status, 'fulfilled', `B failed: ${bResult.status === 'rejected' ? String(bResult.reason) : ''}`);
    assert.deepEqual((aResult as PromiseFulfilledResult<PushRow[]>).value.map((r) => r.status), ['queued', 'queued']);
    assert.deepEqual((bResult as PromiseFulfilledResult<PushRow[]>).value.map((r) => r.status), ['queued', 'queued']);

    const p1 = await offsets(queue, 'P1');
    const p2 = await offsets(queue, 'P2');
    assert.equal(p1.s1, 1);
    assert.equal(p1['x-p1'], 2);
    assert.deepEqual(Object.values(p1).sort(), [1, 2, 3, 4]);
    assert.deepEqual(Object.values(p2).sort(), [1, 2, 3]);
    assert.deepEqual(Object.keys(p1).sort(), ['a-p1', 'b-p1', 's1', 'x-p1']);
    assert.deepEqual(Object.keys(p2).sort(), ['a-p2', 'b-p2', 's2']);
  });

  test('many concurrent rounds of opposite-order batches over four partitions: no error, every offset dense', async () => {
    const queue = uniqueQueue('deadlock-stress');
    const parts = ['P1', 'P2', 'P3', 'P4'];
    const a = await session();
    const b = await session();
    const rounds = 40;
    for (let round = 0; round < rounds; round++) {
      const forward = parts.map((p) => ({ queue, partition: p, tx: `a-${round}-${p}` }));
      const backward = [...parts].reverse().map((p) => ({ queue, partition: p, tx: `b-${round}-${p}` }));
      const results = await Promise.all([push(a.client, forward), push(b.client, backward)]);
      for (const rows of results) assert.deepEqual(rows.map((r) => r.status), ['queued', 'queued', 'queued', 'queued']);
    }
    for (const p of parts) {
      const o = await offsets(queue, p);
      assert.deepEqual(Object.values(o).sort((x, y) => x - y), Array.from({ length: rounds * 2 }, (_, i) => i + 1));
      assert.equal(await tail(queue, p), rounds * 2);
    }
  });

  test('batches mixing existing partitions with ones created at the same time, in any order: no error, every offset dense', async () => {
    // One batch may find every partition (the one-statement lock) while another creates some of them (the loop):
    // both must still lock in one order.
    const queue = uniqueQueue('create-while-locking');
    const sessions = [await session(), await session(), await session()];
    const existing = ['E1', 'E2', 'E3'];
    await push(sql.pool, existing.map((p) => ({ queue, partition: p, tx: `seed-${p}` })));
    const rounds = 25;
    for (let round = 0; round < rounds; round++) {
      const fresh = [`N${round}a`, `N${round}b`];
      const batches = sessions.map((s, i) => {
        const names = [...existing, ...fresh];
        const ordered = i === 1 ? names.reverse() : i === 2 ? [...fresh.reverse(), ...existing] : names;
        return push(s.client, ordered.map((p) => ({ queue, partition: p, tx: `${round}-${i}-${p}` })));
      });
      for (const rows of await Promise.all(batches)) assert.ok(rows.every((r) => r.status === 'queued'), JSON.stringify(rows));
      for (const p of fresh) assert.deepEqual(Object.values(await offsets(queue, p)).sort((x, y) => x - y), [1, 2, 3]);
    }
    for (const p of existing) {
      assert.deepEqual(Object.values(await offsets(queue, p)).sort((x, y) => x - y), Array.from({ length: rounds * 3 + 1 }, (_, i) => i + 1));
    }
  });
});

describe('(4) concurrent pops of the same (partition, group)', () => {
  test('contacted pair: the second pop skips the partition at once and reports leased (single-partition route)', async () => {
    const queue = uniqueQueue('pop-pop');
    await push(sql.pool, [1, 2, 3].map((n) => ({ queue, partition: 'P', tx: `m${n}` })));
    // Contact the pair first (an autoAck pop of m1), so the cursor row exists.
    assert.deepEqual((await pop(sql.pool, { scope: 'partition', queue, partition: 'P', group: 'G', batch: 1, autoAck: true })).txns, ['m1']);

    const a = await session();
    const b = await session();
    await a.query('BEGIN');
    await b.query('BEGIN');
    const first = await pop(a.client, { scope: 'partition', queue, partition: 'P', group: 'G', batch: 1 });
    assert.deepEqual(first.txns, ['m2']);

    const second = await settlesWithin(pop(b.client, { scope: 'partition', queue, partition: 'P', group: 'G', batch: 1 }), PROMPT_MS);
    assert.notEqual(second, 'blocked', 'the second pop waited for the first instead of skipping');
    assert.deepEqual({ reason: (second as PopOutcome).reason, txns: (second as PopOutcome).txns }, { reason: 'leased', txns: [] });

    await a.query('COMMIT');
    await b.query('COMMIT');
    // After the commit the lease is the first pop's, and the pair is still leased for everyone else.
    const lease = await sql.pool.query<{ lease_id: string; lease_span_end: string; committed: string }>(
      `SELECT c.lease_id::text AS lease_id, c.lease_span_end, c.committed FROM queen.cursors c
       WHERE c.partition_id = $1 AND c.consumer_group = 'G'`,
      [await partitionId(queue, 'P')],
    );
    assert.deepEqual(lease.rows, [{ lease_id: first.leaseId, lease_span_end: '2', committed: '1' }]);
    assert.equal((await pop(sql.pool, { scope: 'partition', queue, partition: 'P', group: 'G' })).reason, 'leased');
  });

  test('never-contacted pair: the second pop skips the partition at once and reports leased (single-partition route)', async () => {
    const queue = uniqueQueue('pop-pop-new');
    await push(sql.pool, [1, 2, 3].map((n) => ({ queue, partition: 'P', tx: `m${n}` })));
    const a = await session();
    const b = await session();
    await a.query('BEGIN');
    await b.query('BEGIN');
    const first = await pop(a.client, { scope: 'partition', queue, partition: 'P', group: 'fresh', batch: 1 });
    assert.deepEqual(first.txns, ['m1']);

    const second = await promptOrBlocked(pop(b.client, { scope: 'partition', queue, partition: 'P', group: 'fresh', batch: 1 }), b, a);
    await a.query('COMMIT'); // unblocks B if it was waiting
    const late = second.kind === 'blocked' ? await second.promise.catch((error: unknown) => String(error)) : null;
    await b.query('COMMIT').catch(() => undefined);
    assert.equal(second.kind, 'settled',
      `the second pop waited on the first pop's open transaction instead of skipping (after that commit it returned ${JSON.stringify(late)})`);
    const outcome = (second as { value: PopOutcome }).value;
    assert.deepEqual({ reason: outcome.reason, txns: outcome.txns }, { reason: 'leased', txns: [] });
  });

  test('never-contacted pairs, wildcard: the second pop takes the other partition without waiting', async () => {
    const queue = uniqueQueue('pop-pop-wild-new');
    await push(sql.pool, [
      { queue, partition: 'P1', tx: 'p1-a' },
      { queue, partition: 'P2', tx: 'p2-a' },
    ]);
    const a = await session();
    const b = await session();
    await a.query('BEGIN');
    await b.query('BEGIN');
    const first = await pop(a.client, { scope: 'queue', queue, group: 'fresh-w', batch: 10, maxPartitions: 1 });
    assert.equal(first.partitions.length, 1);
    const other = first.partitions[0] === 'P1' ? 'P2' : 'P1';

    const second = await promptOrBlocked(pop(b.client, { scope: 'queue', queue, group: 'fresh-w', batch: 10, maxPartitions: 1 }), b, a);
    await a.query('COMMIT');
    const late = second.kind === 'blocked' ? await second.promise.catch((error: unknown) => String(error)) : null;
    await b.query('COMMIT').catch(() => undefined);
    assert.equal(second.kind, 'settled',
      `the second wildcard pop waited on the first pop's open transaction instead of moving on (after that commit it returned ${JSON.stringify(late)})`);
    const outcome = (second as { value: PopOutcome }).value;
    assert.deepEqual({ partitions: outcome.partitions, txns: outcome.txns }, { partitions: [other], txns: [`${other.toLowerCase()}-a`] });
  });

  test('wildcard: the second pop moves on to another partition without waiting', async () => {
    const queue = uniqueQueue('pop-pop-wild');
    await push(sql.pool, [
      { queue, partition: 'P1', tx: 'p1-a' },
      { queue, partition: 'P1', tx: 'p1-b' },
      { queue, partition: 'P2', tx: 'p2-a' },
      { queue, partition: 'P2', tx: 'p2-b' },
    ]);
    // Contact both pairs for group W (autoAck pops of the first message of each partition).
    await pop(sql.pool, { scope: 'partition', queue, partition: 'P1', group: 'W', batch: 1, autoAck: true });
    await pop(sql.pool, { scope: 'partition', queue, partition: 'P2', group: 'W', batch: 1, autoAck: true });

    const a = await session();
    const b = await session();
    await a.query('BEGIN');
    await b.query('BEGIN');
    const first = await pop(a.client, { scope: 'queue', queue, group: 'W', batch: 10, maxPartitions: 1 });
    assert.equal(first.partitions.length, 1);
    const second = await settlesWithin(pop(b.client, { scope: 'queue', queue, group: 'W', batch: 10, maxPartitions: 1 }), PROMPT_MS);
    assert.notEqual(second, 'blocked', 'the wildcard pop waited on a partition being claimed');
    const other = first.partitions[0] === 'P1' ? 'P2' : 'P1';
    assert.deepEqual((second as PopOutcome).partitions, [other]);
    assert.deepEqual((second as PopOutcome).txns, [`${other.toLowerCase()}-b`]);
    assert.deepEqual(first.txns, [`${first.partitions[0]!.toLowerCase()}-b`]);
    await a.query('COMMIT');
    await b.query('COMMIT');
  });
});

describe('(5) concurrent identical pushes', () => {
  test('same partition + transactionId on a brand-new queue: exactly one queued, one duplicate of it', async () => {
    const queue = uniqueQueue('dup-new');
    const a = await session();
    const b = await session();
    await a.query('BEGIN');
    await b.query('BEGIN');
    const aRows = await push(a.client, [{ queue, partition: 'P', tx: 'same-tx', payload: { from: 'a' } }]);
    assert.equal(aRows[0]!.status, 'queued');
    const bPush = track(push(b.client, [{ queue, partition: 'P', tx: 'same-tx', payload: { from: 'b' } }]));
    await blockedBy(b, a);
    await a.query('COMMIT');
    const bRows = await bPush.promise;
    await b.query('COMMIT');
    assert.deepEqual(
      { status: bRows[0]!.status, message_id: bRows[0]!.message_id, partition_id: bRows[0]!.partition_id },
      { status: 'duplicate', message_id: aRows[0]!.message_id, partition_id: aRows[0]!.partition_id },
    );
    assert.deepEqual(await offsets(queue, 'P'), { 'same-tx': 1 });
    assert.equal(await tail(queue, 'P'), 1);
    const stored = await sql.pool.query<{ payloads: string[] }>('SELECT payloads FROM queen.segments WHERE partition_id = $1', [aRows[0]!.partition_id]);
    assert.deepEqual(stored.rows, [{ payloads: ['{"from":"a"}'] }]);
  });

  test('same partition + transactionId on an existing partition, mixed with fresh items', async () => {
    const queue = uniqueQueue('dup-old');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'seed' }]);
    const a = await session();
    const b = await session();
    await a.query('BEGIN');
    await b.query('BEGIN');
    const aRows = await push(a.client, [{ queue, partition: 'P', tx: 'x' }, { queue, partition: 'P', tx: 'a-only' }]);
    assert.deepEqual(aRows.map((r) => r.status), ['queued', 'queued']);
    const bPush = track(push(b.client, [{ queue, partition: 'P', tx: 'b-only' }, { queue, partition: 'P', tx: 'x' }]));
    await blockedBy(b, a);
    await a.query('COMMIT');
    const bRows = await bPush.promise;
    await b.query('COMMIT');
    assert.deepEqual(bRows.map((r) => r.status), ['queued', 'duplicate']);
    assert.equal(bRows[1]!.message_id, aRows[0]!.message_id);
    assert.deepEqual(await offsets(queue, 'P'), { seed: 1, x: 2, 'a-only': 3, 'b-only': 4 });
  });

  test('when the first push rolls back, the waiting one is queued', async () => {
    const queue = uniqueQueue('dup-rollback');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'seed' }]);
    const a = await session();
    const b = await session();
    await a.query('BEGIN');
    await push(a.client, [{ queue, partition: 'P', tx: 'y' }]);
    const bPush = track(push(b.client, [{ queue, partition: 'P', tx: 'y' }]));
    await blockedBy(b, a);
    await a.query('ROLLBACK');
    const bRows = await bPush.promise;
    assert.equal(bRows[0]!.status, 'queued');
    assert.deepEqual(await offsets(queue, 'P'), { seed: 1, y: 2 });
    const stored = await sql.pool.query<{ ids: string[] }>(
      'SELECT message_ids::text[] AS ids FROM queen.segments WHERE partition_id = $1 AND last_offset = 2',
      [bRows[0]!.partition_id],
    );
    assert.deepEqual(stored.rows, [{ ids: [bRows[0]!.message_id] }]);
  });
});

describe('(6) ack and pop on the same (partition, group) do not deadlock', () => {
  test('an open ack: a pop in another session completes, and after the commit every message is delivered exactly once', async () => {
    const queue = uniqueQueue('ack-pop');
    await push(sql.pool, [1, 2, 3, 4].map((n) => ({ queue, partition: 'P', tx: `m${n}` })));
    const leased = await pop(sql.pool, { scope: 'partition', queue, partition: 'P', group: 'G', batch: 2 });
    assert.deepEqual(leased.txns, ['m1', 'm2']);
    const pid = await partitionId(queue, 'P');

    const a = await session();
    const b = await session();
    await a.query('BEGIN');
    const acked = await ack(a.client, [
      { tx: 'm1', partitionId: pid, group: 'G', leaseId: leased.leaseId },
      { tx: 'm2', partitionId: pid, group: 'G', leaseId: leased.leaseId },
    ]);
    assert.deepEqual(acked.map((r) => [r.success, r.error, r.lease_released]), [[true, null, false], [true, null, true]]);

    await b.query('BEGIN');
    const during = track(pop(b.client, { scope: 'partition', queue, partition: 'P', group: 'G', batch: 10, autoAck: true }));
    await settlesWithin(during.promise, PROMPT_MS);
    await a.query('COMMIT');
    const duringResult = await during.promise;
    await b.query('COMMIT');
    const afterResult = await pop(sql.pool, { scope: 'partition', queue, partition: 'P', group: 'G', batch: 10, autoAck: true });
    assert.deepEqual([...duringResult.txns, ...afterResult.txns], ['m3', 'm4']);
  });

  test('an open pop holding one pair while an ack waits for it: the pop\'s next claim in the same transaction does not wait, both commit', async () => {
    const queue = uniqueQueue('pop-ack');
    await push(sql.pool, [
      ...[1, 2, 3].map((n) => ({ queue, partition: 'P1', tx: `p1-${n}` })),
      ...[1, 2, 3].map((n) => ({ queue, partition: 'P2', tx: `p2-${n}` })),
    ]);
    const ids = { P1: await partitionId(queue, 'P1'), P2: await partitionId(queue, 'P2') };
    // The ack locks pairs in partition-id order: it takes `lo` first, then waits for `hi`.
    const [lo, hi] = ids.P1 < ids.P2 ? (['P1', 'P2'] as const) : (['P2', 'P1'] as const);
    const loTx = (n: number) => `${lo.toLowerCase()}-${n}`;
    const hiTx = (n: number) => `${hi.toLowerCase()}-${n}`;

    // lo: leased by an earlier pop (m1, m2). hi: contacted and free.
    const loLease = await pop(sql.pool, { scope: 'partition', queue, partition: lo, group: 'G', batch: 2 });
    assert.deepEqual(loLease.txns, [loTx(1), loTx(2)]);
    await pop(sql.pool, { scope: 'partition', queue, partition: hi, group: 'G', batch: 1, autoAck: true });

    const a = await session(); // acker
    const b = await session(); // popper
    await b.query('BEGIN');
    const hiLease = await pop(b.client, { scope: 'partition', queue, partition: hi, group: 'G', batch: 2 });
    assert.deepEqual(hiLease.txns, [hiTx(2), hiTx(3)]);

    await a.query('BEGIN');
    const ackCall = track(ack(a.client, [
      { tx: loTx(1), partitionId: ids[lo], group: 'G', leaseId: loLease.leaseId },
      { tx: loTx(2), partitionId: ids[lo], group: 'G', leaseId: loLease.leaseId },
      { tx: hiTx(2), partitionId: ids[hi], group: 'G', leaseId: hiLease.leaseId },
      { tx: hiTx(3), partitionId: ids[hi], group: 'G', leaseId: hiLease.leaseId },
    ]));
    await blockedBy(a, b);

    // B now reaches for the pair A holds. Waiting here would close a cycle (a deadlock).
    const next = await settlesWithin(pop(b.client, { scope: 'partition', queue, partition: lo, group: 'G', batch: 10 }), PROMPT_MS);
    assert.notEqual(next, 'blocked', 'the pop waited on a pair locked by an ack');
    assert.deepEqual({ reason: (next as PopOutcome).reason, txns: (next as PopOutcome).txns }, { reason: 'leased', txns: [] });
    await b.query('COMMIT');

    const acked = await ackCall.promise;
    await a.query('COMMIT');
    assert.deepEqual(acked.map((r) => [r.success, r.error]), [[true, null], [true, null], [true, null], [true, null]]);
    assert.deepEqual(acked.map((r) => r.lease_released), [false, true, false, true]);
    const cursors = await sql.pool.query<{ name: string; committed: string; lease_id: string | null }>(
      `SELECT p.name, c.committed, c.lease_id::text AS lease_id FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
       WHERE c.partition_id = ANY ($1::uuid[]) AND c.consumer_group = 'G' ORDER BY p.name`,
      [[ids.P1, ids.P2]],
    );
    assert.deepEqual(cursors.rows, [
      { name: 'P1', committed: lo === 'P1' ? '2' : '3', lease_id: null },
      { name: 'P2', committed: lo === 'P2' ? '2' : '3', lease_id: null },
    ]);
  });

  test('an ack waiting on a pop\'s open claim sees that claim\'s lease once it commits', async () => {
    const queue = uniqueQueue('ack-wait');
    await push(sql.pool, [1, 2].map((n) => ({ queue, partition: 'P', tx: `m${n}` })));
    const pid = await partitionId(queue, 'P');
    await pop(sql.pool, { scope: 'partition', queue, partition: 'P', group: 'G', batch: 1, autoAck: true });
    const a = await session();
    const b = await session();
    await b.query('BEGIN');
    const claim = await pop(b.client, { scope: 'partition', queue, partition: 'P', group: 'G', batch: 1 });
    assert.deepEqual(claim.txns, ['m2']);
    const ackCall = track(ack(a.client, [{ tx: 'm2', partitionId: pid, group: 'G', leaseId: claim.leaseId }]));
    await blockedBy(a, b);
    await b.query('COMMIT');
    const rows = await ackCall.promise;
    assert.deepEqual(rows.map((r) => [r.success, r.error, r.lease_released, r.dlq]), [[true, null, true, false]]);
  });
});
