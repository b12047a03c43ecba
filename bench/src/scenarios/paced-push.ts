/**
 * Paced single-item pushes over a partition rotation, two ways: closed-loop (producers that each wait for
 * their answer before the next slot) and open-loop (every slot sent on time, open-loop.ts).
 *
 * Design: the closed-loop figure says whether the pace holds with a fixed number of producers, which is a
 * push-latency figure (50 producers at 2 000 msgs/s need answers within 25 ms); the open-loop figure says
 * whether the broker absorbs the rate at all, with the queueing delay in front of the sends when it does
 * not. Both record every accepted message with the checker and put the wall-clock send time in the payload
 * for dwell. Failures are counted, not retried.
 */
import type { Checker } from '../checker.js';
import { QueenClient } from '../http.js';
import { Samples } from '../stats.js';
import { describeError, now, sleep, wallClockMs, type PartitionRotation } from './common.js';
import { runOpenLoop, type OpenLoopResult } from './open-loop.js';
import type { BenchPayload, ProducerTotals } from './producer.js';

/** Hands out send times at a fixed pace until a deadline (monotonic ms). */
export class Pacer {
  private index = 0;

  constructor(private readonly start: number, private readonly end: number, private readonly perSecond: number) {}

  /** The due time of the next send, or null when the schedule (or the time) is over: late slots are dropped. */
  next(): number | null {
    const due = this.start + (this.index * 1000) / this.perSecond;
    if (due >= this.end || now() >= this.end) return null;
    this.index++;
    return due;
  }
}

interface PacedOptions {
  client: QueenClient;
  queue: string;
  tag: string;
  producerId: string;
  pacer: Pacer;
  rotation: PartitionRotation;
  latency: Samples;
  lag: Samples;
  totals: ProducerTotals;
  checker: Checker;
}

/** Where one paced push goes and where it is counted. */
type PushTarget = Pick<PacedOptions, 'client' | 'queue' | 'latency' | 'totals' | 'checker'>;

/**
 * Pushes one item (its send time in the payload, for dwell) and counts the outcome: accepted items are recorded
 * with the checker, failures counted, not retried. True when the item was accepted.
 */
async function pushOne(target: PushTarget, partition: string, transactionId: string, producer: string, seq: number): Promise<boolean> {
  const { client, queue, latency, totals, checker } = target;
  const payload: BenchPayload = { seq, ts: Math.round(wallClockMs() * 1000) / 1000 };
  const started = now();
  try {
    const response = await client.push([{ queue, partition, payload, transactionId }]);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      totals.failedRequests++;
      totals.lastError = `HTTP ${response.statusCode}`;
      return false;
    }
    latency.add(now() - started);
    totals.requests++;
    const result = response.results[0];
    if (result?.status !== 'queued' && result?.status !== 'buffered') {
      totals.failedItems++;
      totals.lastError = `item ${result?.status ?? 'missing'}${result?.error ? `: ${result.error}` : ''}`;
      return false;
    }
    totals.accepted++;
    checker.recordPush({ transactionId, partition, producer, seq });
    return true;
  } catch (error) {
    totals.failedRequests++;
    totals.lastError = describeError(error);
    return false;
  }
}

/** One paced single-item producer: waits for its next slot, pushes, records. Failures are counted, not retried. */
export async function runPacedProducer(options: PacedOptions): Promise<void> {
  const { client, queue, tag, producerId, pacer, rotation, latency, lag, totals, checker } = options;
  let seq = 0;
  for (let due = pacer.next(); due !== null; due = pacer.next()) {
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    lag.add(Math.max(0, now() - due));
    const itemSeq = seq++;
    await pushOne({ client, queue, latency, totals, checker }, rotation.take(), `${tag}.${producerId}.${itemSeq}`, producerId, itemSeq);
  }
}

/** Requests in flight at most in the open-loop phase: 10x what 2 000 msgs/s needs at a 25 ms answer. */
export const OPEN_LOOP_MAX_IN_FLIGHT = 500;

/** What the open-loop phase needs. */
export interface OpenLoopPushOptions {
  /** The broker's URL: the phase opens a client of its own with one connection per in-flight request. */
  baseUrl: string;
  queue: string;
  tag: string;
  rate: number;
  durationMs: number;
  rotation: PartitionRotation;
  totals: ProducerTotals;
  checker: Checker;
}

/** The open-loop phase's result and the latency of its 2xx pushes. */
export interface OpenLoopPushResult extends OpenLoopResult {
  latency: Samples;
}

/**
 * Sends single-item pushes on schedule. Each slot is its own producer label modulo the cap (o0..), with
 * the slot number as sequence, so the checker's per-producer order holds for sends that overlap.
 */
export async function runOpenLoopPush(options: OpenLoopPushOptions): Promise<OpenLoopPushResult> {
  const { queue, tag, rotation, totals, checker } = options;
  const client = new QueenClient(options.baseUrl, OPEN_LOOP_MAX_IN_FLIGHT);
  const latency = new Samples();
  try {
    const result = await runOpenLoop({
      start: now(), durationMs: options.durationMs, rate: options.rate, maxInFlight: OPEN_LOOP_MAX_IN_FLIGHT,
      send: (slot) => {
        const producer = `o${slot % OPEN_LOOP_MAX_IN_FLIGHT}`;
        return pushOne({ client, queue, latency, totals, checker }, rotation.take(), `${tag}.${producer}.${slot}`, producer, slot);
      },
    });
    return { ...result, latency };
  } finally {
    await client.close();
  }
}
