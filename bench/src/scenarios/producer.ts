/**
 * The producer loop shared by every scenario that pushes.
 *
 * Design: a producer sends one push at a time (so its own messages reach each partition in its sequence
 * order, which the checker relies on), drawing item counts from a shared WorkBudget and partitions from a
 * shared PartitionRotation. Each item carries a ~35-byte payload {seq, ts} where ts is the wall-clock send
 * time, used for end-to-end latency. Accepted items (queued/buffered) go to the checker; items and requests
 * that fail are counted and refunded to the budget. 100 consecutive failed requests abort the run.
 */
import type { Checker } from '../checker.js';
import type { PushItem, QueenClient } from '../http.js';
import type { Samples } from '../stats.js';
import { describeError, now, sleep, wallClockMs, type PartitionRotation, type WorkBudget } from './common.js';

const MAX_CONSECUTIVE_FAILURES = 100;

/** Counters shared by the producers of one run. */
export interface ProducerTotals {
  requests: number;
  accepted: number;
  failedRequests: number;
  failedItems: number;
  lastError: string | null;
}

/** A fresh zeroed ProducerTotals. */
export function producerTotals(): ProducerTotals {
  return { requests: 0, accepted: 0, failedRequests: 0, failedItems: 0, lastError: null };
}

/** The payload every benchmark message carries. */
export interface BenchPayload {
  seq: number;
  /** Wall-clock send time in ms (performance.timeOrigin + performance.now()). */
  ts: number;
}

/** What one producer needs. */
export interface ProducerOptions {
  client: QueenClient;
  queue: string;
  /** Label of this producer (checker "producer" and part of each transaction id). */
  producerId: string;
  /** Run tag making transaction ids unique per run. */
  tag: string;
  batchSize: number;
  budget: WorkBudget;
  rotation: PartitionRotation;
  spread: 'request' | 'item';
  /** Receives the latency (ms) of every 2xx push request. */
  latency: Samples;
  totals: ProducerTotals;
  checker?: Checker;
}

/** Pushes until the budget is exhausted. */
export async function runProducer(options: ProducerOptions): Promise<void> {
  const { client, queue, producerId, tag, batchSize, budget, rotation, spread, latency, totals, checker } = options;
  let seq = 0;
  let consecutiveFailures = 0;
  const fail = async (count: number, reason: string): Promise<void> => {
    totals.failedRequests++;
    totals.lastError = reason;
    budget.refund(count);
    if (++consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) {
      throw new Error(`producer ${producerId}: ${consecutiveFailures} consecutive failed pushes (last: ${reason})`);
    }
    await sleep(50);
  };

  for (;;) {
    const count = budget.take(batchSize);
    if (count === 0) return;
    const requestPartition = spread === 'request' ? rotation.take() : '';
    const sentAt = Math.round(wallClockMs() * 1000) / 1000;
    const items: PushItem[] = [];
    const seqs: number[] = [];
    for (let i = 0; i < count; i++) {
      const itemSeq = seq++;
      seqs.push(itemSeq);
      const payload: BenchPayload = { seq: itemSeq, ts: sentAt };
      items.push({
        queue,
        partition: spread === 'request' ? requestPartition : rotation.take(),
        payload,
        transactionId: `${tag}.${producerId}.${itemSeq}`,
      });
    }

    const started = now();
    let response;
    try {
      response = await client.push(items);
    } catch (error) {
      await fail(count, describeError(error));
      continue;
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      await fail(count, `HTTP ${response.statusCode}`);
      continue;
    }
    latency.add(now() - started);
    totals.requests++;
    consecutiveFailures = 0;

    const statusByIndex = new Map(response.results.map((r) => [r.index, r]));
    items.forEach((item, index) => {
      const result = statusByIndex.get(index);
      if (result !== undefined && (result.status === 'queued' || result.status === 'buffered')) {
        totals.accepted++;
        checker?.recordPush({ transactionId: item.transactionId, partition: item.partition, producer: producerId, seq: seqs[index] ?? 0 });
      } else {
        totals.failedItems++;
        totals.lastError = `item ${result?.status ?? 'missing'}${result?.error ? `: ${result.error}` : ''}`;
        budget.refund(1);
      }
    });
  }
}

/** Starts `count` producers labelled <prefix>0.., waits for all of them, then rethrows the first failure. */
export async function runProducers(count: number, prefix: string, shared: Omit<ProducerOptions, 'producerId'>): Promise<void> {
  const outcomes = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => runProducer({ ...shared, producerId: `${prefix}${i}` })));
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
}
