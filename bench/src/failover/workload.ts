/**
 * The failover run's load: producers and consumers written with our SDK (@queen/client) as an application
 * would write them, over both brokers, recording everything the no-loss checker and the recovery figures need.
 *
 * Producers: one `Queen` client (affinity: a partition's pushes go to one broker while it answers). Producer
 * k pushes batches of 10, paced to its share of --rate (a late producer catches up without sleeping), to
 * partitions rotating over the run's 20, each item with its own transactionId <tag>.p<k>.<seq> and payload
 * {seq}. A push that rejects, or answers an item `failed`, is a client-visible error; the producer then
 * sends the same items again (same transactionIds: the broker deduplicates) until every item is stored.
 * Items answered queued, duplicate or buffered are recorded in the checker, so "lost" means a message the
 * broker acknowledged and never delivered. A push whose items were all queued or duplicate was committed in
 * PostgreSQL: its completion time is a "committed push" (buffered is not).
 *
 * Consumers: another `Queen` client (round-robin, so both brokers serve pops). Each long-polls pop (batch 50,
 * 2 s) and records every message in the checker and the delivery log at receipt (a pop with messages is a
 * "served pop"), then acks the batch with `queen.ack(messages, true)`. An ack without per-item results
 * (transport failure) is retried for up to 60 s; success:false items were not applied (their lease expired),
 * so they come back after the lease: the duplicate classification (chaos/duplicates.ts) explains those.
 *
 * Client-visible errors: push rejections and failed items, pop rejections, acks without results or with
 * refused items, and every `logger.error` of the SDK (a pop that met a persistent 5xx answers [] and logs).
 */
import { Queen, QueenError, type Logger, type Message, type PushResultItem } from '@queen/client';
import { Checker } from '../checker.js';
import { PartitionRotation, QUEUE_MODE_LABEL, now, partitionNames, sleep } from '../scenarios/common.js';
import { ConsumeProgress } from '../scenarios/consumer.js';
import { Counter } from '../chaos/workload.js';
import type { Success } from './faults.js';
import type { DeliveryEvent } from '../chaos/duplicates.js';

const BATCH = 10;
const POP_BATCH = 50;
const PARTITIONS = 20;
const STORED = new Set(['queued', 'duplicate', 'buffered']);
const PUSH_GIVE_UP_MS = 180_000;
const ACK_GIVE_UP_MS = 60_000;
let nextPopId = 0;

/** What one workload run recorded. */
export class WorkloadRecord {
  readonly checker = new Checker();
  readonly progress = new ConsumeProgress();
  readonly events: DeliveryEvent[] = [];
  /** Pushes committed in PostgreSQL (all items queued or duplicate). */
  readonly committedPushes: Success[] = [];
  /** Pops that returned messages. */
  readonly servedPops: Success[] = [];
  /** Client-visible errors by kind and text. */
  readonly errors = new Counter();
  /** Wall-clock times of client-visible errors. */
  readonly errorTimes: number[] = [];
  /** Push item statuses of the answers that ended a request. */
  readonly itemStatuses = new Counter();
  /** SDK warnings (failovers between brokers, retries): informational. */
  readonly warnings = new Counter();
  pushed = 0;
  deliveries = 0;
  ackUnanswered = 0;

  /** Notes a client-visible error. */
  error(kind: string, text: string): void {
    this.errors.add(`${kind}: ${text.slice(0, 120)}`);
    this.errorTimes.push(Date.now());
  }
}

/** Where and what to run. */
export interface WorkloadOptions {
  urls: readonly string[];
  queue: string;
  tag: string;
  producers: number;
  consumers: number;
  /** Messages per second over all producers; 0 = unpaced. */
  rate: number;
}

