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
 *    schedule, so a broker that cannot keep the pace shows as pushMsgsPerSec below --rate. This closed loop
 *    holds the pace only while a push answers within 50 producers / rate (25 ms at 2 000 msgs/s).
 * 2b. Open loop: for another --duration seconds the same pace, every slot sent on time whatever the answers
 *    (paced-push.ts, open-loop.ts; at most 500 in flight): open* figures say whether the broker absorbs the
 *    rate (openPctOfPace) and how long sends queued behind the cap (openQueueP50Ms/P99Ms), apart from how
 *    fast each push answered (openPushP50Ms/P99Ms).
 * 3. Tail: the producers stop and the consumers drain until every accepted message was received and acked,
 *    or nothing new arrived for 15 s.
 *
 * Consumers: the shape a real user with many keyed partitions runs: 10 workers, each a loop of wildcard
 * long-poll pops on the queue (queue mode, or --group), batch 100, wait=true, partitions=--pop-partitions
 * (default 0, no cap: a pop may collect its 100 messages from up to 100 partitions), explicit /ack/batch
 * after every batch (at-least-once), queue leaseTime 10 s.
 *
 * pop-one-partition is the same measurement at 10 000 partitions with the pop's `partitions` parameter left
 * out (the broker's default: one partition a call), the shape of consumers that process one key at a time.
 *
 * Dwell is the first receipt time minus the send time the producer put in the payload (the moment before
 * its push request was sent), for measured messages only. Max dwell is the fairness number: a wildcard pop
 * that kept returning to the same partitions would leave others waiting far longer than partitions/rate.
 */
import { Checker } from '../checker.js';
import { profileSpan } from '../profile.js';
import { Samples, perSecond, round } from '../stats.js';
import {
  PartitionRotation, QUEUE_MODE_LABEL, countBudget, freshQueueName, now, partitionNames, runTag, sleep,
  wallClockMs, withQueue, type Scenario, type ScenarioContext, type ScenarioResult,
} from './common.js';
import { ConsumeProgress, runConsumers } from './consumer.js';
import { sendTime } from './e2e.js';
import { Pacer, runOpenLoopPush, runPacedProducer } from './paced-push.js';
import { producerTotals, runProducers } from './producer.js';
import { fmt } from './push.js';

const WARMUP_PRODUCERS = 10;
const WARMUP_BATCH = 500;
const PACED_PRODUCERS = 50;
const CONSUMERS = 10;
const WARMUP_STALL_MS = 60_000;
const TAIL_IDLE_MS = 15_000;
/** The dwell target printed in the summary (the figure is judged by the targets table). */
const MAX_DWELL_TARGET_MS = 5000;

/** The partitions scenario with --partitions-count partitions. */
export const partitionsScenario: Scenario = pacedPartitions('partitions');

/**
 * The paced many-partitions measurement under the scenario name `name`, over `count` partitions
 * (default: --partitions-count); the scale family runs it at 1 000, 10 000 and 100 000.
 */
export function pacedPartitions(name: string, fixedCount?: number): Scenario {
  return (ctx) => measurePartitions(ctx, name, fixedCount ?? ctx.partitionsCount, ctx.popPartitions);
}

/**
 * pop-one-partition: 10 000 sparse partitions, consumers popping with the broker's default partition cap
 * (one partition a call: the `partitions` parameter left out), the same paced load.
 */
export const popOnePartitionScenario: Scenario = (ctx) => measurePartitions(ctx, 'pop-one-partition', 10_000, undefined);

async function measurePartitions(ctx: ScenarioContext, name: string, count: number,
  popPartitions: number | undefined): Promise<ScenarioResult> {
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
    const openDwell = new Samples();
    let over1s = 0;
    let measureStartWall = Infinity;
    let openStartWall = Infinity;
    let producersDoneAt = NaN;
    const drainStart = now();
    progress.lastProgressAt = drainStart;
    let warmupStalled = false;
    const consumers = runConsumers(CONSUMERS, {
      client: ctx.client, queue, group: ctx.group, groupLabel: label, batch: 100, timeoutMs: 2000, autoAck: false,
      partitions: popPartitions, checker, progress,
      shouldStop: () => warmupStalled || (!Number.isNaN(producersDoneAt) &&
        (progress.remaining === 0 || now() - Math.max(producersDoneAt, progress.lastProgressAt) > TAIL_IDLE_MS)),
      onMessage: (message, receivedAt, first) => {
        const ts = sendTime(message.data);
        if (!first || ts === null || ts < measureStartWall) return;
        dwell.add(receivedAt - ts);
        if (ts >= openStartWall) openDwell.add(receivedAt - ts);
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
    const span = profileSpan(ctx.client, ctx.brokerCpuUs);
    const rotation = new PartitionRotation(names);
    await Promise.all(Array.from({ length: PACED_PRODUCERS }, (_, i) => runPacedProducer({
      client: ctx.client, queue, tag, producerId: `r${i}`, pacer, rotation, latency: pushLatency, lag, totals, checker,
    })));
    const produceMs = now() - started;
    const profile = span(totals.accepted);
    // 2b. The same pace open-loop: whether the broker absorbs the rate, apart from how fast each push answers.
    const openTotals = producerTotals();
    openStartWall = wallClockMs();
    const open = await runOpenLoopPush({
      baseUrl: ctx.client.baseUrl, queue, tag, rate: ctx.rate, durationMs: ctx.durationS * 1000, rotation,
      totals: openTotals, checker,
    });
    // 3. Tail.
    progress.expect(checker.pushedIds());
    producersDoneAt = now();
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
      openMsgsPerSec: round(open.achievedPerSec),
      openPctOfPace: round((open.achievedPerSec / ctx.rate) * 100, 1),
      openQueueP50Ms: round(open.queueDelay.percentile(50)),
      openQueueP99Ms: round(open.queueDelay.percentile(99)),
      openPushP50Ms: round(open.latency.percentile(50)),
      openPushP99Ms: round(open.latency.percentile(99)),
      openInFlightMax: open.maxInFlightSeen,
      openUnsent: open.unsent,
      openDwellMaxMs: round(openDwell.max()),
      openDwellP99Ms: round(openDwell.percentile(99)),
      pushed: totals.accepted + openTotals.accepted,
      consumed,
      backlogAtStop: Math.max(0, totals.accepted - consumedAtStop),
      tailS: round(Math.max(0, lastAt - producersDoneAt) / 1000),
      avgBatch: nonEmpty > 0 ? round((progress.deliveries - deliveriesBefore) / nonEmpty, 1) : 0,
      warmupPushS: round(warmupPushMs / 1000),
      warmupDrainS: round(warmupDrainMs / 1000),
      failedPushes: totals.failedRequests + totals.failedItems + openTotals.failedRequests + openTotals.failedItems,
      ackFailures: progress.ackFailures,
      popErrors: progress.popErrors,
      partitions: count,
      targetRate: ctx.rate,
      consumers: CONSUMERS,
      popPartitions: popPartitions ?? 1,
    };
    const lastError = progress.lastError ?? totals.lastError ?? openTotals.lastError;
    const met = Number.isFinite(figures.dwellMaxMs) && figures.dwellMaxMs < MAX_DWELL_TARGET_MS;
    const summary = `${name}: ${fmt(count)} partitions, paced ${fmt(ctx.rate)} msgs/s (single-item pushes): pushed ` +
      `${fmt(figures.pushMsgsPerSec)} msgs/s (${figures.pushPctOfPace} % of pace), consumed ${fmt(figures.consumeMsgsPerSec)} msgs/s by ${CONSUMERS} consumers ` +
      `(batch 100, partitions=${popPartitions ?? 'default (1)'}, avg batch ${figures.avgBatch}); dwell p50 ${figures.dwellP50Ms} ms, ` +
      `p99 ${figures.dwellP99Ms} ms, MAX ${figures.dwellMaxMs} ms (target < ${MAX_DWELL_TARGET_MS / 1000} s: ${met ? 'met' : 'MISSED'}; ` +
      `${fmt(over1s)} messages waited > 1 s); push p99 ${figures.pushP99Ms} ms, pace lag max ${figures.paceLagMaxMs} ms; ` +
      `open loop: ${fmt(figures.openMsgsPerSec)} msgs/s (${figures.openPctOfPace} % of pace), queueing delay p50 ` +
      `${figures.openQueueP50Ms} ms p99 ${figures.openQueueP99Ms} ms, push p50 ${figures.openPushP50Ms} ms p99 ` +
      `${figures.openPushP99Ms} ms, ${figures.openInFlightMax} in flight at most, dwell max ${figures.openDwellMaxMs} ms; ` +
      `warm-up ${figures.warmupPushS} s push + ${figures.warmupDrainS} s drain; checker ${verdict.ok ? 'OK' : 'FAILED'} ` +
      `(lost ${verdict.lost}, duplicates ${verdict.duplicates}, skipped ${verdict.skipped}, reordered ${verdict.reordered})` +
      `${lastError !== null ? `; last error: ${lastError}` : ''}`;
    return { scenario: name, queue, figures, verdict, summary, profile };
  });
}
