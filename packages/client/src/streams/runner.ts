/**
 * The running stream: register, then pop → group by partition → plan → post stage and terminal → commit, plus
 * the idle-flush timer (docs/streams-sdk.md). Differences from the official runner, all on purpose:
 * - the partitions of a pop are committed concurrently, and the next pop starts while they commit
 *   (`pipelineDepth`); cycles and flushes of one partition still run strictly one after another, so a flush
 *   never races a cycle of this runner;
 * - a batch popped while `stop()` waits is processed, not left leased until the lease expires;
 * - the watermark is cached only after its cycle committed, and a failed or gate-aborted cycle is not counted;
 * - the processing-time flush clock follows the stream (see flushClock), not the runner's wall clock alone;
 * - window emits carry deterministic transactionIds (emit.ts), so a flush racing another runner's cycle or a
 *   replayed flush cycle does not duplicate output.
 */
import { configHashOf } from './config-hash.js';
import { applyPost, deliver, type Emit, type EmitSource } from './emit.js';
import { messageOf } from './errors.js';
import { planCycle } from './partition-cycle.js';
import type { Pipeline } from './pipeline.js';
import type { ErrorContext, RunOptions, SourceMessage, StreamHandle, StreamMetrics } from './types.js';
import { storedWindow, windowIdentity, type StateOp } from './window-reduce.js';
import { reduceSessions } from './session.js';
import { KEY_SEPARATOR } from './windows.js';
import { StreamsWire, type CycleRequest } from './wire.js';

const RECENT_MS = 5 * 60 * 1000;
const EMPTY_SLEEP_MS = 100;
const POP_ERROR_SLEEP_MS = 500;

interface Log {
  info(msg: string, meta?: object): void;
  warn(msg: string, meta?: object): void;
  error(msg: string, meta?: object): void;
}

function resolveLog(logger: RunOptions['logger']): Log {
  if (logger) {
    const guard = (fn: ((msg: string, meta?: object) => void) | undefined) => (msg: string, meta?: object) => {
      try {
        fn?.call(logger, msg, meta);
      } catch {
        // a throwing logger must not stop the stream
      }
    };
    return { info: guard(logger.info), warn: guard(logger.warn), error: guard(logger.error) };
  }
  return { info() {}, warn: (m, meta) => console.warn(`[queen-streams] WARN ${m}`, meta ?? ''), error: (m, meta) => console.error(`[queen-streams] ERROR ${m}`, meta ?? '') };
}

