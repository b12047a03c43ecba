/**
 * drain: how fast consumers empty a full queue, and whether they get everything exactly once.
 *
 * Design: pre-fill --messages (default 200000) messages with 20 concurrent batch-100 producers rotating
 * over 100 partitions (the pre-fill is timed separately), then 10 wildcard long-poll consumers (batch 100,
 * autoAck=true, partitions=--pop-partitions) pop until every accepted transactionId was received, or
 * nothing new arrived for 30 s. Drain msgs/s is measured from the consumers' start to the last new message.
 * Besides the checker's verdict, drain requires every message exactly once (no duplicates: autoAck).
 * partitions=0 (no cap) is the default: on the 2-core dev box 0, 1 and 2 drained equally fast within the
 * noise (about 55-60k msgs/s median of 3) and 10 was slower (about 43k msgs/s).
 */
import { Checker } from '../checker.js';
import { profileSpan } from '../profile.js';
import { cpuPerMessage } from '../resources.js';
import { Samples, perSecond, round } from '../stats.js';
import {
  PartitionRotation, QUEUE_MODE_LABEL, countBudget, freshQueueName, now, partitionNames, runTag, withQueue,
  type ScenarioContext, type ScenarioResult,
} from './common.js';
import { ConsumeProgress, runConsumers } from './consumer.js';
import { producerTotals, runProducers } from './producer.js';
import { fmt } from './push.js';

const PREFILL_PRODUCERS = 20;
const CONSUMERS = 10;
const STALL_MS = 30_000;

/** The drain scenario. */
export async function drainScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const queue = freshQueueName('drain');
  return withQueue(ctx, queue, {}, async () => {
    const checker = new Checker();
    const totals = producerTotals();
    const prefillStart = now();
    await runProducers(PREFILL_PRODUCERS, 'f', {
      client: ctx.client, queue, tag: runTag(), batchSize: 100, budget: countBudget(ctx.messages),
      rotation: new PartitionRotation(partitionNames()), spread: ctx.spread, latency: new Samples(), totals, checker,
    });
    const prefillMs = now() - prefillStart;
    ctx.log(`drain: pre-filled ${fmt(checker.pushedCount)} messages in ${(prefillMs / 1000).toFixed(1)} s`);

    const label = ctx.group ?? QUEUE_MODE_LABEL;
    const progress = new ConsumeProgress();
    progress.expect(checker.pushedIds());
    const drainStart = now();
    const span = profileSpan(ctx.client, ctx.brokerCpuUs);
    const drainPhase = ctx.phaseResources(); // CPU per message of the drain alone, not of the pre-fill
    progress.lastProgressAt = drainStart;
    await runConsumers(CONSUMERS, {
      client: ctx.client, queue, group: ctx.group, groupLabel: label, batch: 100, timeoutMs: 2000, autoAck: true,
      partitions: ctx.popPartitions, checker, progress,
      shouldStop: () => progress.remaining === 0 || now() - progress.lastProgressAt > STALL_MS,
    });
    const drainMs = (Number.isNaN(progress.lastCompleteAt) ? now() : progress.lastCompleteAt) - drainStart;
    const profile = span(progress.completed.size);
    const cpu = cpuPerMessage(drainPhase.stop(), progress.completed.size);
    const verdict = checker.verdict([label]);
    const nonEmpty = progress.pops - progress.emptyPops;
    const figures = {
      msgsPerSec: perSecond(progress.completed.size, drainMs),
      ...cpu,
      drainS: round(drainMs / 1000),
      messages: checker.pushedCount,
      received: progress.deliveries,
      prefillMsgsPerSec: perSecond(checker.pushedCount, prefillMs),
      popPartitions: ctx.popPartitions,
      pops: progress.pops,
      emptyPops: progress.emptyPops,
      avgBatch: nonEmpty > 0 ? round(progress.deliveries / nonEmpty, 1) : 0,
      popErrors: progress.popErrors,
    };
    const summary = `drain: ${fmt(figures.msgsPerSec)} msgs/s (${fmt(progress.completed.size)} of ${fmt(checker.pushedCount)} in ` +
      `${figures.drainS} s, partitions=${ctx.popPartitions}, avg batch ${figures.avgBatch}), pre-fill ${fmt(figures.prefillMsgsPerSec)} msgs/s; ` +
      `checker ${verdict.ok ? 'OK' : 'FAILED'} (lost ${verdict.lost}, duplicates ${verdict.duplicates}, skipped ${verdict.skipped}, ` +
      `reordered ${verdict.reordered})${progress.lastError !== null ? `; last error: ${progress.lastError}` : ''}`;
    const exactlyOnce = verdict.lost === 0 && verdict.duplicates === 0;
    return { scenario: 'drain', queue, figures, verdict, checks: { exactlyOnce }, profile, summary: `${summary}; exactly once: ${exactlyOnce ? 'yes' : 'NO'}` };
  });
}
