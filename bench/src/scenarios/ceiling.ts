/**
 * ceiling-push-b10 / ceiling-push-b100 / ceiling-drain: the broker against the storage ceiling, the same
 * SQL functions driven directly over `pg`, in one run.
 *
 * Design: each scenario measures the broker first (the HTTP shape of push-bN or drain), then the ceiling:
 * the SQL functions the broker calls, with the shapes the broker gives them at full load, over a direct
 * connection, no HTTP and no broker in between. It reports both and the broker's share of the ceiling.
 * - push: 50 HTTP producers of N-item batches against `queen.push_messages` from 4 sessions (the
 *   coalescer's PUSH_MAX_IN_FLIGHT), each call merging 13 requests of N items (50 / 4, one partition per
 *   request rotating over 100 partitions), as the coalescer merges them when every slot is busy;
 * - drain: 10 HTTP consumers (batch 100, autoAck) against `queen.pop_messages` from 10 sessions, one call
 *   per pop (scope queue, batch 100, no partition cap, autoAck), rotating after the last partition claimed
 *   as the broker does. Both halves drain --messages messages bulk-filled into 100 partitions
 *   (database.ts), so both read the same segment shapes.
 * Skipped without a known database. The scenario's CPU split covers both halves; each half's own split is
 * reported as CPU per message (µs of one core per message, for PostgreSQL, the broker and this load
 * generator) with how busy the whole machine was (`...BusyPct`, 200 = both cores of a 2-core box): on a box
 * whose cores are all busy in both halves, the broker's share of the ceiling is the ratio of the CPU the
 * two halves spend per message, and these figures say where the difference goes.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { Checker } from '../checker.js';
import type { ResourceFigures } from '../resources.js';
import { Samples, perSecond, round } from '../stats.js';
import {
  PartitionRotation, QUEUE_MODE_LABEL, freshQueueName, now, partitionNames, runTag, timeBudget, wallClockMs,
  type Scenario, type ScenarioContext, type ScenarioResult,
} from './common.js';
import { ConsumeProgress, runConsumers } from './consumer.js';
import { bulkFill, createPartitions, dropQueue, openDatabase } from './database.js';
import { producerTotals, runProducers } from './producer.js';
import { PUSH_CONCURRENCY, fmt } from './push.js';

/** The broker's concurrent push transactions (broker.ts PUSH_MAX_IN_FLIGHT). */
const PUSH_SESSIONS = 4;
const REQUESTS_PER_CALL = Math.ceil(PUSH_CONCURRENCY / PUSH_SESSIONS);
const DRAIN_CONSUMERS = 10;
const PARTITIONS = 100;

const PUSH_SQL = `SELECT item, status FROM queen.push_messages($1::text[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[])`;
const POP_SQL = `SELECT partition_id, message_id FROM queen.pop_messages($1, $2, $3, $4, $5, $6, $7, $8, $9::uuid, $10, $11, $12,
  $13::timestamptz, $14, $15::uuid, $16)`;

/** One half's CPU per message (µs of one core per message) and how busy the machine was, as figures named `<prefix>...`. */
function phaseCost(prefix: 'broker' | 'ceiling', figures: ResourceFigures, msgsPerSec: number): Record<string, number> {
  const perMessage = (pct: number): number => round(((pct / 100) * 1e6) / msgsPerSec, 1);
  return {
    [`${prefix}PhasePgUsPerMsg`]: perMessage(figures.pgCpuPct),
    [`${prefix}PhaseBrokerUsPerMsg`]: perMessage(figures.brokerCpuPct),
    [`${prefix}PhaseBenchUsPerMsg`]: perMessage(figures.benchCpuPct),
    [`${prefix}PhaseBusyPct`]: round(figures.brokerCpuPct + figures.pgCpuPct + figures.benchCpuPct + figures.otherCpuPct, 1),
  };
}

function skipped(name: string): ScenarioResult {
  return { scenario: name, queue: '', figures: {}, skipped: 'the database is unknown (--url without PG_HOST/DATABASE_URL)', summary: `${name}: skipped` };
}