/** A stream started by `run()`. */
export class StreamRunner implements StreamHandle {
  private readonly wire: StreamsWire;
  private readonly log: Log;
  private readonly group: string;
  private readonly stats: StreamMetrics;
  private serverQueryId = '';
  private stopped = false;
  private loopDone: Promise<void> = Promise.resolve();
  private flushTimer: ReturnType<typeof setInterval> | undefined;
  private flushing: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly recent = new Map<string, { partition: string; touchedAt: number }>();
  private readonly watermarks = new Map<string, number>();
  /** Processing time: each shard's last committed cycle clock and when it committed (the flush clock's base). */
  private readonly streamTimes = new Map<string, { clock: number; at: number }>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly pipeline: Pipeline,
    private readonly options: RunOptions,
  ) {
    if (!options || typeof options.queryId !== 'string' || options.queryId === '') throw new Error('run({ queryId }) is required');
    this.wire = new StreamsWire(options.url, options.bearerToken);
    this.log = resolveLog(options.logger);
    this.group = options.consumerGroup ?? `streams.${options.queryId}`;
    this.stats = {
      cyclesTotal: 0,
      flushCyclesTotal: 0,
      messagesTotal: 0,
      pushItemsTotal: 0,
      stateOpsTotal: 0,
      lateEventsTotal: 0,
      errorsTotal: 0,
      gateAllowsTotal: 0,
      gateDenialsTotal: 0,
      lastCycleAt: null,
      lastFlushAt: null,
      lastError: null,
      queryId: options.queryId,
      serverQueryId: null,
    };
  }

  /** Registers the query, arms the flush timer and starts the loop. */
  async start(): Promise<this> {
    const p = this.pipeline;
    const sink = p.terminal?.kind === 'sink' ? p.terminal.queue : undefined;
    const reg = await this.wire.register({
      name: this.options.queryId,
      source_queue: p.sourceQueue,
      config_hash: await configHashOf(p.descriptors),
      reset: this.options.reset === true,
      ...(sink ? { sink_queue: sink } : {}),
    });
    this.serverQueryId = reg.query_id;
    this.stats.serverQueryId = reg.query_id;
    this.log.info('query registered', { queryId: this.options.queryId, serverQueryId: reg.query_id, fresh: reg.fresh, reset: reg.reset });
    if (p.keyBy) {
      this.log.warn('.keyBy() is set: if the derived key differs from the source partition, several workers may write the same logical key in different shards. Consider repartitioning through a queue partitioned by that key.');
    }
    if (p.window && p.window.idleFlushMs > 0) {
      this.flushTimer = setInterval(() => {
        if (!this.flushing && !this.isStopped()) this.flushing = this.flushTick().finally(() => (this.flushing = undefined));
      }, p.window.idleFlushMs);
      (this.flushTimer as { unref?: () => void }).unref?.();
    }
    this.options.abortSignal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.loopDone = this.loop();
    return this;
  }

  /** Stops the loop and the flush timer; waits for the current iteration and any flush. Never releases leases. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = undefined;
    this.wake?.();
    await this.loopDone;
    await this.flushing;
  }

  /** A snapshot of the counters. */
  metrics(): StreamMetrics {
    return { ...this.stats };
  }

  private isStopped(): boolean {
    if (this.options.abortSignal?.aborted) this.stopped = true;
    return this.stopped;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private report(error: unknown, context: ErrorContext): void {
    this.stats.errorsTotal++;
    this.stats.lastError = messageOf(error);
    this.log.error(`${context.phase} failed`, { queryId: this.options.queryId, partition: context.partition, error: this.stats.lastError });
    try {
      this.options.onError?.(error, context);
    } catch {
      // a throwing onError must not stop the stream
    }
  }

  private async loop(): Promise<void> {
    const depth = Math.max(1, Math.floor(this.options.pipelineDepth ?? 4));
    const inFlight = new Set<Promise<void>>();
    while (!this.isStopped()) {
      let messages: SourceMessage[];
      try {
        messages = await this.wire.pop({
          queue: this.pipeline.sourceQueue,
          group: this.group,
          batch: this.options.batchSize ?? 200,
          partitions: this.options.maxPartitions ?? 4,
          timeoutMillis: this.options.maxWaitMillis ?? 1000,
          subscriptionMode: this.options.subscriptionMode,
          subscriptionFrom: this.options.subscriptionFrom,
        });
      } catch (error) {
        this.report(error, { phase: 'pop' });
        await this.sleep(POP_ERROR_SLEEP_MS);
        continue;
      }
      if (messages.length === 0) {
        await this.sleep(EMPTY_SLEEP_MS);
        continue;
      }
      const batch = Promise.all([...groupByPartition(messages)].map(([pid, group]) => this.locked(pid, () => this.cycle(pid, group)))).then(() => undefined);
      inFlight.add(batch);
      void batch.finally(() => inFlight.delete(batch));
      while (inFlight.size >= depth) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    this.log.info('loop stopped', { queryId: this.options.queryId });
  }

  /** Runs `task` after every earlier task of partition `pid` (cycles and flushes of one shard never overlap). */
  private locked(pid: string, task: () => Promise<void>): Promise<void> {
    const previous = this.locks.get(pid) ?? Promise.resolve();
    const next = previous.then(task, task);
    this.locks.set(pid, next);
    void next.finally(() => {
      if (this.locks.get(pid) === next) this.locks.delete(pid);
    });
    return next;
  }

  private async cycle(pid: string, messages: SourceMessage[]): Promise<void> {
    const partition = messages[0]!.partition;
    this.recent.set(pid, { partition, touchedAt: Date.now() });
    try {
      const plan = await planCycle(this.pipeline, messages, {
        partitionId: pid,
        partition,
        cachedWatermark: this.watermarks.get(pid),
        loadState: () => this.wire.stateGet({ query_id: this.serverQueryId, partition_id: pid, keys: [] }),
        report: (error, context) => this.report(error, context),
      });
      if (plan.gateFailure) {
        this.report(plan.gateFailure.error, { phase: 'gate-eval', partition: pid, messages });
        return;
      }
      this.stats.lateEventsTotal += plan.lateEvents;
      this.stats.gateAllowsTotal += plan.gateAllows;
      this.stats.gateDenialsTotal += plan.gateDenials;
      if (!plan.ack) return; // a gate denied the first message: the lease runs out, the batch comes back
      const pushed = await this.commit(pid, partition, plan.stateOps, plan.emits, {
        transactionId: plan.ack.message.transactionId,
        leaseId: plan.ack.message.leaseId,
        status: 'completed',
        count: plan.ack.count,
      }, plan.releaseLease);
      if (plan.watermark !== undefined) this.watermarks.set(pid, plan.watermark);
      if (plan.streamTime !== undefined) this.streamTimes.set(pid, { clock: plan.streamTime, at: Date.now() });
      this.stats.cyclesTotal++;
      this.stats.messagesTotal += plan.ack.count;
      this.stats.stateOpsTotal += plan.stateOps.length;
      this.stats.pushItemsTotal += pushed;
      this.stats.lastCycleAt = new Date().toISOString();
    } catch (error) {
      this.report(error, { phase: 'cycle', partition: pid, messages });
    }
  }

  /** Post stage, terminal and `/cycle`; resolves with the number of push items. */
  private async commit(pid: string, partition: string, stateOps: StateOp[], emits: Emit[], ack: CycleRequest['ack'], releaseLease: boolean): Promise<number> {
    const source: EmitSource = { partition, partitionId: pid, queryId: this.serverQueryId };
    const out = await applyPost(this.pipeline.post, emits, source);
    const pushItems = await deliver(this.pipeline.terminal, out, source);
    await this.wire.cycle({ query_id: this.serverQueryId, partition_id: pid, consumer_group: this.group, state_ops: stateOps, push_items: pushItems, ack, release_lease: releaseLease });
    return pushItems.length;
  }

  private async flushTick(): Promise<void> {
    const cutoff = Date.now() - RECENT_MS;
    for (const [pid, info] of [...this.recent]) {
      if (this.isStopped()) break;
      if (info.touchedAt < cutoff) {
        this.recent.delete(pid);
        continue;
      }
      await this.locked(pid, async () => {
        try {
          await this.flushPartition(pid, info.partition);
        } catch (error) {
          this.report(error, { phase: 'flush', partition: pid });
        }
      });
    }
    this.stats.lastFlushAt = new Date().toISOString();
  }

  /**
   * The processing-time flush clock: the shard's last cycle clock (a `createdAt`) advanced by the wall time since
   * that cycle committed. Upstream uses `Date.now()`, which closes windows early while a backlog of older
   * messages is still being worked through (each window then comes out in pieces) and mixes the broker's
   * clock with the runner's; this clock only runs ahead of the stream while the partition is quiet.
   */
  private flushClock(pid: string): number {
    const last = this.streamTimes.get(pid);
    return last ? last.clock + (Date.now() - last.at) : Date.now();
  }

  /** Emits the partition's windows that are ripe by the flush clock, in an ack-less flush cycle. */
  private async flushPartition(pid: string, partition: string): Promise<void> {
    const w = this.pipeline.window!;
    const clock = w.eventTime ? this.watermarks.get(pid) : this.flushClock(pid);
    if (clock === undefined || !this.pipeline.reducer) return;
    let stateOps: StateOp[];
    let emits: Emit[];
    if (w.kind === 'session') {
      const rows = await this.wire.stateGet({ query_id: this.serverQueryId, partition_id: pid, key_prefix: `${w.tag}${KEY_SEPARATOR}open${KEY_SEPARATOR}` });
      ({ stateOps, emits } = await reduceSessions({ rows, events: [], tag: w.tag, gapMs: w.gapMs, graceMs: w.graceMs, clock, reducer: this.pipeline.reducer }));
    } else {
      const ripeAt = clock - w.graceMs;
      const rows = await this.wire.stateGet({ query_id: this.serverQueryId, partition_id: pid, key_prefix: `${w.tag}${KEY_SEPARATOR}`, ripe_at_or_before: ripeAt, consumer_group: this.group });
      stateOps = [];
      emits = [];
      for (const [key, value] of rows) {
        const row = storedWindow(key, value, w.tag);
        if (!row || row.windowEnd > ripeAt) continue;
        emits.push({ key: row.key, value: row.acc, windowKey: row.windowKey, windowStart: row.windowStart, windowEnd: row.windowEnd, identity: windowIdentity(key, row.origin, row.acc) });
        stateOps.push({ type: 'delete', key });
      }
    }
    if (emits.length === 0) return;
    const pushed = await this.commit(pid, partition, stateOps, emits, null, true);
    this.stats.flushCyclesTotal++;
    this.stats.stateOpsTotal += stateOps.length;
    this.stats.pushItemsTotal += pushed;
  }
}

function groupByPartition(messages: SourceMessage[]): Map<string, SourceMessage[]> {
  const groups = new Map<string, SourceMessage[]>();
  for (const m of messages) {
    const list = groups.get(m.partitionId);
    if (list) list.push(m);
    else groups.set(m.partitionId, [m]);
  }
  return groups;
}

