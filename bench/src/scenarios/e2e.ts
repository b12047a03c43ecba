/**
 * e2e: producers and consumers at once, end-to-end latency and no-loss verdict.
 *
 * Design: for --duration seconds 20 producers push batches of 10 over 100 partitions while 10 wildcard
 * long-poll consumers (batch 100, wait=true, no autoAck) pop and acknowledge every batch with /ack/batch
 * (each message's own partitionId and leaseId). Then the producers stop and the consumers drain until every
 * accepted message was received and acked, or nothing new arrived for 15 s. End-to-end latency is receipt
 * time minus the send time carried in the payload, for each message's first receipt. The queue's leaseTime
 * is 10 s so a message whose ack was lost comes back within the tail.
 */
import { Checker } from '../checker.js';
import { Samples, perSecond, round } from '../stats.js';
import {
  PartitionRotation, QUEUE_MODE_LABEL, freshQueueName, now, partitionNames, runTag, timeBudget, withQueue,
  type ScenarioContext, type ScenarioResult,
} from './common.js';
import { ConsumeProgress, runConsumers } from './consumer.js';
import { producerTotals, runProducers } from './producer.js';
import { fmt } from './push.js';

const PRODUCERS = 20;
const CONSUMERS = 10;
const TAIL_IDLE_MS = 15_000;

/** The send time (wall-clock ms) a producer put in a message's payload, or null. */
export function sendTime(data: unknown): number | null {
  if (typeof data !== 'object' || data === null || !('ts' in data)) return null;
  const ts: unknown = data.ts;
  return typeof ts === 'number' ? ts : null;
}

/** The e2e scenario. */
export async function e2eScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const queue = freshQueueName('e2e');
  return withQueue(ctx, queue, { leaseTime: 10 }, async () => {
    const checker = new Checker();
    const totals = producerTotals();
    const pushLatency = new Samples();
    const e2eLatency = new Samples();
    const label = ctx.group ?? QUEUE_MODE_LABEL;
    const progress = new ConsumeProgress();
    let producersDoneAt = NaN;

    const started = now();
    const consumers = runConsumers(CONSUMERS, {
      client: ctx.client, queue, group: ctx.group, groupLabel: label, batch: 100, timeoutMs: 2000, autoAck: false,
      partitions: ctx.popPartitions, checker, progress,
      shouldStop: () => !Number.isNaN(producersDoneAt) &&
        (progress.remaining === 0 || now() - Math.max(producersDoneAt, progress.lastProgressAt) > TAIL_IDLE_MS),
      onMessage: (message, receivedAt, first) => {
        const ts = sendTime(message.data);
        if (first && ts !== null) e2eLatency.add(receivedAt - ts);
      },
    });
    let producerError: unknown = null;
    try {
      await runProducers(PRODUCERS, 'e', {
        client: ctx.client, queue, tag: runTag(), batchSize: 10, budget: timeBudget(started + ctx.durationS * 1000),
        rotation: new PartitionRotation(partitionNames()), spread: ctx.spread, latency: pushLatency, totals, checker,
      });
    } catch (error) {
      producerError = error;
    }
    progress.expect(checker.pushedIds());
    producersDoneAt = now();
    const produceMs = producersDoneAt - started;
    const consumedAtStop = progress.completed.size;
    await consumers;
    if (producerError !== null) throw producerError;

    const lastAt = Number.isNaN(progress.lastCompleteAt) ? now() : progress.lastCompleteAt;
    const verdict = checker.verdict([label]);
    const figures = {
      pushMsgsPerSec: perSecond(totals.accepted, produceMs),
      consumeMsgsPerSec: perSecond(progress.completed.size, lastAt - started),
      e2eP50Ms: round(e2eLatency.percentile(50)),
      e2eP99Ms: round(e2eLatency.percentile(99)),
      e2eMaxMs: round(e2eLatency.max()),
      pushP50Ms: round(pushLatency.percentile(50)),
      pushP99Ms: round(pushLatency.percentile(99)),
      pushed: totals.accepted,
      consumed: progress.completed.size,
      backlogAtStop: Math.max(0, totals.accepted - consumedAtStop),
      tailS: round(Math.max(0, lastAt - producersDoneAt) / 1000),
      failedPushes: totals.failedRequests + totals.failedItems,
      ackFailures: progress.ackFailures,
      popErrors: progress.popErrors,
    };
    const lastError = progress.lastError ?? totals.lastError;
    const summary = `e2e: push ${fmt(figures.pushMsgsPerSec)} msgs/s, consume ${fmt(figures.consumeMsgsPerSec)} msgs/s, ` +
      `latency p50 ${figures.e2eP50Ms} ms, p99 ${figures.e2eP99Ms} ms (${fmt(figures.pushed)} pushed, backlog at stop ` +
      `${fmt(figures.backlogAtStop)}, tail ${figures.tailS} s); checker ${verdict.ok ? 'OK' : 'FAILED'} (lost ${verdict.lost}, ` +
      `duplicates ${verdict.duplicates}, skipped ${verdict.skipped}, reordered ${verdict.reordered})` +
      `${lastError !== null ? `; last error: ${lastError}` : ''}`;
    return { scenario: 'e2e', queue, figures, verdict, summary };
  });
}
