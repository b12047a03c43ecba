/**
 * The consume loop (docs/client.md): `concurrency` loops each pop, run the handler, ack, repeat. Ordering per
 * partition comes from the broker (one live lease per partition and group); the loops only add parallelism
 * across partitions.
 *
 * `limit` is enforced by reservation: before a pop a loop reserves the messages it asks for, and a message stays
 * counted (reserved, then in hand) until its handler has finished, so concurrent loops never pop more than will
 * be handled. A loop that finds the limit fully reserved by others waits and re-checks, because a short pop of
 * another loop gives room back.
 *
 * Two ways to stop: a soft stop (limit reached, idle) only prevents new pops, because an in-flight pop may
 * already have been answered by the broker and aborting it would leave its messages leased until expiry (its
 * long poll is capped to the idle time left, so it ends soon anyway). A hard stop (the caller's signal, close(),
 * a fatal error) also aborts in-flight pops (docs/client.md rule 8). Messages already in hand are still handled
 * and acked in both cases.
 */
import { BUILDER_DEFAULTS } from './defaults.js';
import type { ClientContext } from './context.js';
import { errorMessage, QueenError } from './errors.js';
import { popOnce, type PopSpec } from './pop.js';
import { isCallerError, sleep } from './retry.js';
import type { AckResponse, AckStatus, ConsumeOptions, ConsumeResult, Message } from './types.js';

/** `'batch'`: the handler gets the popped array; `'each'`: one message at a time. */
export type ConsumeMode = 'batch' | 'each';

/** What one handler call receives in mode `M`. */
export type ConsumeInput<T, M extends ConsumeMode> = M extends 'each' ? Message<T> : Message<T>[];

/** The consume handler of mode `M`. */
export type ConsumeHandler<T, M extends ConsumeMode> = (input: ConsumeInput<T, M>) => unknown;

/** The consume side of a queue builder's state. */
export interface ConsumeSpec extends PopSpec {
  each: boolean;
  limit: number | undefined;
  idleMillis: number | undefined;
  concurrency: number;
  renewIntervalMillis: number | undefined;
}

interface LoopState {
  processed: number;
  failed: number;
  handled: number;
  inHand: number;
  reserved: number;
  lastMessageAt: number;
  fatal: unknown;
  /** Soft stop: no loop starts a new pop; in-flight pops finish. */
  stopping: boolean;
}

/** How long a loop waits before re-checking a limit that other loops have fully reserved. */
const LIMIT_RECHECK_MILLIS = 50;

/** Shortest renew interval: a smaller one would flood the broker with lease extensions. */
export const MIN_RENEW_INTERVAL_MILLIS = 1000;

/**
 * What `consume()` returns: a Promise of `{processed, failed}` (so `.then`, `.catch`, `.finally` and `await`
 * all work) that also takes `.onSuccess()`/`.onError()`. The loops start when it is first awaited or chained,
 * or at the latest on the next macrotask, so the callbacks attached right after `consume()` always apply.
 */
export class ConsumeBuilder<T, M extends ConsumeMode> implements Promise<ConsumeResult> {
  readonly [Symbol.toStringTag] = 'Promise';
  private successCb: ((input: ConsumeInput<T, M>, result: unknown) => unknown) | undefined;
  private errorCb: ((input: ConsumeInput<T, M>, error: unknown) => unknown) | undefined;
  private running: Promise<ConsumeResult> | undefined;

  constructor(
    private readonly ctx: ClientContext,
    private readonly spec: ConsumeSpec,
    private readonly handler: ConsumeHandler<T, M>,
    private readonly options: ConsumeOptions,
  ) {
    // Started even when nobody awaits it (a fire-and-forget consume still consumes), after the builder calls.
    setTimeout(() => void this.start().catch(() => undefined), 0);
  }

  private start(): Promise<ConsumeResult> {
    this.running ??= this.run();
    return this.running;
  }

  /** Called after each successful handler call; it then owns the acking (auto-ack turns off). */
  onSuccess(cb: (input: ConsumeInput<T, M>, result: unknown) => unknown): this {
    this.successCb = cb;
    return this;
  }

  /** Called after each failed handler call; it then owns the acking (auto-ack turns off). */
  onError(cb: (input: ConsumeInput<T, M>, error: unknown) => unknown): this {
    this.errorCb = cb;
    return this;
  }