/** push_messages from PUSH_SESSIONS sessions for `durationS`, merged batches of REQUESTS_PER_CALL x `batch` items. */
async function directPush(db: pg.Pool, queue: string, batch: number, durationS: number): Promise<{ msgsPerSec: number; callP99Ms: number }> {
  const rotation = new PartitionRotation(partitionNames(PARTITIONS));
  const tag = runTag();
  const latency = new Samples();
  let seq = 0;
  let accepted = 0;
  const started = now();
  const end = started + durationS * 1000;
  await Promise.all(Array.from({ length: PUSH_SESSIONS }, async () => {
    while (now() < end) {
      const partitions: string[] = [];
      const ts = Math.round(wallClockMs() * 1000) / 1000;
      const ids: string[] = [];
      const payloads: string[] = [];
      for (let r = 0; r < REQUESTS_PER_CALL; r++) {
        const partition = rotation.take();
        for (let i = 0; i < batch; i++) {
          partitions.push(partition);
          ids.push(`${tag}.${seq}`);
          payloads.push(JSON.stringify({ seq: seq++, ts }));
        }
      }
      const count = partitions.length;
      const t0 = now();
      const result = await db.query<{ status: string }>(PUSH_SQL, [
        Array.from({ length: count }, () => queue), partitions, Array.from({ length: count }, () => randomUUID()), ids,
        Array.from({ length: count }, () => null), payloads, Array.from({ length: count }, () => null),
      ]);
      latency.add(now() - t0);
      accepted += result.rows.filter((row) => row.status === 'queued').length;
    }
  }));
  return { msgsPerSec: perSecond(accepted, now() - started), callP99Ms: round(latency.percentile(99)) };
}

/** pop_messages (autoAck, batch 100) from DRAIN_CONSUMERS sessions until `total` messages came back. */
async function directDrain(db: pg.Pool, queue: string, total: number): Promise<{ msgsPerSec: number; avgBatch: number }> {
  let received = 0;
  let calls = 0;
  let rotateAfter: string | null = null;
  let lastProgress = now();
  let lastAt = now();
  const started = now();
  let first = true;
  await Promise.all(Array.from({ length: DRAIN_CONSUMERS }, async () => {
    while (received < total && now() - lastProgress < 30_000) {
      const result = await db.query<{ partition_id: string | null; message_id: string | null }>(POP_SQL, [
        'queue', queue, null, null, null, QUEUE_MODE_LABEL, 100, 0, randomUUID(), 0, true, null, null, first, rotateAfter, 0,
      ]);
      first = false;
      const rows = result.rows.filter((row) => row.message_id !== null);
      calls++;
      if (rows.length > 0) {
        received += rows.length;
        rotateAfter = rows[rows.length - 1]?.partition_id ?? rotateAfter;
        lastProgress = lastAt = now();
      }
    }
  }));
  return { msgsPerSec: perSecond(received, lastAt - started), avgBatch: calls > 0 ? round(received / calls, 1) : 0 };
}

/** ceiling-push-bN: the broker's push-bN against push_messages driven directly. */
export function ceilingPushScenario(batch: number): Scenario {
  const name = `ceiling-push-b${batch}`;
  return async (ctx: ScenarioContext): Promise<ScenarioResult> => {
    if (ctx.database === undefined) return skipped(name);
    const db = openDatabase(ctx.database, PUSH_SESSIONS);
    const brokerQueue = freshQueueName(name);
    const directQueue = freshQueueName(`${name}-sql`);
    try {
      await ctx.client.configure(brokerQueue, {});
      await ctx.client.configure(directQueue, {});
      const totals = producerTotals();
      const brokerPhase = ctx.phaseResources();
      const started = now();
      await runProducers(PUSH_CONCURRENCY, 'w', {
        client: ctx.client, queue: brokerQueue, tag: runTag(), batchSize: batch, budget: timeBudget(started + ctx.durationS * 1000),
        rotation: new PartitionRotation(partitionNames(PARTITIONS)), spread: 'request', latency: new Samples(), totals,
      });
      const brokerMsgsPerSec = perSecond(totals.accepted, now() - started);
      const brokerCost = phaseCost('broker', brokerPhase.stop(), brokerMsgsPerSec);
      ctx.log(`${name}: broker ${fmt(brokerMsgsPerSec)} msgs/s; now push_messages directly for ${ctx.durationS} s`);
      const ceilingPhase = ctx.phaseResources();
      const direct = await directPush(db, directQueue, batch, ctx.durationS);
      const ceilingCost = phaseCost('ceiling', ceilingPhase.stop(), direct.msgsPerSec);
      const figures = {
        brokerMsgsPerSec,
        ceilingMsgsPerSec: direct.msgsPerSec,
        brokerPctOfCeiling: round((brokerMsgsPerSec / direct.msgsPerSec) * 100, 1),
        ceilingCallP99Ms: direct.callP99Ms,
        ceilingItemsPerCall: REQUESTS_PER_CALL * batch,
        ceilingSessions: PUSH_SESSIONS,
        failedPushes: totals.failedRequests + totals.failedItems,
        ...brokerCost,
        ...ceilingCost,
      };
      const summary = `${name}: broker ${fmt(brokerMsgsPerSec)} msgs/s, ceiling (push_messages over pg, ${PUSH_SESSIONS} sessions x ` +
        `${REQUESTS_PER_CALL * batch} items) ${fmt(direct.msgsPerSec)} msgs/s: broker at ${figures.brokerPctOfCeiling} % of the ceiling`;
      return { scenario: name, queue: brokerQueue, figures, summary };
    } finally {
      for (const queue of [brokerQueue, directQueue]) await dropQueue(db, queue).catch(() => undefined);
      await db.end();
    }
  };
}

