/**
 * The SQL of retention, eviction and partition cleanup (sql/functions/retention_apply.sql, partitions_cleanup.sql) on a real
 * PostgreSQL: queen.retention_apply, queen.segments_remove, queen.partitions_cleanup, queen.job_start, with the
 * hot-path functions (push_messages, pop_messages, ack_messages) around them. Messages are made old by
 * backdating segment created_at (a prefix at a time, so created_at stays non-decreasing along the offsets).
 *
 * Spec: docs/api.md 9.3 (the job table), 9.1 rule 4 (DLQ entries go with their message), 7.6 (traces too),
 * 2.2 (retentionEnabled, maxWaitTimeSeconds), 9.2 rule 3 (once per interval per cluster).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { uuidv7 } from '../../src/ids.js';
import { migrate } from '../../src/store/migrations.js';
import { createDatabase, serverConnection, uniqueQueue, type TestDatabase } from '../support/harness.js';

const QM = '__QUEUE_MODE__';

let db: TestDatabase;
let pool: pg.Pool;

before(async () => {
  db = await createDatabase();
  pool = new pg.Pool({ ...serverConnection(db.name), max: 4, options: '-c TimeZone=UTC' } as pg.PoolConfig);
  await migrate(pool);
});

after(async () => {
  await pool?.end();
  await db?.close();
});

/** Pushes `${prefix}-from..to` to one partition in one call (one segment); returns the partition id. */
async function push(queue: string, partition: string, from: number, to: number, prefix = 'm'): Promise<string> {
  const n = to - from + 1;
  const txns = Array.from({ length: n }, (_, i) => `${prefix}-${from + i}`);
  const result = await pool.query<{ partition_id: string; status: string }>(
    `SELECT partition_id::text AS partition_id, status
     FROM queen.push_messages($1::text[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[])`,
    [txns.map(() => queue), txns.map(() => partition), txns.map(() => uuidv7()), txns, txns.map(() => null),
      txns.map((t) => JSON.stringify({ t })), txns.map(() => null)],
  );
  for (const row of result.rows) assert.equal(row.status, 'queued');
  return result.rows[0]!.partition_id;
}

/** Pops from one partition; returns the delivered transactionIds and the lease id. */
async function pop(queue: string, partition: string, group = QM, batch = 100): Promise<{ txns: string[]; leaseId: string }> {
  const leaseId = uuidv7();
  const result = await pool.query<{ transaction_id: string | null }>(
    `SELECT transaction_id FROM queen.pop_messages('partition', $1, $2, NULL, NULL, $3, $4, 1, $5::uuid, 0, false, NULL, NULL,
                                                    true, NULL, 0)`,
    [queue, partition, group, batch, leaseId],
  );
  return { txns: result.rows.map((r) => r.transaction_id).filter((t): t is string => t !== null), leaseId };
}

/** Acks items; returns [success, error] per item. */
async function ack(partitionId: string, txns: string[], opts: { group?: string; leaseId?: string | null; status?: string } = {}): Promise<Array<[boolean, string | null]>> {
  const result = await pool.query<{ item: number; success: boolean; error: string | null }>(
    `SELECT item, success, error FROM queen.ack_messages($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[])`,
    [txns, txns.map(() => partitionId), txns.map(() => opts.status ?? 'completed'), txns.map(() => opts.group ?? QM),
      txns.map(() => opts.leaseId ?? null), txns.map(() => null)],
  );
  return [...result.rows].sort((a, b) => a.item - b.item).map((r) => [r.success, r.error]);
}

/** Pop then ack everything delivered, for a group. */
async function consume(queue: string, partition: string, partitionId: string, group: string, batch: number): Promise<string[]> {
  const { txns, leaseId } = await pop(queue, partition, group, batch);
  for (const [ok] of await ack(partitionId, txns, { group, leaseId })) assert.ok(ok);
  return txns;
}

