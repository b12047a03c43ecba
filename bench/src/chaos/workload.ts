/**
 * The chaos run's producers and consumers: the e2e workload made to survive broker kills and a PostgreSQL
 * restart without ever giving up on a message.
 *
 * Producers: producer k prefers broker k % 2. It sends one push at a time (batch of 10 to one partition,
 * partitions rotating over the run's 100), each item with a unique transactionId <tag>.p<k>.<seq> and the
 * payload {seq, ts}. Any failure (transport error, non-2xx, or a 2xx with an item that is neither queued,
 * duplicate nor buffered) retries the SAME request (same items, same transactionIds): the broker deduplicates
 * on (partition, transactionId), so a retry of a push that was in fact committed answers `duplicate`. Only
 * items answered queued / duplicate / buffered are recorded in the checker, so "lost" means a message the
 * broker acknowledged and never delivered. A transport error switches to the other broker; a producer away
 * from its preferred broker returns to it 3 s later. Retries back off from 25 ms to 1 s.
 *
 * Consumers: consumer k prefers broker k % 2 the same way. Each long-polls a wildcard pop (batch 100,
 * wait=true, timeout 2000 ms, no autoAck), records every message in the checker and in the delivery log at
 * receipt, then acks the batch with /ack/batch (each message's own partitionId and leaseId, completed). An ack
 * that gets no usable answer (transport error, 5xx) is retried, same items, on the other broker, for up to
 * 60 s: acking at or below the cursor is an idempotent success (docs/api.md 6.3 C3), so a retry of an ack that was
 * committed answers success:true, and success:false (e.g. "Invalid or expired lease") means it was not
 * applied, so the message comes back after the lease. This keeps the checker's acked flags truthful, which
 * its "skipped" judgement depends on. With --drop-acks, a random share of batches is never acked at all
 * (unambiguously not applied), so their messages are redelivered after the lease: duplicates on purpose.
 *
 * Every non-2xx answer is counted by route and error text; 5xx answers other than `pool` (and `pop failed`
 * on pop) are collected separately as findings.
 */
import type { Checker } from '../checker.js';
import { QUEUE_MODE_LABEL, now, sleep, wallClockMs, type PartitionRotation, type WorkBudget } from '../scenarios/common.js';
import type { ConsumeProgress } from '../scenarios/consumer.js';
import {
  ackResults, errorText, popMessages, pushStatuses, transportErrorLabel, type ChaosAckItem, type ChaosClient, type ChaosPushItem,
  type RawAnswer,
} from './client.js';
import type { DeliveryEvent } from './duplicates.js';

const STORED = new Set(['queued', 'duplicate', 'buffered']);
const RETURN_HOME_AFTER_MS = 3000;
const PUSH_GIVE_UP_MS = 180_000;
const ACK_GIVE_UP_MS = 60_000;
const EXAMPLE_LIMIT = 20;

/** Counts by label. */
export class Counter {
  private readonly counts = new Map<string, number>();

  /** Adds `n` to `label`. */
  add(label: string, n = 1): void {
    this.counts.set(label, (this.counts.get(label) ?? 0) + n);
  }

  /** The total over every label. */
  get total(): number {
    let sum = 0;
    for (const n of this.counts.values()) sum += n;
    return sum;
  }

  /** The counts as a plain object, largest first. */
  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort((a, b) => b[1] - a[1]));
  }
}

/** Everything the workload counts. */
export class WorkloadStats {
  /** Push requests (batches) that ended stored. */
  pushRequests = 0;
  /** Push HTTP attempts, first tries and retries. */
  pushAttempts = 0;
  /** Attempts beyond a request's first. */
  pushRetries = 0;
  /** Requests that needed at least one retry. */
  retriedRequests = 0;
  /** Messages recorded as stored (answered queued, duplicate or buffered). */
  accepted = 0;
  /** Per-item push statuses of the answers that ended a request. */
  readonly itemStatuses = new Counter();
  /** Why push attempts failed. */
  readonly pushFailures = new Counter();
  pops = 0;
  emptyPops = 0;
  deliveries = 0;
  /** Why pops failed. */
  readonly popFailures = new Counter();
  ackRequests = 0;
  ackRetries = 0;
  /** Why ack attempts got no usable answer. */
  readonly ackFailures = new Counter();
  /** Per-item ack results: "success" or the broker's error text. */
  readonly ackItems = new Counter();
  /** Deliveries whose ack never got a usable answer within 60 s. */
  ackUnanswered = 0;
  /** Deliveries whose ack was deliberately not sent (--drop-acks). */
  ackDropped = 0;
  /** 5xx answers other than the expected ones, by route, status and error. */
  readonly unexpected5xx = new Counter();
  /** Up to 20 examples of unexpected 5xx answers with their time. */
  readonly unexpected5xxExamples: string[] = [];
}