/** ceiling-drain: the broker's drain against pop_messages driven directly, over the same bulk-filled shape. */
export const ceilingDrainScenario: Scenario = async (ctx) => {
  const name = 'ceiling-drain';
  if (ctx.database === undefined) return skipped(name);
  const db = openDatabase(ctx.database, DRAIN_CONSUMERS);
  const brokerQueue = freshQueueName(name);
  const directQueue = freshQueueName(`${name}-sql`);
  try {
    for (const queue of [brokerQueue, directQueue]) {
      await ctx.client.configure(queue, {});
      await bulkFill(db, await createPartitions(db, queue, PARTITIONS), ctx.messages, runTag());
    }
    const progress = new ConsumeProgress();
    const brokerPhase = ctx.phaseResources();
    const started = now();
    await runConsumers(DRAIN_CONSUMERS, {
      client: ctx.client, queue: brokerQueue, group: undefined, groupLabel: QUEUE_MODE_LABEL, batch: 100, timeoutMs: 2000,
      autoAck: true, partitions: ctx.popPartitions, checker: new Checker(), progress,
      shouldStop: () => progress.deliveries >= ctx.messages || now() - progress.lastProgressAt > 30_000,
    });
    const brokerMsgsPerSec = perSecond(progress.deliveries, (Number.isNaN(progress.lastCompleteAt) ? now() : progress.lastCompleteAt) - started);
    const brokerCost = phaseCost('broker', brokerPhase.stop(), brokerMsgsPerSec);
    ctx.log(`${name}: broker ${fmt(brokerMsgsPerSec)} msgs/s; now pop_messages directly`);
    const ceilingPhase = ctx.phaseResources();
    const direct = await directDrain(db, directQueue, ctx.messages);
    const ceilingCost = phaseCost('ceiling', ceilingPhase.stop(), direct.msgsPerSec);
    const figures = {
      brokerMsgsPerSec,
      ceilingMsgsPerSec: direct.msgsPerSec,
      brokerPctOfCeiling: round((brokerMsgsPerSec / direct.msgsPerSec) * 100, 1),
      ceilingAvgBatch: direct.avgBatch,
      messages: ctx.messages,
      brokerReceived: progress.deliveries,
      ...brokerCost,
      ...ceilingCost,
    };
    const summary = `${name}: broker ${fmt(brokerMsgsPerSec)} msgs/s, ceiling (pop_messages over pg, ${DRAIN_CONSUMERS} sessions) ` +
      `${fmt(direct.msgsPerSec)} msgs/s: broker at ${figures.brokerPctOfCeiling} % of the ceiling`;
    return { scenario: name, queue: brokerQueue, figures, checks: { brokerDrainedAll: progress.deliveries >= ctx.messages }, summary };
  } finally {
    for (const queue of [brokerQueue, directQueue]) await dropQueue(db, queue).catch(() => undefined);
    await db.end();
  }
};
