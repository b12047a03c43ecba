/**
 * partitions: fairness of wildcard pops over many partitions: the longest any message waits.
 *
 * Design: one queue with --partitions-count (default 10 000) partitions p0..pN-1.
 * 1. Warm-up: 10 producers push one message to every partition (batches of 500, one partition per item)
 *    so every partition exists, then the consumers below drain that warm-up; both are timed and reported
 *    (warmupPushS, warmupDrainS) but not measured otherwise.
 * 2. Measurement: for --duration seconds, 50 producers push single-item batches (the push-b1 shape) paced
 *    to --rate msgs/s in total (default 2 000): send slot i is due at start + i/rate, the next free
 *    producer takes it, and the partitions go round-robin, so each partition gets one message every
 *    partitions/rate seconds (5 s by default). A producer that is late sends at once; paceLagMaxMs says how
 *    far behind the schedule the slowest send was. Sending stops at the deadline even when behind
 *    schedule, so a broker that cannot keep the pace shows as pushMsgsPerSec below --rate.
 * 3. Tail: the producers stop and the consumers drain until every accepted message was received and acked,
 *    or nothing new arrived for 15 s.
 *
 * Consumers: the shape a real user with many keyed partitions runs: 10 workers, each a loop of wildcard
 * long-poll pops on the queue (queue mode, or --group), batch 100, wait=true, partitions=--pop-partitions
 * (default 0, no cap: a pop may collect its 100 messages from up to 100 partitions), explicit /ack/batch
 * after every batch (at-least-once), queue leaseTime 10 s.
 *
 * Dwell is the first receipt time minus the send time the producer put in the payload (the moment before
 * its push request was sent), for measured messages only. Max dwell is the fairness number: a wildcard pop
 * that kept returning to the same partitions would leave others waiting far longer than partitions/rate.
 */
import { Checker } from '../checker.js';
import type { QueenClient } from '../http.js';
import { Samples, perSecond, round } from '../stats.js';
import {
  PartitionRotation, QUEUE_MODE_LABEL, countBudget, describeError, freshQueueName, now, partitionNames, runTag, sleep,
  wallClockMs, withQueue, type Scenario, type ScenarioContext, type ScenarioResult,
} from './common.js';
import { ConsumeProgress, runConsumers } from './consumer.js';
import { sendTime } from './e2e.js';
import { producerTotals, runProducers, type BenchPayload, type ProducerTotals } from './producer.js';
import { fmt } from './push.js';

const WARMUP_PRODUCERS = 10;
const WARMUP_BATCH = 500;
const PACED_PRODUCERS = 50;
const CONSUMERS = 10;
const WARMUP_STALL_MS = 60_000;
const TAIL_IDLE_MS = 15_000;
/** The dwell target printed in the summary (the figure is judged by the targets table). */
const MAX_DWELL_TARGET_MS = 5000;

/** Hands out send times at a fixed pace until a deadline (monotonic ms). */
export class Pacer {
  private index = 0;

  constructor(private readonly start: number, private readonly end: number, private readonly perSecond: number) {}

  /** The due time of the next send, or null when the schedule (or the time) is over: late slots are dropped. */
  next(): number | null {
    const due = this.start + (this.index * 1000) / this.perSecond;
    if (due >= this.end || now() >= this.end) return null;
    this.index++;
    return due;
  }
}

interface PacedOptions {
  client: QueenClient;
  queue: string;
  tag: string;
  producerId: string;
  pacer: Pacer;
  rotation: PartitionRotation;
  latency: Samples;
  lag: Samples;
  totals: ProducerTotals;
  checker: Checker;
}

