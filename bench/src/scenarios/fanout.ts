/**
 * fanout: the e2e shape with five consumer groups: every group must receive every message.
 *
 * Design: for --duration seconds 20 producers push batches of 10 over 100 partitions (as in e2e) while
 * five consumer groups (fanout-g1..fanout-g5, --group is ignored) consume, each with 3 wildcard long-poll
 * consumers (batch 100, wait=true, partitions=--pop-partitions, no autoAck) that acknowledge every batch
 * with /ack/batch under their group. Then the producers stop and each group drains until every accepted
 * message was received and acked by it, or nothing new arrived for 15 s. Each group starts at the oldest
 * message (subscriptionMode all, the broker default), so a group's first pops may find a backlog.
 *
 * Figures: deliveries/s per group (its completed messages over the time from the start to its last
 * completion) and in total (all groups' completions over the time to the last one), end-to-end latency
 * (first receipt per group minus the send time in the payload) p50/p99 over all groups and p99 per group,
 * and the checker's counts per group (gN*). The verdict covers all groups (counts summed); the checks
 * `gNOk` tell which group, if any, failed.
 */
import { Checker } from '../checker.js';
import { Samples, perSecond, round } from '../stats.js';
import {
  PartitionRotation, freshQueueName, now, partitionNames, runTag, timeBudget, withQueue,
  type ScenarioContext, type ScenarioResult,
} from './common.js';
import { ConsumeProgress, runConsumers } from './consumer.js';
import { sendTime } from './e2e.js';
import { producerTotals, runProducers } from './producer.js';
import { fmt } from './push.js';

const PRODUCERS = 20;
const GROUPS = 5;
const CONSUMERS_PER_GROUP = 3;
const TAIL_IDLE_MS = 15_000;

interface GroupState {
  /** The consumer group name, also the checker's label. */
  name: string;
  progress: ConsumeProgress;
  latency: Samples;
}

/** The fanout scenario. */
export async function fanoutScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const queue = freshQueueName('fanout');
  return withQueue(ctx, queue, { leaseTime: 10 }, async () => {
    const checker = new Checker();
    const totals = producerTotals();
    const pushLatency = new Samples();
    const allLatency = new Samples();
    const groups: GroupState[] = Array.from({ length: GROUPS }, (_, i) => ({
      name: `fanout-g${i + 1}`, progress: new ConsumeProgress(), latency: new Samples(),
    }));
    let producersDoneAt = NaN;

    const started = now();
    const consumers = Promise.all(groups.map((group) => runConsumers(CONSUMERS_PER_GROUP, {
      client: ctx.client, queue, group: group.name, groupLabel: group.name, batch: 100, timeoutMs: 2000, autoAck: false,
      partitions: ctx.popPartitions, checker, progress: group.progress,
      shouldStop: () => !Number.isNaN(producersDoneAt) && (group.progress.remaining === 0 ||
        now() - Math.max(producersDoneAt, group.progress.lastProgressAt) > TAIL_IDLE_MS),
      onMessage: (message, receivedAt, first) => {
        const ts = sendTime(message.data);
        if (first && ts !== null) {
          group.latency.add(receivedAt - ts);
          allLatency.add(receivedAt - ts);
        }
      },
    })));
    let producerError: unknown = null;
    try {
      await runProducers(PRODUCERS, 'f', {
        client: ctx.client, queue, tag: runTag(), batchSize: 10, budget: timeBudget(started + ctx.durationS * 1000),
        rotation: new PartitionRotation(partitionNames()), spread: ctx.spread, latency: pushLatency, totals, checker,
      });
    } catch (error) {
      producerError = error;
    }
    producersDoneAt = now();
    for (const group of groups) group.progress.expect(checker.pushedIds());
    const produceMs = producersDoneAt - started;
    const completedAtStop = groups.map((group) => group.progress.completed.size);
    await consumers;
    if (producerError !== null) throw producerError;

    const lastAt = (group: GroupState): number =>
      Number.isNaN(group.progress.lastCompleteAt) ? now() : group.progress.lastCompleteAt;
    const verdict = checker.verdict(groups.map((group) => group.name));
    const totalCompleted = groups.reduce((sum, group) => sum + group.progress.completed.size, 0);
    const lastOverall = Math.max(...groups.map(lastAt));
    const figures: Record<string, number> = {
      pushMsgsPerSec: perSecond(totals.accepted, produceMs),
      deliveriesPerSec: perSecond(totalCompleted, lastOverall - started),
      e2eP50Ms: round(allLatency.percentile(50)),
      e2eP99Ms: round(allLatency.percentile(99)),
      e2eMaxMs: round(allLatency.max()),
      pushP50Ms: round(pushLatency.percentile(50)),
      pushP99Ms: round(pushLatency.percentile(99)),
      pushed: totals.accepted,
      deliveries: totalCompleted,
      backlogAtStop: groups.reduce((sum, _group, i) => sum + Math.max(0, totals.accepted - (completedAtStop[i] ?? 0)), 0),
      tailS: round(Math.max(0, lastOverall - producersDoneAt) / 1000),
      failedPushes: totals.failedRequests + totals.failedItems,
      ackFailures: groups.reduce((sum, group) => sum + group.progress.ackFailures, 0),
      popErrors: groups.reduce((sum, group) => sum + group.progress.popErrors, 0),
      groups: GROUPS,
      consumersPerGroup: CONSUMERS_PER_GROUP,
    };
    const checks: Record<string, boolean> = {};
    const perGroup: string[] = [];
    groups.forEach((group, i) => {
      const key = `g${i + 1}`;
      const own = checker.verdict([group.name]);
      figures[`${key}DeliveriesPerSec`] = perSecond(group.progress.completed.size, lastAt(group) - started);
      figures[`${key}E2eP99Ms`] = round(group.latency.percentile(99));
      figures[`${key}Delivered`] = own.delivered;
      figures[`${key}Lost`] = own.lost;
      figures[`${key}Duplicates`] = own.duplicates;
      figures[`${key}Skipped`] = own.skipped;
      figures[`${key}Reordered`] = own.reordered;
      checks[`${key}Ok`] = own.ok;
      perGroup.push(`${key} ${fmt(figures[`${key}DeliveriesPerSec`] ?? NaN)}/s p99 ${figures[`${key}E2eP99Ms`]} ms ` +
        `lost ${own.lost}${own.ok ? '' : ` FAILED (skipped ${own.skipped}, reordered ${own.reordered})`}`);
    });
    const lastError = groups.find((group) => group.progress.lastError !== null)?.progress.lastError ?? totals.lastError;
    const summary = `fanout: push ${fmt(figures['pushMsgsPerSec'] ?? NaN)} msgs/s to ${GROUPS} groups x ${CONSUMERS_PER_GROUP} ` +
      `consumers: ${fmt(figures['deliveriesPerSec'] ?? NaN)} deliveries/s in total, latency p50 ${figures['e2eP50Ms']} ms, ` +
      `p99 ${figures['e2eP99Ms']} ms (${fmt(totals.accepted)} pushed, tail ${figures['tailS']} s); per group: ${perGroup.join('; ')}; ` +
      `checker ${verdict.ok ? 'OK' : 'FAILED'} (lost ${verdict.lost}, duplicates ${verdict.duplicates}, skipped ${verdict.skipped}, ` +
      `reordered ${verdict.reordered})${lastError !== null ? `; last error: ${lastError}` : ''}`;
    return { scenario: 'fanout', queue, figures, verdict, checks, summary };
  });
}
