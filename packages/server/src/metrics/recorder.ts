/**
 * The recorder: what the request paths call when a push, pop, ack or HTTP request completes.
 *
 * Everything here is in memory and proportional to the request, never a database statement: it feeds the
 * Prometheus counters, the per-minute accumulator (flushed later by the stats service) and the 60-second
 * rates of `GET /metrics`. Work per request is one pass over its items, aggregated per queue first so that
 * a batch of a thousand messages costs a thousand additions and one counter increment per queue.
 */
import { performance } from 'node:perf_hooks';
import type { AckRequestItem } from '../core/ack.js';
import type { PopRequest, PopResult } from '../core/pop.js';
import type { PushOutcome } from '../core/push.js';
import type { AckResult } from '../store/cursors.js';
import { classifyDatabaseError } from '../store/database.js';
import { NO_QUEUE, OpsAccumulator, type OpCounters } from './ops.js';
import type { PrometheusFamilies } from './prometheus.js';
import { RateCounter } from './rates.js';

/** One answered HTTP request as the transport describes it: labels and what the counters need to know. */
export interface AnsweredRequest {
  /** Its route pattern (or `unmatched`), method and status, as Prometheus labels. */
  route: string;
  method: string;
  status: string;
  /** The broker failed it (a server error): counted in the per-minute errors. */
  failed: boolean;
  /** A transaction was answered (counted under NO_QUEUE: a transaction may span queues). */
  transaction: boolean;
}

/** Ends the tracking of one HTTP request. */
export type RequestEnd = (request: AnsweredRequest) => void;

/** Records completed operations into counters, the per-minute accumulator and the rates. */
export class Recorder {
  /** Per-minute counters by queue, drained by the stats service. */
  readonly ops: OpsAccumulator;
  /** Answered HTTP requests: total and rate. */
  readonly requests: RateCounter;
  /** Pushed messages: total and rate. */
  readonly messages: RateCounter;
  private inflight = 0;

  constructor(private readonly families: PrometheusFamilies, private readonly now: () => number = Date.now) {
    this.ops = new OpsAccumulator(now);
    this.requests = new RateCounter(now);
    this.messages = new RateCounter(now);
  }

  /** Requests being served right now (parked pops included). */
  get inflightRequests(): number {
    return this.inflight;
  }

  /** Starts tracking one HTTP request; call the returned function once its response is finished. */
  begin(): RequestEnd {
    this.inflight += 1;
    const startedAt = performance.now();
    return ({ route, method, status, failed, transaction }) => {
      this.inflight -= 1;
      this.families.httpRequests.inc({ route, method, status });
      this.families.httpDuration.observe({ route }, (performance.now() - startedAt) / 1000);
      this.requests.add();
      if (failed) this.ops.at(NO_QUEUE).errors += 1;
      if (transaction) this.ops.at(NO_QUEUE).transactions += 1;
    };
  }

  /** A push was answered: one request (under its first item's queue) and the queued messages per queue. */
  pushed(outcomes: readonly PushOutcome[]): void {
    this.ops.at(outcomes[0]?.queue ?? NO_QUEUE).pushRequests += 1;
    const perQueue = new Map<string, number>();
    for (const outcome of outcomes) {
      if (outcome.status === 'queued') perQueue.set(outcome.queue, (perQueue.get(outcome.queue) ?? 0) + 1);
    }
    for (const [queue, count] of perQueue) this.written(queue, count);
  }

  /** Buffered messages were written to the log by the replay (docs/api.md 9.5): counted as pushed now, not as requests. */
  written(queue: string, count: number): void {
    this.ops.at(queue).pushMessages += count;
    this.families.pushed.inc({ queue: this.families.queueLabel(queue) }, count);
    this.messages.add(count);
  }

  /**
   * A pop was answered: one request (under its queue, or the first delivered message's queue for discovery
   * pops), the delivered messages per queue with their lag (now - segment createdAt), or the empty reason.
   * An autoAck pop settles its messages at delivery: they count as completed (processed) too.
   */
  popped(request: PopRequest, result: PopResult): void {
    if (result.kind === 'empty') {
      const counters = this.ops.at(request.queue ?? NO_QUEUE);
      counters.popRequests += 1;
      if (result.reason === 'error') counters.errors += 1;
      this.families.popEmpty.inc({ reason: result.reason });
      return;
    }
    const now = this.now();
    this.ops.at(request.queue ?? result.messages[0]?.queue ?? NO_QUEUE).popRequests += 1;
    // Messages come grouped by partition, so runs of one queue are long; createdAt is shared per segment.
    let run: { queue: string; count: number; lagSum: number; lagMax: number } | null = null;
    let lastCreatedAt = '';
    let lastLag = 0;
    for (const message of result.messages) {
      if (message.createdAt !== lastCreatedAt) {
        lastCreatedAt = message.createdAt;
        lastLag = Math.max(0, now - Date.parse(message.createdAt));
      }
      if (run === null || run.queue !== message.queue) {
        if (run !== null) this.delivered(run, request.autoAck);
        run = { queue: message.queue, count: 0, lagSum: 0, lagMax: 0 };
      }
      run.count += 1;
      run.lagSum += lastLag;
      run.lagMax = Math.max(run.lagMax, lastLag);
    }
    if (run !== null) this.delivered(run, request.autoAck);
  }

  /** An ack or ack batch was answered: one request, then per item its queue, status and outcome. */
  acked(items: readonly AckRequestItem[], results: readonly AckResult[]): void {
    this.ops.at(results[0]?.queueName ?? NO_QUEUE).ackRequests += 1;
    const perLabel = new Map<string, { queue: string; status: string; count: number }>();
    results.forEach((result, i) => {
      const queue = result.queueName ?? NO_QUEUE;
      const status = result.success ? (items[i]?.status ?? 'completed') : 'rejected';
      const counters = this.ops.at(queue);
      if (result.success) {
        counters.ackMessages += 1;
        if (status === 'completed') counters.ackCompleted += 1;
        else if (status === 'failed' || status === 'retry') counters.ackFailed += 1;
      }
      if (result.dlq) {
        counters.dlqMoved += 1;
        this.families.deadLettered.inc({ queue: this.families.queueLabel(queue) });
      }
      const key = `${queue}\u0000${status}`;
      const label = perLabel.get(key);
      if (label === undefined) perLabel.set(key, { queue, status, count: 1 });
      else label.count += 1;
    });
    for (const { queue, status, count } of perLabel.values()) this.families.acked.inc({ queue: this.families.queueLabel(queue), status }, count);
  }

  /** A database failure surfaced (a request's error, a failed pop attempt, a background job). */
  failure(error: unknown): void {
    const failure = classifyDatabaseError(error);
    if (failure === 'other') return;
    const kind = failure === 'timeout' ? 'timeout' : failure === 'down' || failure === 'busy' ? 'connection' : 'query';
    this.families.dbErrors.inc({ kind });
    this.ops.at(NO_QUEUE).dbErrors += 1;
  }

  private delivered(run: { queue: string; count: number; lagSum: number; lagMax: number }, autoAck: boolean): void {
    const counters: OpCounters = this.ops.at(run.queue);
    counters.popMessages += run.count;
    counters.lagSumMs += run.lagSum;
    counters.lagMaxMs = Math.max(counters.lagMaxMs, run.lagMax);
    this.families.popped.inc({ queue: this.families.queueLabel(run.queue) }, run.count);
    if (autoAck) counters.ackCompleted += run.count;
  }
}
