/**
 * The consumer loop shared by every scenario that pops.
 *
 * Design: a consumer long-polls the queue with a wildcard pop and records every delivered message in the
 * checker at receipt, tagged with its pop (id, request and receipt times) so the checker can tell provable
 * reorders from concurrent answers. Unless autoAck, it then acknowledges the whole batch with one /ack/batch
 * carrying each message's own partitionId and leaseId, and marks the deliveries whose ack succeeded. A shared ConsumeProgress counts completions and knows, once told which
 * ids to expect, how many are still outstanding; scenarios stop their consumers through `shouldStop`.
 */
import type { Checker } from '../checker.js';
import type { PopMessage, QueenClient } from '../http.js';
import { describeError, now, sleep, wallClockMs } from './common.js';

let nextPopId = 0;

/** Progress shared by the consumers of one run. */
export class ConsumeProgress {
  /** Transaction ids received at least once. */
  readonly seen = new Set<string>();
  /** Transaction ids completed: received with autoAck, or received and acked successfully. */
  readonly completed = new Set<string>();
  private pending: Set<string> | null = null;
  /** Monotonic time of the first receipt (NaN before). */
  firstReceiveAt = NaN;
  /** Monotonic time of the latest new completion (NaN before). */
  lastCompleteAt = NaN;
  /** Monotonic time of the latest progress; scenarios reset it when they start waiting. */
  lastProgressAt = now();
  deliveries = 0;
  pops = 0;
  emptyPops = 0;
  popErrors = 0;
  ackFailures = 0;
  lastError: string | null = null;

  /** From now on, track which of `ids` are not completed yet. */
  expect(ids: Iterable<string>): void {
    this.pending = new Set();
    for (const id of ids) if (!this.completed.has(id)) this.pending.add(id);
  }

  /** Expected ids not completed yet; Infinity before `expect` was called. */
  get remaining(): number {
    return this.pending === null ? Infinity : this.pending.size;
  }

  /** Notes that `id` was completed. */
  complete(id: string): void {
    if (!this.completed.has(id)) {
      this.completed.add(id);
      this.lastCompleteAt = now();
      this.lastProgressAt = this.lastCompleteAt;
    }
    this.pending?.delete(id);
  }
}

/** What one consumer needs. */
export interface ConsumerOptions {
  client: QueenClient;
  queue: string;
  /** Consumer group, or undefined for queue mode. */
  group: string | undefined;
  /** The checker's label for that group. */
  groupLabel: string;
  batch: number;
  timeoutMs: number;
  autoAck: boolean;
  /** The `partitions` pop parameter (0 = no cap); undefined leaves it out (the broker's default: one). */
  partitions: number | undefined;
  checker: Checker;
  progress: ConsumeProgress;
  /** Checked before every pop. */
  shouldStop: () => boolean;
  /** Called for every received message with the wall-clock receipt time and whether it is its first receipt. */
  onMessage?: (message: PopMessage, receivedAtWallMs: number, first: boolean) => void;
}

/** Pops (and acks) until `shouldStop()` says so. */
export async function runConsumer(options: ConsumerOptions): Promise<void> {
  const { client, queue, group, groupLabel, checker, progress, onMessage } = options;
  while (!options.shouldStop()) {
    let response;
    const requestedAt = now();
    try {
      response = await client.pop(queue, {
        batch: options.batch, wait: true, timeoutMs: options.timeoutMs, autoAck: options.autoAck,
        ...(options.partitions === undefined ? {} : { partitions: options.partitions }),
        ...(group === undefined ? {} : { consumerGroup: group }),
      });
    } catch (error) {
      progress.popErrors++;
      progress.lastError = `pop: ${describeError(error)}`;
      await sleep(100);
      continue;
    }
    progress.pops++;
    if (response.statusCode !== 200 && response.statusCode !== 204) {
      progress.popErrors++;
      progress.lastError = `pop: HTTP ${response.statusCode}`;
      await sleep(100);
      continue;
    }
    if (response.messages.length === 0) {
      progress.emptyPops++;
      continue;
    }

    const receivedAt = wallClockMs();
    const pop = { id: nextPopId++, requestedAt, receivedAt: now() };
    if (Number.isNaN(progress.firstReceiveAt)) progress.firstReceiveAt = pop.receivedAt;
    const handles = response.messages.map((message) => {
      const first = !progress.seen.has(message.transactionId);
      if (first) progress.seen.add(message.transactionId);
      progress.deliveries++;
      onMessage?.(message, receivedAt, first);
      return checker.recordDelivery({
        group: groupLabel, partition: message.partition, transactionId: message.transactionId, acked: options.autoAck, pop,
      });
    });
    if (options.autoAck) {
      for (const message of response.messages) progress.complete(message.transactionId);
      continue;
    }

    const succeeded = await acknowledge(options, response.messages, response.leaseId);
    response.messages.forEach((message, index) => {
      const handle = handles[index];
      if (succeeded[index] === true && handle !== undefined) {
        checker.recordAck(handle);
        progress.complete(message.transactionId);
      } else {
        progress.ackFailures++;
      }
    });
  }
}

async function acknowledge(options: ConsumerOptions, messages: readonly PopMessage[], batchLeaseId: string | null): Promise<boolean[]> {
  const succeeded = messages.map(() => false);
  try {
    const response = await options.client.ack(messages.map((m) => ({
      transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId ?? batchLeaseId, status: 'completed' as const,
    })), options.group);
    if (response.statusCode < 200 || response.statusCode >= 300) options.progress.lastError = `ack: HTTP ${response.statusCode}`;
    response.results.forEach((result, position) => {
      if (result === undefined) return;
      succeeded[position] = result.success;
      if (!result.success && result.error !== null) options.progress.lastError = `ack: ${result.error}`;
    });
  } catch (error) {
    options.progress.lastError = `ack: ${describeError(error)}`;
  }
  return succeeded;
}

/** Starts `count` consumers with the same options and waits for all of them. */
export async function runConsumers(count: number, options: ConsumerOptions): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => runConsumer(options)));
}