/** One paced single-item producer: waits for its next slot, pushes, records. Failures are counted, not retried. */
async function runPacedProducer(options: PacedOptions): Promise<void> {
  const { client, queue, tag, producerId, pacer, rotation, latency, lag, totals, checker } = options;
  let seq = 0;
  for (let due = pacer.next(); due !== null; due = pacer.next()) {
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    lag.add(Math.max(0, now() - due));
    const partition = rotation.take();
    const itemSeq = seq++;
    const transactionId = `${tag}.${producerId}.${itemSeq}`;
    const payload: BenchPayload = { seq: itemSeq, ts: Math.round(wallClockMs() * 1000) / 1000 };
    const started = now();
    try {
      const response = await client.push([{ queue, partition, payload, transactionId }]);
      if (response.statusCode < 200 || response.statusCode >= 300) {
        totals.failedRequests++;
        totals.lastError = `HTTP ${response.statusCode}`;
        continue;
      }
      latency.add(now() - started);
      totals.requests++;
      const status = response.results[0]?.status;
      if (status === 'queued' || status === 'buffered') {
        totals.accepted++;
        checker.recordPush({ transactionId, partition, producer: producerId, seq: itemSeq });
      } else {
        totals.failedItems++;
        totals.lastError = `item ${status ?? 'missing'}${response.results[0]?.error ? `: ${response.results[0].error}` : ''}`;
      }
    } catch (error) {
      totals.failedRequests++;
      totals.lastError = describeError(error);
    }
  }
}

/** The partitions scenario with --partitions-count partitions. */
export const partitionsScenario: Scenario = pacedPartitions('partitions');

/**
 * The paced many-partitions measurement under the scenario name `name`, over `count` partitions
 * (default: --partitions-count); the scale family runs it at 1 000, 10 000 and 100 000.
 */
export function pacedPartitions(name: string, fixedCount?: number): Scenario {
  return (ctx) => measurePartitions(ctx, name, fixedCount ?? ctx.partitionsCount);
}