/** What producers and consumers share. */
export interface WorkloadContext {
  /** The two brokers' clients. */
  clients: readonly [ChaosClient, ChaosClient];
  queue: string;
  checker: Checker;
  progress: ConsumeProgress;
  stats: WorkloadStats;
  /** The delivery log for the duplicate classification. */
  events: DeliveryEvent[];
  /** True once the run is being abandoned (Ctrl-C or a fatal error). */
  aborted: () => boolean;
  /** Fraction (0..1) of popped batches whose ack is deliberately never sent. */
  dropAcks: number;
}

function noteUnexpected5xx(ctx: WorkloadContext, route: string, answer: RawAnswer): void {
  if (answer.statusCode < 500) return;
  const error = errorText(answer);
  if (error === 'pool' || (route === 'pop' && error === 'pop failed')) return;
  const label = `${route} HTTP ${answer.statusCode} ${error}`;
  ctx.stats.unexpected5xx.add(label);
  if (ctx.stats.unexpected5xxExamples.length < EXAMPLE_LIMIT) {
    ctx.stats.unexpected5xxExamples.push(`${new Date().toISOString()} ${label}: ${answer.text.slice(0, 300)}`);
  }
}

/** Which broker a worker talks to: its preferred one, or the other one for a while after a failure. */
class BrokerChoice {
  private current: number;
  private awaySince = NaN;

  constructor(private readonly home: number) {
    this.current = home;
  }

  /** The broker index to use now. */
  get index(): number {
    if (this.current !== this.home && now() - this.awaySince > RETURN_HOME_AFTER_MS) this.current = this.home;
    return this.current;
  }

  /** Switches to the other broker after a failure on `failed`. */
  failover(failed: number): void {
    this.current = 1 - failed;
    this.awaySince = now();
  }
}

function backoff(attempt: number): number {
  return Math.min(1000, 25 * 2 ** Math.min(attempt, 6));
}

/** One producer: pushes batches drawn from `budget` until it is exhausted, each one until it is stored. */
export async function runProducer(ctx: WorkloadContext, index: number, tag: string, budget: WorkBudget,
  rotation: PartitionRotation, batchSize: number): Promise<void> {
  const producer = `p${index}`;
  const choice = new BrokerChoice(index % 2);
  const { stats, checker, queue } = ctx;
  let seq = 0;
  for (;;) {
    if (ctx.aborted()) return;
    const count = budget.take(batchSize);
    if (count === 0) return;
    const partition = rotation.take();
    const ts = Math.round(wallClockMs());
    const items: ChaosPushItem[] = [];
    const seqs: number[] = [];
    for (let i = 0; i < count; i++) {
      const itemSeq = seq++;
      seqs.push(itemSeq);
      items.push({ queue, partition, payload: { seq: itemSeq, ts }, transactionId: `${tag}.${producer}.${itemSeq}` });
    }
    const recorded = items.map(() => false);
    const firstTry = now();
    for (let attempt = 0; ; attempt++) {
      const broker = choice.index;
      stats.pushAttempts++;
      if (attempt === 1) stats.retriedRequests++;
      if (attempt > 0) stats.pushRetries++;
      let failure: string;
      try {
        const answer = await ctx.clients[broker]!.push(items);
        if (answer.statusCode >= 200 && answer.statusCode < 300) {
          const statuses = pushStatuses(answer.body, count);
          statuses.forEach((status, i) => {
            if (!STORED.has(status) || recorded[i]) return;
            recorded[i] = true;
            stats.accepted++;
            checker.recordPush({ transactionId: items[i]!.transactionId, partition, producer, seq: seqs[i]! });
          });
          if (recorded.every(Boolean)) {
            for (const status of statuses) stats.itemStatuses.add(status);
            stats.pushRequests++;
            break;
          }
          const bad = statuses.filter((status) => !STORED.has(status));
          failure = `HTTP ${answer.statusCode} with item status ${[...new Set(bad)].join('/')}`;
        } else {
          noteUnexpected5xx(ctx, 'push', answer);
          failure = `HTTP ${answer.statusCode} ${errorText(answer)}`;
        }
      } catch (error) {
        failure = transportErrorLabel(error);
        choice.failover(broker);
      }
      stats.pushFailures.add(failure);
      if (ctx.aborted()) return;
      if (now() - firstTry > PUSH_GIVE_UP_MS) {
        throw new Error(`producer ${producer}: a push kept failing for ${PUSH_GIVE_UP_MS / 1000} s (last: ${failure})`);
      }
      await sleep(backoff(attempt));
    }
  }
}

