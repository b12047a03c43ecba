/**
 * sql-produce: the transactional outbox through the SQL API (docs/sql-api.md), beside push-b1 over HTTP.
 *
 * Design: 50 sessions on the broker's database (an application's connections, not the broker's), each
 * running for --duration seconds, one after the other, the outbox transaction of the docs:
 * `BEGIN; INSERT INTO queen_bench_orders ...; SELECT queen.produce_one(queue, payload, partition, txid);
 * COMMIT`, rotating over the same 100 partitions as push-b1. Latency is BEGIN to COMMIT's answer (the
 * whole transaction, business row included), so it compares with push-b1's request latency: both end when
 * the message is committed. Two modes: `wake` (the default a user gets: the commit wakes parked consumers
 * through a NOTIFY, which PostgreSQL serialises across committing transactions) and `no-wake`
 * (`SET queen.wake = 'off'`, for high-rate producers). Every committed message is counted on the queue
 * afterwards: a mismatch fails the run's check. Skipped without a known database.
 */
import type pg from 'pg';
import { Samples, perSecond, round } from '../stats.js';
import {
  PartitionRotation, describeError, freshQueueName, now, partitionNames, runTag, withQueue,
  type ScenarioContext, type ScenarioResult,
} from './common.js';
import { openDatabase } from './database.js';
import { PUSH_CONCURRENCY, fmt } from './push.js';

/** The application's business table, shared by runs (rows carry the run's tag and are deleted after it). */
const ORDERS_TABLE = `CREATE TABLE IF NOT EXISTS queen_bench_orders (
  id bigserial PRIMARY KEY, tag text NOT NULL, partition text NOT NULL, total integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now())`;

/** The two settings of the wake-up NOTIFY measured. */
const MODES = [
  { mode: 'wake', setting: 'on' },
  { mode: 'no-wake', setting: 'off' },
] as const;

/** Runs both modes, each on a fresh queue. */
export async function sqlProduceScenario(ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const name = 'sql-produce';
  if (ctx.database === undefined) {
    const skipped = 'the database is unknown (--url without PG_HOST/DATABASE_URL)';
    return MODES.map(({ mode }) => ({ scenario: name, mode, queue: '', figures: {}, skipped, summary: `${name} (${mode}): skipped` }));
  }
  const db = openDatabase(ctx.database, PUSH_CONCURRENCY);
  try {
    await db.query(ORDERS_TABLE);
    const results: ScenarioResult[] = [];
    for (const { mode, setting } of MODES) {
      const queue = freshQueueName(`${name}-${mode}`);
      results.push(await withQueue(ctx, queue, {}, () => runMode(ctx, db, name, mode, setting, queue)));
    }
    return results;
  } finally {
    await db.end();
  }
}

/** One mode: 50 sessions of outbox transactions for --duration s, then the count check. */
async function runMode(ctx: ScenarioContext, db: pg.Pool, name: string, mode: string, wake: string, queue: string): Promise<ScenarioResult> {
  const tag = runTag();
  const rotation = new PartitionRotation(partitionNames());
  const latency = new Samples();
  let committed = 0;
  let failed = 0;
  let lastError: string | null = null;
  const started = now();
  const deadline = started + ctx.durationS * 1000;
  await Promise.all(Array.from({ length: PUSH_CONCURRENCY }, async (_, worker) => {
    const session = await db.connect();
    try {
      await session.query("SELECT set_config('queen.wake', $1, false)", [wake]);
      for (let n = 0; now() < deadline; n++) {
        const partition = rotation.take();
        const transactionId = `${tag}.${worker}.${n}`;
        const t0 = now();
        try {
          await session.query('BEGIN');
          await session.query('INSERT INTO queen_bench_orders (tag, partition, total) VALUES ($1, $2, $3)', [tag, partition, n]);
          await session.query('SELECT queen.produce_one($1, $2::jsonb, $3, $4)',
            [queue, JSON.stringify({ worker, n, ts: Date.now() }), partition, transactionId]);
          await session.query('COMMIT');
          latency.add(now() - t0);
          committed++;
        } catch (error) {
          failed++;
          lastError = describeError(error);
          await session.query('ROLLBACK').catch(() => undefined);
        }
      }
    } finally {
      session.release();
    }
  }));
  const elapsed = now() - started;
  const stored = await storedCounts(db, queue, tag);
  await db.query('DELETE FROM queen_bench_orders WHERE tag = $1', [tag]);
  const figures = {
    msgsPerSec: perSecond(committed, elapsed),
    p50Ms: round(latency.percentile(50)),
    p99Ms: round(latency.percentile(99)),
    maxMs: round(latency.max()),
    messages: committed,
    failedTransactions: failed,
    sessions: PUSH_CONCURRENCY,
    elapsedS: round(elapsed / 1000),
  };
  const checks = { 'every committed transaction left one message and one business row': stored.messages === committed && stored.rows === committed };
  const summary = `${name} (${mode}): ${fmt(figures.msgsPerSec)} msgs/s (transactions of insert + produce_one), ` +
    `p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms (${fmt(committed)} msgs in ${figures.elapsedS} s, ${PUSH_CONCURRENCY} sessions, ` +
    `${failed} failures${lastError !== null ? `; last: ${lastError}` : ''}; stored ${fmt(stored.messages)} msgs, ${fmt(stored.rows)} rows)`;
  return { scenario: name, mode, queue, figures, checks, summary };
}

/** The messages stored on the queue (the partitions' tails) and the business rows of the run. */
async function storedCounts(db: pg.Pool, queue: string, tag: string): Promise<{ messages: number; rows: number }> {
  const messages = await db.query<{ n: string }>(
    'SELECT coalesce(sum(p.tail), 0) AS n FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1', [queue]);
  const rows = await db.query<{ n: string }>('SELECT count(*) AS n FROM queen_bench_orders WHERE tag = $1', [tag]);
  return { messages: Number(messages.rows[0]?.n ?? 0), rows: Number(rows.rows[0]?.n ?? 0) };
}