async function measurePartitions(ctx: ScenarioContext, name: string, count: number): Promise<ScenarioResult> {
  const queue = freshQueueName(name);
  const names = partitionNames(count);
  return withQueue(ctx, queue, { leaseTime: 10 }, async () => {
    const checker = new Checker();
    const tag = runTag();

    // 1. Warm-up: one message per partition, then drain it.
    const warmupTotals = producerTotals();
    const warmupStart = now();
    await runProducers(WARMUP_PRODUCERS, 'w', {
      client: ctx.client, queue, tag, batchSize: WARMUP_BATCH, budget: countBudget(count),
      rotation: new PartitionRotation(names), spread: 'item', latency: new Samples(), totals: warmupTotals, checker,
    });
    const warmupPushMs = now() - warmupStart;
    ctx.log(`${name}: created ${fmt(count)} partitions (${fmt(warmupTotals.accepted)} warm-up messages) in ` +
      `${(warmupPushMs / 1000).toFixed(1)} s; draining them`);

    const label = ctx.group ?? QUEUE_MODE_LABEL;
    const progress = new ConsumeProgress();
    progress.expect(checker.pushedIds());
    const dwell = new Samples();
    let over1s = 0;
    let measureStartWall = Infinity;
    let producersDoneAt = NaN;
    const drainStart = now();
    progress.lastProgressAt = drainStart;
    let warmupStalled = false;
    const consumers = runConsumers(CONSUMERS, {
      client: ctx.client, queue, group: ctx.group, groupLabel: label, batch: 100, timeoutMs: 2000, autoAck: false,
      partitions: ctx.popPartitions, checker, progress,
      shouldStop: () => warmupStalled || (!Number.isNaN(producersDoneAt) &&
        (progress.remaining === 0 || now() - Math.max(producersDoneAt, progress.lastProgressAt) > TAIL_IDLE_MS)),
      onMessage: (message, receivedAt, first) => {
        const ts = sendTime(message.data);
        if (!first || ts === null || ts < measureStartWall) return;
        dwell.add(receivedAt - ts);
        if (receivedAt - ts > 1000) over1s++;
      },
    });
    while (progress.remaining > 0 && now() - progress.lastProgressAt <= WARMUP_STALL_MS) await sleep(20);
    const warmupDrainMs = (Number.isNaN(progress.lastCompleteAt) ? now() : progress.lastCompleteAt) - drainStart;
    if (progress.remaining > 0) {
      warmupStalled = true;
      await consumers;
      throw new Error(`warm-up drain stalled: ${progress.remaining} of ${checker.pushedCount} warm-up messages not ` +
        `consumed after ${WARMUP_STALL_MS / 1000} s without progress (last error: ${progress.lastError ?? 'none'})`);
    }
    ctx.log(`${name}: warm-up drained in ${(warmupDrainMs / 1000).toFixed(1)} s; pushing ${fmt(ctx.rate)} msgs/s for ${ctx.durationS} s`);

    // 2. Measurement: paced single-item pushes, round-robin over the partitions.
    const totals = producerTotals();
    const pushLatency = new Samples();
    const lag = new Samples();
    const completedBefore = progress.completed.size;
    const popsBefore = progress.pops - progress.emptyPops;
    const deliveriesBefore = progress.deliveries;
    measureStartWall = wallClockMs();
    const started = now();
    const pacer = new Pacer(started, started + ctx.durationS * 1000, ctx.rate);
    const rotation = new PartitionRotation(names);
    await Promise.all(Array.from({ length: PACED_PRODUCERS }, (_, i) => runPacedProducer({
      client: ctx.client, queue, tag, producerId: `r${i}`, pacer, rotation, latency: pushLatency, lag, totals, checker,
    })));
    // 3. Tail.
    progress.expect(checker.pushedIds());
    producersDoneAt = now();
    const produceMs = producersDoneAt - started;
    const consumedAtStop = progress.completed.size - completedBefore;
    await consumers;

    const lastAt = Number.isNaN(progress.lastCompleteAt) ? now() : progress.lastCompleteAt;
    const consumed = progress.completed.size - completedBefore;
    const nonEmpty = progress.pops - progress.emptyPops - popsBefore;
    const verdict = checker.verdict([label]);
    const figures = {
      pushMsgsPerSec: perSecond(totals.accepted, produceMs),
      pushPctOfPace: round((perSecond(totals.accepted, produceMs) / ctx.rate) * 100, 1),
      consumeMsgsPerSec: perSecond(consumed, lastAt - started),
      dwellMaxMs: round(dwell.max()),
      dwellP99Ms: round(dwell.percentile(99)),
      dwellP50Ms: round(dwell.percentile(50)),
      dwellMeanMs: round(dwell.mean()),
      dwellOver1s: over1s,
      pushP50Ms: round(pushLatency.percentile(50)),
      pushP99Ms: round(pushLatency.percentile(99)),
      paceLagMaxMs: round(lag.max()),
      pushed: totals.accepted,
      consumed,
      backlogAtStop: Math.max(0, totals.accepted - consumedAtStop),
      tailS: round(Math.max(0, lastAt - producersDoneAt) / 1000),
      avgBatch: nonEmpty > 0 ? round((progress.deliveries - deliveriesBefore) / nonEmpty, 1) : 0,
      warmupPushS: round(warmupPushMs / 1000),
      warmupDrainS: round(warmupDrainMs / 1000),
      failedPushes: totals.failedRequests + totals.failedItems,
      ackFailures: progress.ackFailures,
      popErrors: progress.popErrors,
      partitions: count,
      targetRate: ctx.rate,
      consumers: CONSUMERS,
      popPartitions: ctx.popPartitions,
    };
    const lastError = progress.lastError ?? totals.lastError;
    const met = Number.isFinite(figures.dwellMaxMs) && figures.dwellMaxMs < MAX_DWELL_TARGET_MS;
    const summary = `${name}: ${fmt(count)} partitions, paced ${fmt(ctx.rate)} msgs/s (single-item pushes): pushed ` +
      `${fmt(figures.pushMsgsPerSec)} msgs/s (${figures.pushPctOfPace} % of pace), consumed ${fmt(figures.consumeMsgsPerSec)} msgs/s by ${CONSUMERS} consumers ` +
      `(batch 100, partitions=${ctx.popPartitions}, avg batch ${figures.avgBatch}); dwell p50 ${figures.dwellP50Ms} ms, ` +
      `p99 ${figures.dwellP99Ms} ms, MAX ${figures.dwellMaxMs} ms (target < ${MAX_DWELL_TARGET_MS / 1000} s: ${met ? 'met' : 'MISSED'}; ` +
      `${fmt(over1s)} messages waited > 1 s); push p99 ${figures.pushP99Ms} ms, pace lag max ${figures.paceLagMaxMs} ms; ` +
      `warm-up ${figures.warmupPushS} s push + ${figures.warmupDrainS} s drain; checker ${verdict.ok ? 'OK' : 'FAILED'} ` +
      `(lost ${verdict.lost}, duplicates ${verdict.duplicates}, skipped ${verdict.skipped}, reordered ${verdict.reordered})` +
      `${lastError !== null ? `; last error: ${lastError}` : ''}`;
    return { scenario: name, queue, figures, verdict, summary };
  });
}
