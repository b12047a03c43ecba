/**
 * scale-groups-*: fan-out of one paced stream to 1, 10 or 100 consumer groups.
 *
 * Design: for --duration seconds, 10 producers push 10-item batches over 100 partitions paced to 500
 * msgs/s in total (50 requests/s), while every group (scale-gN-1..) runs one wildcard long-poll consumer
 * (batch 100, wait=true, explicit /ack/batch). Then the producers stop and each group drains until it
 * completed every message, or nothing new arrived for 15 s. The pace is fixed so that the demand grows with
 * the groups only (500 x groups deliveries/s): deliveries/s and the end-to-end latency (first receipt per
 * group minus the send time in the payload) show where fan-out stops keeping up. Every group must get every
 * message (the checker, per group; the verdict sums them). The scenario has its own HTTP pool with a connection
 * for every consumer and producer: with the shared one (64), 100 parked long polls left the producers queueing
 * for a connection, and the run measured the load generator's pool instead of the broker.
 */
import { Checker } from '../checker.js';
import { QueenClient } from '../http.js';
import { Samples, perSecond, round } from '../stats.js';
import {
  PartitionRotation, describeError, freshQueueName, now, partitionNames, runTag, sleep, wallClockMs, withQueue,
  type Scenario, type ScenarioContext, type ScenarioResult,
} from './common.js';
import { ConsumeProgress, runConsumers } from './consumer.js';
import { sendTime } from './e2e.js';
import { Pacer } from './paced-push.js';
import { producerTotals, type ProducerTotals } from './producer.js';
import { fmt } from './push.js';

const PRODUCERS = 10;
const BATCH = 10;
/** Total paced push rate, msgs/s. */
const RATE = 500;
const TAIL_IDLE_MS = 15_000;

/** One paced producer: at each due slot it pushes one batch of BATCH items to the next partition. */
async function pacedBatches(client: QueenClient, queue: string, tag: string, producerId: string, pacer: Pacer,
  rotation: PartitionRotation, totals: ProducerTotals, checker: Checker): Promise<void> {
  let seq = 0;
  for (let due = pacer.next(); due !== null; due = pacer.next()) {
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    const partition = rotation.take();
    const ts = Math.round(wallClockMs() * 1000) / 1000;
    const items = Array.from({ length: BATCH }, () => {
      const itemSeq = seq++;
      return { queue, partition, payload: { seq: itemSeq, ts }, transactionId: `${tag}.${producerId}.${itemSeq}`, seq: itemSeq };
    });
    try {
      const response = await client.push(items.map(({ seq: _seq, ...item }) => item));
      if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`HTTP ${response.statusCode}`);
      totals.requests++;
      items.forEach((item, i) => {
        const status = response.results[i]?.status;
        if (status === 'queued' || status === 'buffered') {
          totals.accepted++;
          checker.recordPush({ transactionId: item.transactionId, partition, producer: producerId, seq: item.seq });
        } else {
          totals.failedItems++;
        }
      });
    } catch (error) {
      totals.failedRequests++;
      totals.lastError = describeError(error);
    }
  }
}

/** The fan-out measurement to `groupCount` groups, under the scenario name `name`. */
export function groupsScenario(name: string, groupCount: number): Scenario {
  return async (ctx: ScenarioContext): Promise<ScenarioResult> => {
    const queue = freshQueueName(name);
    const client = new QueenClient(ctx.client.baseUrl, groupCount + PRODUCERS + 8);
    try {
      return await withQueue(ctx, queue, { leaseTime: 10 }, () => fanOut(ctx, client, name, queue, groupCount));
    } finally {
      await client.close().catch(() => undefined);
    }
  };
}

/** One fan-out run: the paced producers, one consumer per group, the drain, the figures. */
async function fanOut(ctx: ScenarioContext, client: QueenClient, name: string, queue: string,
  groupCount: number): Promise<ScenarioResult> {
  const checker = new Checker();
  const totals = producerTotals();
  const latency = new Samples();
  const groups = Array.from({ length: groupCount }, (_, i) => ({ name: `scale-g${i + 1}`, progress: new ConsumeProgress() }));
  let producersDoneAt = NaN;
  const started = now();
  const consumers = Promise.all(groups.map((group) => runConsumers(1, {
    client, queue, group: group.name, groupLabel: group.name, batch: 100, timeoutMs: 2000, autoAck: false,
    partitions: ctx.popPartitions, checker, progress: group.progress,
    shouldStop: () => !Number.isNaN(producersDoneAt) && (group.progress.remaining === 0 ||
      now() - Math.max(producersDoneAt, group.progress.lastProgressAt) > TAIL_IDLE_MS),
    onMessage: (message, receivedAt, first) => {
      const ts = sendTime(message.data);
      if (first && ts !== null) latency.add(receivedAt - ts);
    },
  })));
  const pacer = new Pacer(started, started + ctx.durationS * 1000, RATE / BATCH);
  const rotation = new PartitionRotation(partitionNames());
  const tag = runTag();
  await Promise.all(Array.from({ length: PRODUCERS }, (_, i) =>
    pacedBatches(client, queue, tag, `p${i}`, pacer, rotation, totals, checker)));
  producersDoneAt = now();
  for (const group of groups) group.progress.expect(checker.pushedIds());
  await consumers;

  const lastAt = Math.max(...groups.map((g) => (Number.isNaN(g.progress.lastCompleteAt) ? now() : g.progress.lastCompleteAt)));
  const deliveries = groups.reduce((sum, g) => sum + g.progress.completed.size, 0);
  const verdict = checker.verdict(groups.map((g) => g.name));
  const figures = {
    groups: groupCount,
    pushMsgsPerSec: perSecond(totals.accepted, producersDoneAt - started),
    deliveriesPerSec: perSecond(deliveries, lastAt - started),
    demandPerSec: RATE * groupCount,
    e2eP50Ms: round(latency.percentile(50)),
    e2eP99Ms: round(latency.percentile(99)),
    e2eMaxMs: round(latency.max()),
    pushed: totals.accepted,
    deliveries,
    tailS: round(Math.max(0, lastAt - producersDoneAt) / 1000),
    failedPushes: totals.failedRequests + totals.failedItems,
    ackFailures: groups.reduce((sum, g) => sum + g.progress.ackFailures, 0),
  };
  const summary = `${name}: ${fmt(figures.pushMsgsPerSec)} msgs/s pushed to ${groupCount} groups: ${fmt(figures.deliveriesPerSec)} ` +
    `deliveries/s (demand ${fmt(figures.demandPerSec)}), e2e p50 ${figures.e2eP50Ms} ms, p99 ${figures.e2eP99Ms} ms, tail ${figures.tailS} s; ` +
    `checker ${verdict.ok ? 'OK' : 'FAILED'} (lost ${verdict.lost}, duplicates ${verdict.duplicates})`;
  return { scenario: name, queue, figures, verdict, summary };
}