function describe(error: unknown): string {
  if (error instanceof QueenError) return `${error.code}${error.status === undefined ? '' : ` ${error.status}`} ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Producers and consumers on one queue; `stopProducing` then `drain` end it. */
export class FailoverWorkload {
  readonly record = new WorkloadRecord();
  private readonly producerClient: Queen;
  private readonly consumerClient: Queen;
  private producing = true;
  private producersDone: Promise<void> | undefined;
  private consumersDone: Promise<void> | undefined;
  private stopConsuming = false;

  constructor(private readonly options: WorkloadOptions) {
    const logger = (role: string): Logger => ({
      info: () => undefined,
      warn: (msg, meta) => {
        const m = (meta ?? {}) as { method?: unknown; path?: unknown; code?: unknown; status?: unknown };
        this.record.warnings.add(`${role}: ${msg}${m.code === undefined ? '' : ` (${String(m.method)} ${String(m.path)}: ${String(m.code)} ${String(m.status ?? '')})`}`);
      },
      error: (msg, meta) => this.record.error(`${role} (SDK log)`, `${msg}${meta === undefined ? '' : ` ${JSON.stringify(meta)}`}`),
    });
    this.producerClient = new Queen({ urls: [...options.urls], handleSignals: false, logger: logger('producer') });
    this.consumerClient = new Queen({ urls: [...options.urls], handleSignals: false, loadBalancingStrategy: 'round-robin', logger: logger('consumer') });
  }

  /** Creates the queue (lease 5 s, so an unacked message comes back within seconds). */
  async createQueue(): Promise<void> {
    await this.producerClient.queue(this.options.queue).config({ leaseTime: 5 }).create();
  }

  /** Starts every producer and consumer. */
  start(): void {
    const rotation = new PartitionRotation(partitionNames(PARTITIONS));
    this.producersDone = Promise.all(Array.from({ length: this.options.producers }, (_, k) => this.produce(k, rotation))).then(() => undefined);
    this.consumersDone = Promise.all(Array.from({ length: this.options.consumers }, () => this.consume())).then(() => undefined);
  }

  /** Stops the producers after their current batch is stored; rejects if one gave up. */
  async stopProducing(): Promise<void> {
    this.producing = false;
    await this.producersDone;
    this.record.progress.expect(this.record.checker.pushedIds());
  }

  /** Consumes until every stored message was delivered and acked, or `idleMs` pass without a completion. */
  async drain(idleMs: number): Promise<void> {
    const { progress } = this.record;
    progress.lastProgressAt = now();
    while (progress.remaining > 0 && now() - progress.lastProgressAt < idleMs) await sleep(200);
    this.stopConsuming = true;
    await this.consumersDone;
  }

  /** Closes both clients. */
  async close(): Promise<void> {
    this.producing = false;
    this.stopConsuming = true;
    await Promise.all([this.producerClient.close(), this.consumerClient.close()]).catch(() => undefined);
  }

  private async produce(k: number, rotation: PartitionRotation): Promise<void> {
    const producer = `p${k}`;
    const { record } = this;
    let seq = 0;
    const started = Date.now();
    const perBatchMs = this.options.rate > 0 ? (BATCH * this.options.producers * 1000) / this.options.rate : 0;
    for (let batch = 0; this.producing; batch++) {
      const due = started + batch * perBatchMs - Date.now();
      if (due > 0) await sleep(due);
      const partition = rotation.take();
      const items = Array.from({ length: BATCH }, () => {
        const itemSeq = seq++;
        return { seq: itemSeq, transactionId: `${this.options.tag}.${producer}.${itemSeq}` };
      });
      const stored = items.map(() => false);
      const note = (results: readonly unknown[]): void => {
        for (const raw of results) {
          const result = raw as PushResultItem;
          const i = result.index;
          if (!STORED.has(result.status) || stored[i] !== false) continue;
          stored[i] = true;
          record.pushed++;
          record.checker.recordPush({ transactionId: items[i]!.transactionId, partition, producer, seq: items[i]!.seq });
        }
      };
      const began = Date.now();
      for (let attempt = 0; ; attempt++) {
        const sentAt = Date.now();
        try {
          const results = await this.producerClient.queue(this.options.queue).partition(partition)
            .push(items.map((item) => ({ payload: { seq: item.seq }, transactionId: item.transactionId })));
          note(results);
          if (stored.every(Boolean)) {
            for (const result of results) record.itemStatuses.add(result.status);
            if (results.every((r) => r.status === 'queued' || r.status === 'duplicate')) record.committedPushes.push({ sentAt, doneAt: Date.now() });
            break;
          }
          record.error('push', `items not stored: ${results.filter((r) => !STORED.has(r.status)).map((r) => r.status).join(',')}`);
        } catch (error) {
          if (error instanceof QueenError && error.results !== undefined) note(error.results);
          record.error('push', describe(error));
        }
        if (Date.now() - began > PUSH_GIVE_UP_MS) throw new Error(`producer ${producer}: a push kept failing for ${PUSH_GIVE_UP_MS / 1000} s`);
        await sleep(Math.min(1000, 50 * 2 ** attempt));
      }
    }
  }

  private async consume(): Promise<void> {
    const { record } = this;
    while (!this.stopConsuming) {
      const requestedAt = now();
      const sentAt = Date.now();
      let messages: Message[];
      try {
        messages = await this.consumerClient.queue(this.options.queue).batch(POP_BATCH).wait(true).timeoutMillis(2000).pop();
      } catch (error) {
        if (this.stopConsuming) return;
        record.error('pop', describe(error));
        await sleep(500);
        continue;
      }
      if (messages.length === 0) continue;
      const receivedAt = now();
      record.servedPops.push({ sentAt, doneAt: Date.now() });
      const pop = { id: nextPopId++, requestedAt, receivedAt };
      const received = messages.map((message) => {
        record.deliveries++;
        record.progress.seen.add(message.transactionId);
        const handle = record.checker.recordDelivery({
          group: QUEUE_MODE_LABEL, partition: message.partition, transactionId: message.transactionId, acked: false, pop,
        });
        const event: DeliveryEvent = {
          transactionId: message.transactionId, messageId: message.id, requestedAt, receivedAt,
          ack: 'unanswered', ackAnsweredAt: NaN, ackError: null,
        };
        record.events.push(event);
        return { handle, event };
      });
      await this.acknowledge(messages, received);
    }
  }

  private async acknowledge(messages: Message[], received: { handle: number; event: DeliveryEvent }[]): Promise<void> {
    const { record } = this;
    const began = now();
    for (let attempt = 0; ; attempt++) {
      const answer = await this.consumerClient.ack(messages, true);
      if (answer.results.length === messages.length) {
        const answeredAt = now();
        answer.results.forEach((result, i) => {
          const { handle, event } = received[i]!;
          event.ackAnsweredAt = answeredAt;
          if (result.success) {
            event.ack = 'acked';
            record.checker.recordAck(handle);
            record.progress.complete(event.transactionId);
          } else {
            event.ack = 'refused';
            event.ackError = result.error;
          }
        });
        if (!answer.success) record.error('ack', `refused: ${answer.failed[0]?.error ?? 'no error text'}`);
        return;
      }
      record.error('ack', answer.error ?? 'no results');
      if (now() - began > ACK_GIVE_UP_MS) {
        for (const { event } of received) event.ackError = answer.error ?? 'no results';
        record.ackUnanswered += received.length;
        return;
      }
      await sleep(Math.min(1000, 50 * 2 ** attempt));
    }
  }
}