/** Sets the queue's retention/eviction options. */
async function options(queue: string, o: { retention?: number; completed?: number; enabled?: boolean; maxWait?: number }): Promise<void> {
  await pool.query(
    `UPDATE queen.queues SET retention_seconds = $2, completed_retention_seconds = $3, retention_enabled = $4,
                             max_wait_time_seconds = $5 WHERE name = $1`,
    [queue, o.retention ?? 0, o.completed ?? 0, o.enabled ?? true, o.maxWait ?? 0],
  );
}

/** Makes the segments up to `through` (a prefix) `seconds` old. */
async function age(partitionId: string, through: number, seconds: number): Promise<void> {
  await pool.query(
    `UPDATE queen.segments SET created_at = now() - make_interval(secs => $3) WHERE partition_id = $1 AND last_offset <= $2`,
    [partitionId, through, seconds],
  );
}

/** Applies a job on a partition until nothing qualifies; returns the messages removed per call. */
async function applyAll(cycle: string, partitionId: string, job: 'retention' | 'eviction', budget = 1000, strict = false): Promise<number[]> {
  const calls: number[] = [];
  for (;;) {
    const result = await pool.query<{ n: string }>('SELECT queen.retention_apply($1, $2, $3, $4, $5) AS n', [cycle, partitionId, job, budget, strict]);
    const n = Number(result.rows[0]!.n);
    if (n === 0) return calls;
    calls.push(n);
  }
}

/** Retained transactionIds of a partition, in offset order. */
async function retained(partitionId: string): Promise<string[]> {
  const result = await pool.query<{ t: string }>(
    `SELECT t FROM queen.segments s CROSS JOIN LATERAL unnest(s.transaction_ids) WITH ORDINALITY AS u (t, n)
     WHERE s.partition_id = $1 ORDER BY s.last_offset, u.n`,
    [partitionId],
  );
  return result.rows.map((r) => r.t);
}

async function keys(partitionId: string): Promise<string[]> {
  const result = await pool.query<{ transaction_id: string }>(
    'SELECT transaction_id FROM queen.message_keys WHERE partition_id = $1 ORDER BY message_offset', [partitionId]);
  return result.rows.map((r) => r.transaction_id);
}

async function history(cycle: string): Promise<Array<{ partition_name: string; kind: string; deleted: number }>> {
  const result = await pool.query<{ partition_name: string; kind: string; deleted: number }>(
    `SELECT partition_name, kind, deleted::int AS deleted FROM queen.retention_history WHERE cycle_id = $1
     ORDER BY partition_name, kind`,
    [cycle],
  );
  return result.rows;
}

async function cursor(partitionId: string, group = QM): Promise<{ committed: number; retry_count: number; live: boolean } | undefined> {
  const result = await pool.query<{ committed: number; retry_count: number; live: boolean }>(
    `SELECT committed::int AS committed, retry_count, coalesce(lease_expires_at > now(), false) AS live
     FROM queen.cursors WHERE partition_id = $1 AND consumer_group = $2`,
    [partitionId, group],
  );
  return result.rows[0];
}