  then<A = ConsumeResult, B = never>(onfulfilled?: ((value: ConsumeResult) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.start().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<ConsumeResult | B> {
    return this.start().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<ConsumeResult> {
    return this.start().finally(onfinally);
  }

  private async run(): Promise<ConsumeResult> {
    this.ctx.assertOpen();
    const controller = new AbortController();
    const external = this.options.signal;
    const onAbort = () => controller.abort();
    if (external?.aborted) controller.abort();
    external?.addEventListener('abort', onAbort, { once: true });
    const state: LoopState = { processed: 0, failed: 0, handled: 0, inHand: 0, reserved: 0, lastMessageAt: Date.now(), fatal: undefined, stopping: false };
    // A loop that throws is fatal for the whole consume, but every other loop is still awaited (allSettled
    // semantics): nothing keeps running untracked after the promise settles.
    const loops = Array.from({ length: Math.max(1, this.spec.concurrency) }, () =>
      this.loop(state, controller).catch((error: unknown) => {
        state.fatal ??= error;
        controller.abort();
      }),
    );
    const done = Promise.all(loops).then(() => undefined);
    const untrack = this.ctx.track({ stop: onAbort, done });
    try {
      await done;
    } finally {
      untrack();
      external?.removeEventListener('abort', onAbort);
    }
    if (state.fatal !== undefined) throw state.fatal;
    return { processed: state.processed, failed: state.failed };
  }

  private async loop(state: LoopState, controller: AbortController): Promise<void> {
    const { spec } = this;
    const signal = controller.signal;
    // Idle means "polled and found nothing for idleMillis": a loop that starts late (its process busy, e.g. the
    // first request of a process loading its HTTP stack) polls once before it may call the consume idle.
    let polled = false;
    while (!signal.aborted && !state.stopping) {
      let want = spec.batch;
      if (spec.limit !== undefined) {
        const room = spec.limit - state.handled - state.inHand - state.reserved;
        if (room <= 0) {
          if (state.handled >= spec.limit) {
            state.stopping = true;
            break;
          }
          await sleep(LIMIT_RECHECK_MILLIS, signal).catch(() => undefined);
          continue;
        }
        want = Math.min(want, room);
      }
      let pollMillis: number | undefined;
      if (spec.idleMillis !== undefined) {
        // While another loop handles messages the consume is not idle: poll for the full idle time.
        const left = state.inHand > 0 ? spec.idleMillis : spec.idleMillis - (Date.now() - state.lastMessageAt);
        if (left <= 0 && polled) {
          this.ctx.logger.debug('consume idle: no new pops', { queue: spec.queue, idleMillis: spec.idleMillis });
          state.stopping = true;
          break;
        }
        if (spec.wait) pollMillis = Math.max(0, Math.min(spec.timeoutMillis, Math.ceil(left)));
      }
      state.reserved += want;
      polled = true;
      let messages: Message<T>[];
      try {
        messages = await popOnce<T>(this.ctx.transport, spec, { batch: want, sendAutoAck: false, signal, ...(pollMillis !== undefined ? { timeoutMillis: pollMillis } : {}) });
      } catch (error) {
        state.reserved -= want;
        if (error instanceof QueenError && error.code === 'ABORTED') break;
        if (error instanceof QueenError && error.code === 'TIMEOUT' && spec.wait) continue;
        if (!(error instanceof QueenError) || isCallerError(error)) throw error;
        this.ctx.logger.warn('consume pop failed, re-polling in 1 s', { queue: spec.queue, code: error.code, status: error.status, error: error.message });
        this.progress(() => this.options.onPopRetry?.(error));
        await sleep(1000, signal).catch(() => undefined);
        continue;
      }
      state.reserved -= want;
      if (messages.length === 0) {
        if (!spec.wait) await sleep(100, signal).catch(() => undefined);
        continue;
      }
      state.lastMessageAt = Date.now();
      state.inHand += messages.length;
      try {
        if (spec.each) await this.handleEach(messages, state);
        else await this.handleBatch(messages, state);
      } finally {
        state.lastMessageAt = Date.now();
      }
      if (spec.limit !== undefined && state.handled >= spec.limit) state.stopping = true;
    }
  }

  private get autoAck(): boolean {
    return this.spec.autoAck !== false && this.successCb === undefined && this.errorCb === undefined;
  }

  private async handleEach(messages: Message<T>[], state: LoopState): Promise<void> {
    const skipped = new Set<string>();
    for (const message of messages) {
      if (skipped.has(message.partitionId)) {
        state.inHand -= 1; // not handled, not acked: it will be redelivered
        continue;
      }
      await this.traced([message], async (fail) => {
        const outcome = await this.call([message], () => (this.handler as ConsumeHandler<T, 'each'>)(message));
        // Counted in hand until here, so the limit never lets another loop pop in its place while it runs.
        state.inHand -= 1;
        state.handled += 1;
        const input = message as ConsumeInput<T, M>;
        if (outcome.ok) {
          state.processed += 1;
          if (this.successCb) await this.safely(() => this.successCb!(input, outcome.value));
          else if (this.autoAck) await this.ackLogged(message, 'completed');
        } else {
          fail(outcome.error);
          state.failed += 1;
          if (this.errorCb) await this.safely(() => this.errorCb!(input, outcome.error));
          else if (this.autoAck) {
            const answer = await this.ackLogged(message, 'failed', errorMessage(outcome.error));
            // Continue only when the broker positively moved it to the DLQ. A released lease means redelivery;
            // a lost answer may mean nothing was recorded, and the next message's cumulative `completed` ack
            // would then settle the failed one silently.
            if (answer.results[0]?.dlq !== true) skipped.add(message.partitionId);
          }
        }
      });
    }
  }

  /**
   * Runs a handler call with its ack inside a `process` span when the client has `telemetry` (the ack then
   * carries the span's context to the broker's `settle`); without it, runs it bare.
   */
  private traced(messages: Message<T>[], run: (fail: (error: unknown) => void) => Promise<void>): Promise<void> {
    const telemetry = this.ctx.telemetry;
    return telemetry === null ? run(() => undefined) : telemetry.process(this.spec.queue ?? '', messages, run);
  }

  private handleBatch(messages: Message<T>[], state: LoopState): Promise<void> {
    return this.traced(messages, async (fail) => {
      const outcome = await this.call(messages, () => (this.handler as ConsumeHandler<T, 'batch'>)(messages));
      state.inHand -= messages.length;
      state.handled += messages.length;
      const input = messages as ConsumeInput<T, M>;
      if (outcome.ok) {
        state.processed += messages.length;
        if (this.successCb) await this.safely(() => this.successCb!(input, outcome.value));
        else if (this.autoAck) await this.ackLogged(messages, 'completed');
      } else {
        fail(outcome.error);
        state.failed += messages.length;
        if (this.errorCb) await this.safely(() => this.errorCb!(input, outcome.error));
        else if (this.autoAck) await this.ackLogged(messages, 'failed', errorMessage(outcome.error));
      }
    });
  }

  /** Runs the handler, renewing its leases every interval while it runs (one renew in flight at a time). */
  private async call(messages: Message<T>[], run: () => unknown): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
    let timer: ReturnType<typeof setInterval> | undefined;
    let running = true;
    const interval = this.spec.renewIntervalMillis;
    if (interval !== undefined) {
      const seconds = Math.max(60, Math.ceil((2 * interval) / 1000));
      let renewing = false;
      timer = setInterval(() => {
        if (renewing) return;
        renewing = true;
        void this.ctx
          .renew(messages, seconds)
          .then((results) => {
            // A renew that lands after the handler ended is moot (the messages are acked or failed by now).
            if (!running) return;
            for (const r of results) if (!r.success) this.ctx.logger.warn('lease renewal failed', { leaseId: r.leaseId, error: r.error });
          })
          .finally(() => (renewing = false));
      }, interval);
    }
    try {
      return { ok: true, value: await run() };
    } catch (error) {
      return { ok: false, error };
    } finally {
      running = false;
      clearInterval(timer);
    }
  }

  private async safely(run: () => unknown): Promise<void> {
    try {
      await run();
    } catch (error) {
      this.ctx.logger.error('consume callback threw', { queue: this.spec.queue, error: errorMessage(error) });
    }
  }

  private async ackLogged(target: Message<T> | Message<T>[], status: AckStatus, error?: string): Promise<AckResponse> {
    const answer = await this.ctx.ack(target as Message | Message[], status, error === undefined ? {} : { error });
    const refused = this.options.onAckRefused;
    if (answer.results.length === 0 && answer.error !== undefined) {
      this.ctx.logger.error('ack failed', { queue: this.spec.queue, status, error: answer.error });
      for (const message of [target].flat()) this.progress(() => refused?.({ transactionId: message.transactionId, error: answer.error! }));
    }
    for (const item of answer.failed) {
      // In a failed batch the broker refuses the later messages of a partition on purpose.
      if (item.error?.startsWith('Not applied')) this.ctx.logger.debug('ack not applied', { transactionId: item.transactionId, error: item.error });
      else {
        this.ctx.logger.warn('ack refused', { transactionId: item.transactionId, status, error: item.error });
        this.progress(() => refused?.({ transactionId: item.transactionId, error: item.error ?? 'refused' }));
      }
    }
    return answer;
  }

  /** Runs a progress callback; one that throws is logged, and the consume goes on. */
  private progress(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.ctx.logger.error('consume callback threw', { queue: this.spec.queue, error: errorMessage(error) });
    }
  }
}

/**
 * The renew interval: the explicit one, else leaseSeconds x 500 ms when set (a lease of 0 or less counts as
 * unset), else 30 s; never below {@link MIN_RENEW_INTERVAL_MILLIS}.
 */
export function renewInterval(leaseSeconds: number | undefined, intervalMillis?: number): number {
  const chosen = intervalMillis ?? (leaseSeconds !== undefined && leaseSeconds > 0 ? leaseSeconds * 500 : BUILDER_DEFAULTS.renewIntervalMillis);
  return Math.max(MIN_RENEW_INTERVAL_MILLIS, Number.isFinite(chosen) ? chosen : BUILDER_DEFAULTS.renewIntervalMillis);
}
