/**
 * scale-backlog-*: push and pop throughput with a large retained backlog already in the queue.
 *
 * Design: a fresh queue with 100 partitions is bulk-filled with N retained messages straight in the
 * database (database.ts: the tables as push_messages leaves them, no HTTP), then vacuumed and checkpointed
 * (settleAfterFill); the fill time, which includes that, is reported, it is not part of the measurement.
 * Then, for --duration seconds each: (1) 50 producers push 10-item batches over the same 100 partitions (the
 * push-b10 shape), nothing consuming; (2) 10 wildcard consumers pop batches of 100 with autoAck from the head
 * of that backlog (the drain shape); a small backlog may run out first, then the pop rate is taken up to the
 * last delivery.
 * A flat curve over N is the goal: neither path may read more than the head of a partition or one key.
 * The queue is dropped over the direct connection afterwards (a 10 M-message delete outlasts the broker's
 * statement timeout) and the tables vacuumed (dropQueue). Skipped when the tool does not know the database
 * (--url without PG_HOST/DATABASE_URL).
 */
import type pg from 'pg';
import { Checker } from '../checker.js';
import { Samples, perSecond, round } from '../stats.js';
import {
  PartitionRotation, QUEUE_MODE_LABEL, freshQueueName, now, partitionNames, runTag, timeBudget,
  type Scenario, type ScenarioContext, type ScenarioResult,
} from './common.js';
import { ConsumeProgress, runConsumers } from './consumer.js';
import { bulkFill, createPartitions, dropQueue, openDatabase, vacuumMessageTables } from './database.js';
import { producerTotals, runProducers } from './producer.js';
import { PUSH_CONCURRENCY, fmt } from './push.js';

const PARTITIONS = 100;
const CONSUMERS = 10;

/**
 * Leaves the database as a backlog that grew over time would: vacuumed, analysed and checkpointed. A bulk
 * fill writes in seconds what pushes write over hours, and without this the timed part pays for it instead
 * (autovacuum of the tables that just grew, the checkpoint of gigabytes of fresh pages): the 10 M point lost
 * a fifth of its throughput to that, not to the paths under test. CHECKPOINT needs superuser or
 * pg_checkpoint; without it the run goes on, and says so.
 */
async function settleAfterFill(db: pg.Pool, log: (line: string) => void): Promise<void> {
  await vacuumMessageTables(db);
  await db.query('CHECKPOINT').catch((error: unknown) => log(`CHECKPOINT not run (${String(error)}): the timed part may pay for the fill's writes`));
}

/** The backlog measurement with `retained` messages pre-filled, under the scenario name `name`. */
export function backlogScenario(name: string, retained: number): Scenario {
  return async (ctx: ScenarioContext): Promise<ScenarioResult> => {
    const queue = freshQueueName(name);
    if (ctx.database === undefined) {
      return { scenario: name, queue, figures: {}, skipped: 'the database is unknown (--url without PG_HOST/DATABASE_URL)', summary: `${name}: skipped` };
    }
    const db = openDatabase(ctx.database, 3);
    try {
      await ctx.client.configure(queue, {});
      const ids = await createPartitions(db, queue, PARTITIONS);
      const fillStart = now();
      await bulkFill(db, ids, retained, runTag());
      await settleAfterFill(db, ctx.log);
      const fillMs = now() - fillStart;
      ctx.log(`${name}: filled ${fmt(retained)} messages in ${(fillMs / 1000).toFixed(1)} s; pushing for ${ctx.durationS} s`);

      const pushLatency = new Samples();
      const totals = producerTotals();
      const pushStart = now();
      await runProducers(PUSH_CONCURRENCY, 'w', {
        client: ctx.client, queue, tag: runTag(), batchSize: 10, budget: timeBudget(pushStart + ctx.durationS * 1000),
        rotation: new PartitionRotation(partitionNames(PARTITIONS)), spread: 'request', latency: pushLatency, totals,
      });
      const pushMs = now() - pushStart;

      ctx.log(`${name}: popping for ${ctx.durationS} s`);
      const progress = new ConsumeProgress();
      const popStart = now();
      const popEnd = popStart + ctx.durationS * 1000;
      await runConsumers(CONSUMERS, {
        client: ctx.client, queue, group: undefined, groupLabel: QUEUE_MODE_LABEL, batch: 100, timeoutMs: 2000, autoAck: true,
        partitions: ctx.popPartitions, checker: new Checker(), progress,
        // An empty pop means the backlog ran out (the smallest one can): the rate is then taken up to the last delivery.
        shouldStop: () => now() >= popEnd || progress.emptyPops > 0,
      });
      const popMs = (progress.emptyPops > 0 && !Number.isNaN(progress.lastCompleteAt) ? progress.lastCompleteAt : now()) - popStart;
      const nonEmpty = progress.pops - progress.emptyPops;
      const figures = {
        retained,
        fillS: round(fillMs / 1000),
        fillMsgsPerSec: perSecond(retained, fillMs),
        pushMsgsPerSec: perSecond(totals.accepted, pushMs),
        pushP50Ms: round(pushLatency.percentile(50)),
        pushP99Ms: round(pushLatency.percentile(99)),
        popMsgsPerSec: perSecond(progress.deliveries, popMs),
        popAvgBatch: nonEmpty > 0 ? round(progress.deliveries / nonEmpty, 1) : 0,
        failedPushes: totals.failedRequests + totals.failedItems,
        popErrors: progress.popErrors,
      };
      const lastError = progress.lastError ?? totals.lastError;
      const summary = `${name}: ${fmt(retained)} retained (filled in ${figures.fillS} s): push-b10 ${fmt(figures.pushMsgsPerSec)} msgs/s ` +
        `(p99 ${figures.pushP99Ms} ms), pop ${fmt(figures.popMsgsPerSec)} msgs/s (avg batch ${figures.popAvgBatch})` +
        `${lastError !== null ? `; last error: ${lastError}` : ''}`;
      return { scenario: name, queue, figures, summary };
    } finally {
      await dropQueue(db, queue).catch((error: unknown) => ctx.log(`${name}: drop ${queue}: ${String(error)}`));
      await db.end();
    }
  };
}
