/**
 * push-b1 / push-b10 / push-b100: raw push throughput.
 *
 * Design: 50 concurrent producers push batches of 1, 10 or 100 items to one fresh queue for --duration
 * seconds, rotating over 100 partitions (by default one partition per request, the next one for the next
 * request; --spread item rotates per item). Reports accepted msgs/s, 2xx req/s and p50/p99 request latency.
 * Nothing is consumed, so there is no checker verdict.
 */
import { profileSpan } from '../profile.js';
import { Samples, perSecond, round } from '../stats.js';
import {
  PartitionRotation, freshQueueName, now, partitionNames, runTag, timeBudget, withQueue,
  type Scenario, type ScenarioContext, type ScenarioResult,
} from './common.js';
import { producerTotals, runProducers } from './producer.js';

/** Concurrent connections pushing. */
export const PUSH_CONCURRENCY = 50;

/** Builds the push scenario for one batch size. */
export function pushScenario(batchSize: number): Scenario {
  const name = `push-b${batchSize}`;
  return async (ctx: ScenarioContext): Promise<ScenarioResult> => {
    const queue = freshQueueName(name);
    return withQueue(ctx, queue, {}, async () => {
      const latency = new Samples();
      const totals = producerTotals();
      const started = now();
      const span = profileSpan(ctx.client, ctx.brokerCpuUs);
      await runProducers(PUSH_CONCURRENCY, 'w', {
        client: ctx.client, queue, tag: runTag(), batchSize, budget: timeBudget(started + ctx.durationS * 1000),
        rotation: new PartitionRotation(partitionNames()), spread: ctx.spread, latency, totals,
      });
      const elapsed = now() - started;
      const profile = span(totals.accepted);
      const figures = {
        msgsPerSec: perSecond(totals.accepted, elapsed),
        reqPerSec: perSecond(totals.requests, elapsed),
        p50Ms: round(latency.percentile(50)),
        p99Ms: round(latency.percentile(99)),
        maxMs: round(latency.max()),
        messages: totals.accepted,
        requests: totals.requests,
        failedRequests: totals.failedRequests,
        failedItems: totals.failedItems,
        elapsedS: round(elapsed / 1000),
      };
      const errors = totals.failedRequests + totals.failedItems;
      const summary = `${name}: ${fmt(figures.msgsPerSec)} msgs/s, ${fmt(figures.reqPerSec)} req/s, ` +
        `p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms (${fmt(totals.accepted)} msgs in ${figures.elapsedS} s, ` +
        `${errors} failures${totals.lastError !== null ? `; last: ${totals.lastError}` : ''})`;
      return { scenario: name, queue, figures, summary, profile };
    });
  };
}

/** Formats a number with thousands separators. */
export function fmt(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';
}