let nextPopId = 0;

/** One consumer: pops and acks until `shouldStop()` says so. */
export async function runConsumer(ctx: WorkloadContext, index: number, shouldStop: () => boolean): Promise<void> {
  const choice = new BrokerChoice(index % 2);
  const { stats, checker, progress, queue } = ctx;
  let failures = 0;
  while (!shouldStop() && !ctx.aborted()) {
    const broker = choice.index;
    const requestedAt = now();
    let answer: RawAnswer;
    try {
      answer = await ctx.clients[broker]!.pop(queue, 100, 2000);
    } catch (error) {
      stats.popFailures.add(transportErrorLabel(error));
      choice.failover(broker);
      await sleep(backoff(failures++));
      continue;
    }
    stats.pops++;
    if (answer.statusCode === 204) {
      stats.emptyPops++;
      failures = 0;
      continue;
    }
    if (answer.statusCode !== 200) {
      noteUnexpected5xx(ctx, 'pop', answer);
      stats.popFailures.add(`HTTP ${answer.statusCode} ${errorText(answer)}`);
      await sleep(backoff(failures++));
      continue;
    }
    failures = 0;
    const receivedAt = now();
    const messages = popMessages(answer.body);
    if (messages.length === 0) {
      stats.emptyPops++;
      continue;
    }
    const pop = { id: nextPopId++, requestedAt, receivedAt };
    if (Number.isNaN(progress.firstReceiveAt)) progress.firstReceiveAt = receivedAt;
    const received = messages.map((message) => {
      progress.seen.add(message.transactionId);
      progress.deliveries++;
      stats.deliveries++;
      const handle = checker.recordDelivery({
        group: QUEUE_MODE_LABEL, partition: message.partition, transactionId: message.transactionId, acked: false, pop,
      });
      const event: DeliveryEvent = {
        transactionId: message.transactionId, messageId: message.id, requestedAt, receivedAt,
        ack: 'unanswered', ackAnsweredAt: NaN, ackError: null,
      };
      ctx.events.push(event);
      return { handle, event };
    });

    if (ctx.dropAcks > 0 && Math.random() < ctx.dropAcks) {
      for (const { event } of received) event.ackError = 'not sent on purpose (--drop-acks)';
      stats.ackDropped += received.length;
      continue;
    }
    const items: ChaosAckItem[] = messages.map((m) => ({
      transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed',
    }));
    const began = now();
    let target = broker;
    let lastFailure = 'not sent';
    for (let attempt = 0; ; attempt++) {
      stats.ackRequests++;
      if (attempt > 0) stats.ackRetries++;
      let results: ReturnType<typeof ackResults> = null;
      try {
        const ackAnswer = await ctx.clients[target]!.ack(items);
        if (ackAnswer.statusCode === 200) results = ackResults(ackAnswer.body, items);
        if (results === null || results.some((r) => r === undefined)) {
          noteUnexpected5xx(ctx, 'ack', ackAnswer);
          lastFailure = `HTTP ${ackAnswer.statusCode} ${errorText(ackAnswer)}`;
          results = null;
        }
      } catch (error) {
        lastFailure = transportErrorLabel(error);
        target = 1 - target;
      }
      if (results !== null) {
        const answeredAt = now();
        results.forEach((result, i) => {
          const { handle, event } = received[i]!;
          if (result?.success === true) {
            event.ack = 'acked';
            event.ackAnsweredAt = answeredAt;
            checker.recordAck(handle);
            progress.complete(event.transactionId);
            stats.ackItems.add('success');
          } else {
            event.ack = 'refused';
            event.ackAnsweredAt = answeredAt;
            event.ackError = result?.error ?? null;
            progress.ackFailures++;
            stats.ackItems.add(result?.error ?? 'success:false without error');
          }
        });
        break;
      }
      stats.ackFailures.add(lastFailure);
      if (ctx.aborted() || now() - began > ACK_GIVE_UP_MS) {
        for (const { event } of received) event.ackError = lastFailure;
        stats.ackUnanswered += received.length;
        progress.ackFailures += received.length;
        break;
      }
      await sleep(backoff(attempt));
    }
  }
}