const range = (prefix: string, from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}-${from + i}`);

describe('retention (retentionSeconds)', () => {
  test('removes segments older than retentionSeconds, consumed or not, and nothing newer; keys, DLQ entries and traces go too', async () => {
    const queue = uniqueQueue('ret');
    const pid = await push(queue, 'P', 1, 3);
    await push(queue, 'P', 4, 6);
    await push(queue, 'P', 7, 8);
    await options(queue, { retention: 60 });
    // Group g consumes 1..3 and dead-letters 4; a trace on 2 and one on 7.
    await consume(queue, 'P', pid, 'g', 3);
    const held = await pop(queue, 'P', 'g', 1);
    assert.deepEqual(await ack(pid, ['m-4'], { group: 'g', leaseId: held.leaseId, status: 'dlq' }), [[true, null]]);
    for (const t of ['m-2', 'm-7']) {
      await pool.query(`INSERT INTO queen.traces (id, partition_id, transaction_id, message_id, consumer_group, event_type, data, worker_id)
                        VALUES ($1, $2, $3, $1, $4, 'info', '{}', 'w')`, [uuidv7(), pid, t, QM]);
    }
    await age(pid, 6, 120);

    const cycle = uuidv7();
    assert.deepEqual(await applyAll(cycle, pid, 'retention'), [6]);
    assert.deepEqual(await retained(pid), ['m-7', 'm-8']);
    assert.deepEqual(await keys(pid), ['m-7', 'm-8'], 'freed transactionIds');
    assert.equal((await pool.query('SELECT count(*)::int AS n FROM queen.dead_letters WHERE partition_id = $1', [pid])).rows[0].n, 0);
    assert.deepEqual((await pool.query('SELECT transaction_id FROM queen.traces WHERE partition_id = $1', [pid])).rows.map((r) => r.transaction_id), ['m-7']);
    assert.deepEqual(await history(cycle), [{ partition_name: 'P', kind: 'retention', deleted: 6 }]);
    // The never-consumed queue-mode group reads on at the next retained message.
    assert.deepEqual((await pop(queue, 'P')).txns, ['m-7', 'm-8']);
  });

  test('nothing happens when retention is disabled or nothing is old enough', async () => {
    const queue = uniqueQueue('ret-off');
    const pid = await push(queue, 'P', 1, 4);
    await age(pid, 4, 3600);
    await options(queue, { retention: 60, enabled: false });
    assert.deepEqual(await applyAll(uuidv7(), pid, 'retention'), []);
    await options(queue, { retention: 7200 });
    assert.deepEqual(await applyAll(uuidv7(), pid, 'retention'), []);
    assert.deepEqual(await retained(pid), range('m', 1, 4));
  });

  test('chunks stay within the budget (whole segments) and one cycle records one history row per partition and kind', async () => {
    const queue = uniqueQueue('ret-chunk');
    const pid = await push(queue, 'P', 1, 2);
    await push(queue, 'P', 3, 4);
    await push(queue, 'P', 5, 6);
    await push(queue, 'P', 7, 11);
    await push(queue, 'P', 12, 12);
    await options(queue, { retention: 60 });
    await age(pid, 11, 600);
    const cycle = uuidv7();
    // Budget 4: segments of 2+2, then 2 (the 5-message one does not fit after it), then the 5 alone.
    assert.deepEqual(await applyAll(cycle, pid, 'retention', 4), [4, 2, 5]);
    assert.deepEqual(await retained(pid), ['m-12']);
    assert.deepEqual(await history(cycle), [{ partition_name: 'P', kind: 'retention', deleted: 11 }]);
  });
});

describe('retention (completedRetentionSeconds)', () => {
  test('keeps what the slower of two groups has not passed; a segment straddling its cursor stays whole', async () => {
    const queue = uniqueQueue('comp');
    const pid = await push(queue, 'P', 1, 2);
    await push(queue, 'P', 3, 4);
    await push(queue, 'P', 5, 6);
    await push(queue, 'P', 7, 8);
    await options(queue, { completed: 60 });
    await consume(queue, 'P', pid, 'fast', 8);
    await consume(queue, 'P', pid, 'slow', 5); // cursor 5: inside the segment 5..6
    await age(pid, 8, 120);

    const cycle = uuidv7();
    assert.deepEqual(await applyAll(cycle, pid, 'retention'), [4]);
    assert.deepEqual(await retained(pid), range('m', 5, 8));
    assert.deepEqual(await history(cycle), [{ partition_name: 'P', kind: 'completed', deleted: 4 }]);
    assert.equal((await cursor(pid, 'slow'))!.committed, 5, 'cursors above the removed run do not move');
    assert.equal((await cursor(pid, 'fast'))!.committed, 8);
  });

  test('young consumed segments stay; a partition no group contacted keeps everything', async () => {
    const queue = uniqueQueue('comp-young');
    const pid = await push(queue, 'P', 1, 2);
    await push(queue, 'P', 3, 4);
    const untouched = await push(queue, 'U', 1, 3);
    await options(queue, { completed: 60 });
    await consume(queue, 'P', pid, QM, 4);
    await age(pid, 2, 120);
    await age(untouched, 3, 3600);
    const cycle = uuidv7();
    assert.deepEqual(await applyAll(cycle, pid, 'retention'), [2]);
    assert.deepEqual(await retained(pid), ['m-3', 'm-4']);
    assert.deepEqual(await applyAll(cycle, untouched, 'retention'), []);
    assert.deepEqual(await retained(untouched), range('m', 1, 3));
  });

  test('with both options, old unconsumed segments go as retention and consumed ones as completed', async () => {
    const queue = uniqueQueue('both');
    const pid = await push(queue, 'P', 1, 3);
    await push(queue, 'P', 4, 6);
    await push(queue, 'P', 7, 9);
    await options(queue, { retention: 3600, completed: 60 });
    await consume(queue, 'P', pid, QM, 3);
    await age(pid, 6, 7200);
    const cycle = uuidv7();
    await applyAll(cycle, pid, 'retention');
    assert.deepEqual(await retained(pid), range('m', 7, 9));
    assert.deepEqual(await history(cycle), [
      { partition_name: 'P', kind: 'completed', deleted: 3 },
      { partition_name: 'P', kind: 'retention', deleted: 3 },
    ]);
  });
});

describe('eviction (maxWaitTimeSeconds)', () => {
  test('drops only old messages some contacted group has not consumed; consumed and newer ones stay', async () => {
    const queue = uniqueQueue('evict');
    const pid = await push(queue, 'P', 1, 2);
    await push(queue, 'P', 3, 4);
    await push(queue, 'P', 5, 6);
    await push(queue, 'P', 7, 8);
    await options(queue, { maxWait: 60, enabled: false });
    await consume(queue, 'P', pid, 'a', 4);
    await consume(queue, 'P', pid, 'b', 2);
    await age(pid, 6, 120);
    const cycle = uuidv7();
    assert.deepEqual(await applyAll(cycle, pid, 'eviction'), [4]);
    assert.deepEqual(await retained(pid), ['m-1', 'm-2', 'm-7', 'm-8']);
    assert.deepEqual(await history(cycle), [{ partition_name: 'P', kind: 'eviction', deleted: 4 }]);
    assert.equal((await pool.query('SELECT count(*)::int AS n FROM queen.dead_letters WHERE partition_id = $1', [pid])).rows[0].n, 0, 'no DLQ entries');
    // Both groups' backlogs were removed up to 6: their cursors move there and pops go on at 7.
    assert.equal((await cursor(pid, 'a'))!.committed, 6);
    assert.equal((await cursor(pid, 'b'))!.committed, 6);
    assert.deepEqual((await pop(queue, 'P', 'b')).txns, ['m-7', 'm-8']);
  });

  test('a partition no group contacted loses every old segment; the cycle budget is strict once something went', async () => {
    const queue = uniqueQueue('evict-none');
    const pid = await push(queue, 'P', 1, 3);
    await push(queue, 'P', 4, 6);
    await push(queue, 'P', 7, 7);
    await options(queue, { maxWait: 30, enabled: false });
    await age(pid, 7, 60);
    const cycle = uuidv7();
    // Budget 2, not strict: the 3-message segment goes alone. Strict: nothing fits any more.
    assert.equal(Number((await pool.query('SELECT queen.retention_apply($1, $2, $3, 2, false) AS n', [cycle, pid, 'eviction'])).rows[0].n), 3);
    assert.equal(Number((await pool.query('SELECT queen.retention_apply($1, $2, $3, 2, true) AS n', [cycle, pid, 'eviction'])).rows[0].n), 0);
    assert.deepEqual(await applyAll(cycle, pid, 'eviction', 10), [4]);
    assert.deepEqual(await retained(pid), []);
    assert.deepEqual(await history(cycle), [{ partition_name: 'P', kind: 'eviction', deleted: 7 }]);
    // A group contacting the partition now finds nothing, and a later push is delivered normally.
    assert.deepEqual((await pop(queue, 'P')).txns, []);
    await push(queue, 'P', 8, 8);
    assert.deepEqual((await pop(queue, 'P')).txns, ['m-8']);
  });
});

describe('cursors, leases and acks around removed messages', () => {
  test('a live lease over removed messages is left alone; acks of removed ones answer Message not found, the rest settle', async () => {
    const queue = uniqueQueue('lease');
    const pid = await push(queue, 'P', 1, 3);
    await push(queue, 'P', 4, 6);
    await options(queue, { retention: 60 });
    const held = await pop(queue, 'P', QM, 6);
    assert.equal(held.txns.length, 6);
    await age(pid, 3, 120);
    assert.deepEqual(await applyAll(uuidv7(), pid, 'retention'), [3]);
    assert.deepEqual(await cursor(pid), { committed: 0, retry_count: 0, live: true }, 'the leased cursor does not move');

    assert.deepEqual(await ack(pid, ['m-2'], { leaseId: held.leaseId }), [[false, 'Message not found']]);
    assert.deepEqual(await ack(pid, ['m-4', 'm-5', 'm-6'], { leaseId: held.leaseId }), [[true, null], [true, null], [true, null]]);
    assert.deepEqual(await cursor(pid), { committed: 6, retry_count: 0, live: false });
    assert.deepEqual((await pop(queue, 'P')).txns, []);
  });

  test('an unleased cursor below a removed run moves to its end and loses the retry count of the removed head', async () => {
    const queue = uniqueQueue('retry');
    const pid = await push(queue, 'P', 1, 1);
    await push(queue, 'P', 2, 3);
    await options(queue, { retention: 60 });
    const first = await pop(queue, 'P', QM, 1);
    assert.deepEqual(await ack(pid, ['m-1'], { leaseId: first.leaseId, status: 'failed' }), [[true, null]]);
    assert.equal((await cursor(pid))!.retry_count, 1);
    await age(pid, 1, 120);
    assert.deepEqual(await applyAll(uuidv7(), pid, 'retention'), [1]);
    assert.deepEqual(await cursor(pid), { committed: 1, retry_count: 0, live: false });
    const next = await pop(queue, 'P', QM, 10);
    assert.deepEqual(next.txns, ['m-2', 'm-3'], 'no loss, no duplicate');
    assert.deepEqual(await ack(pid, ['m-1'], { leaseId: next.leaseId }), [[false, 'Message not found']], 'a removed message is not found');
    assert.deepEqual(await ack(pid, ['m-2', 'm-3'], { leaseId: next.leaseId }), [[true, null], [true, null]]);
  });

  test('a message deleted by hand inside the run does not stop the cursor from moving past the run', async () => {
    const queue = uniqueQueue('gap');
    const pid = await push(queue, 'P', 1, 4);
    await push(queue, 'P', 5, 5);
    await options(queue, { retention: 60 });
    await pool.query('SELECT queen.message_delete($1, $2)', [pid, 'm-2']);
    await age(pid, 4, 120);
    assert.deepEqual(await applyAll(uuidv7(), pid, 'retention'), [3]);
    assert.deepEqual(await retained(pid), ['m-5']);
  });
});

describe('partition cleanup', () => {
  const backdate = async (partitionId: string, days: number): Promise<void> => {
    await pool.query(`UPDATE queen.partitions SET created_at = now() - make_interval(days => $2),
                        last_push_at = CASE WHEN last_push_at IS NOT NULL THEN now() - make_interval(days => $2) END WHERE id = $1`,
    [partitionId, days]);
    await pool.query(`UPDATE queen.cursors SET created_at = now() - make_interval(days => $2), last_activity_at = now() - make_interval(days => $2),
                        last_consumed_at = CASE WHEN last_consumed_at IS NOT NULL THEN now() - make_interval(days => $2) END
                      WHERE partition_id = $1`, [partitionId, days]);
  };
  const exists = async (partitionId: string): Promise<boolean> =>
    (await pool.query('SELECT 1 FROM queen.partitions WHERE id = $1', [partitionId])).rowCount === 1;

  test('deletes only idle empty partitions without a live lease, with their cursors; a push re-creates one under the same id', async () => {
    const queue = uniqueQueue('clean');
    const idle = await push(queue, 'idle', 1, 2);
    await consume(queue, 'idle', idle, 'g', 2);
    await pool.query('SELECT queen.queue_clear($1, $2, $3)', ['', queue, 'idle']);
    const busy = await push(queue, 'recent', 1, 1);
    await consume(queue, 'recent', busy, 'g', 1);
    await pool.query('SELECT queen.queue_clear($1, $2, $3)', ['', queue, 'recent']);
    const full = await push(queue, 'full', 1, 1);
    const leased = await push(queue, 'leased', 1, 1);
    await pop(queue, 'leased', 'g', 1);
    await pool.query(`DELETE FROM queen.segments WHERE partition_id = $1`, [leased]); // empty, but still leased
    await backdate(idle, 31);
    await backdate(busy, 29);
    await backdate(full, 31);
    await pool.query('UPDATE queen.segments SET created_at = now() - interval \'31 days\' WHERE partition_id = $1', [full]);
    await backdate(leased, 31);
    await pool.query(`UPDATE queen.cursors SET lease_expires_at = now() + interval '1 minute' WHERE partition_id = $1`, [leased]);

    // A wildcard group registered with the backlog index, whose entry for the idle partition a seek back left.
    await pool.query(`INSERT INTO queen.backlog_groups (queue_id, consumer_group, repaired_at)
                      SELECT p.queue_id, 'w', now() FROM queen.partitions p WHERE p.id = $1`, [idle]);
    await pool.query(`INSERT INTO queen.backlog (queue_id, consumer_group, partition_id)
                      SELECT p.queue_id, 'w', p.id FROM queen.partitions p WHERE p.id = ANY ($1::uuid[])`, [[idle, full]]);

    const cycle = uuidv7();
    const deleted = await pool.query<{ n: number }>(`SELECT queen.partitions_cleanup($1, now() - interval '30 days', 100) AS n`, [cycle]);
    assert.equal(deleted.rows[0]!.n, 1);
    assert.equal(await exists(idle), false);
    assert.equal(await cursor(idle, 'g'), undefined, 'its per-group state goes with it');
    const entries = await pool.query<{ partition_id: string }>(
      `SELECT b.partition_id::text FROM queen.backlog b JOIN queen.queues q ON q.id = b.queue_id WHERE q.name = $1`, [queue]);
    assert.deepEqual(entries.rows, [{ partition_id: full }], 'its backlog entries go with it, the others stay');
    assert.equal(await exists(busy), true, 'activity within the idle period');
    assert.equal(await exists(full), true, 'retained messages');
    assert.equal(await exists(leased), true, 'a live lease');
    assert.deepEqual(await history(cycle), [{ partition_name: 'idle', kind: 'partition_cleanup', deleted: 1 }]);

    const again = await push(queue, 'idle', 3, 3);
    assert.equal(again, idle, 'the same computed id (partition_uuid), on a partition that starts empty');
    assert.deepEqual((await pop(queue, 'idle', 'g')).txns, ['m-3']);
  });
});

describe('two sessions: a chunk is short and blocks no pop', () => {
  test('while a chunk is open, a pop of the partition answers at once (skipped, leased) and a push waits for the commit', async () => {
    const queue = uniqueQueue('inter');
    const pid = await push(queue, 'P', 1, 3);
    await push(queue, 'P', 4, 5);
    await options(queue, { retention: 60 });
    await consume(queue, 'P', pid, QM, 1);
    await age(pid, 3, 120);

    const chunk = new pg.Client({ ...serverConnection(db.name), options: '-c TimeZone=UTC -c statement_timeout=30000' } as pg.ClientConfig);
    const writer = new pg.Client({ ...serverConnection(db.name), options: '-c TimeZone=UTC -c statement_timeout=30000' } as pg.ClientConfig);
    await chunk.connect();
    await writer.connect();
    try {
      const chunkPid = (await chunk.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const writerPid = (await writer.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await chunk.query('BEGIN');
      assert.equal(Number((await chunk.query('SELECT queen.retention_apply($1, $2, $3, 100, false) AS n', [uuidv7(), pid, 'retention'])).rows[0].n), 3);

      const started = Date.now();
      const reason = await pool.query<{ empty_reason: string | null }>(
        `SELECT empty_reason FROM queen.pop_messages('partition', $1, 'P', NULL, NULL, $2, 10, 1, $3::uuid, 0, false, NULL, NULL, true, NULL, 0)`,
        [queue, QM, uuidv7()],
      );
      assert.deepEqual(reason.rows.map((r) => r.empty_reason), ['leased'], 'the pop skips the partition instead of waiting');
      assert.ok(Date.now() - started < 5000);

      let pushed = false;
      const waiting = writer.query(
        `SELECT status FROM queen.push_messages(ARRAY[$1], ARRAY['P'], ARRAY[$2::uuid], ARRAY['m-6'], ARRAY[NULL::uuid], ARRAY['{}'], ARRAY[NULL])`,
        [queue, uuidv7()],
      ).then((r) => {
        pushed = true;
        return r;
      });
      for (const deadline = Date.now() + 10_000; ;) {
        const blockers = (await pool.query<{ b: number[] }>('SELECT pg_blocking_pids($1) AS b', [writerPid])).rows[0]!.b;
        if (blockers.includes(chunkPid)) break;
        assert.ok(Date.now() < deadline, 'the push never waited for the chunk');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.equal(pushed, false);
      await chunk.query('COMMIT');
      assert.deepEqual((await waiting).rows.map((r) => r.status), ['queued']);
      assert.deepEqual(await keys(pid), ['m-4', 'm-5', 'm-6'], 'the push got the next offset after the commit');
      assert.deepEqual((await pop(queue, 'P')).txns, ['m-4', 'm-5', 'm-6']);
    } finally {
      await chunk.end();
      await writer.end();
    }
  });
});

describe('two sessions: a chunk and a queue delete', () => {
  test('a queue delete waits for an open chunk at the queue row and then succeeds (no deadlock half-way)', async () => {
    const queue = uniqueQueue('inter-del');
    const pid = await push(queue, 'P', 1, 2);
    await push(queue, 'P', 3, 4);
    await options(queue, { retention: 60 });
    await consume(queue, 'P', pid, 'g', 1);
    await age(pid, 2, 120);
    const clients = [0, 1].map(() => new pg.Client({ ...serverConnection(db.name), options: '-c TimeZone=UTC -c statement_timeout=30000' } as pg.ClientConfig));
    const [chunk, deleter] = clients as [pg.Client, pg.Client];
    await Promise.all(clients.map((c) => c.connect()));
    try {
      const chunkPid = (await chunk.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const deleterPid = (await deleter.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await chunk.query('BEGIN');
      assert.equal(Number((await chunk.query('SELECT queen.retention_apply($1, $2, $3, 100, false) AS n', [uuidv7(), pid, 'retention'])).rows[0].n), 2);
      const deleted = deleter.query<{ existed: boolean }>('SELECT queen.queue_delete($1) AS existed', [queue]);
      for (const deadline = Date.now() + 10_000; ;) {
        const blockers = (await pool.query<{ b: number[] }>('SELECT pg_blocking_pids($1) AS b', [deleterPid])).rows[0]!.b;
        if (blockers.includes(chunkPid)) break;
        assert.ok(Date.now() < deadline, 'the delete never waited for the chunk');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // The chunk goes on (its cleanup of cursors and history) without waiting for the delete.
      assert.equal(Number((await chunk.query('SELECT queen.retention_apply($1, $2, $3, 100, false) AS n', [uuidv7(), pid, 'retention'])).rows[0].n), 0);
      await chunk.query('COMMIT');
      assert.equal((await deleted).rows[0]!.existed, true);
      assert.equal((await pool.query('SELECT count(*)::int AS n FROM queen.segments WHERE partition_id = $1', [pid])).rows[0].n, 0);
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });
});

describe('job_start', () => {
  test('one start per interval: a second start within 90% of the interval is refused, a later one passes', async () => {
    const job = `job-${uuidv7()}`;
    const start = async (): Promise<boolean> => (await pool.query<{ s: boolean }>('SELECT queen.job_start($1, $2) AS s', [job, 500])).rows[0]!.s;
    assert.equal(await start(), true);
    assert.equal(await start(), false);
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(await start(), true);
  });
});
