/**
 * Push (docs/client.md): the payload rule, client-minted UUIDv7 transactionIds (so a retried push
 * deduplicates instead of duplicating), traceId filtering, and the per-status callbacks. The callback
 * dispatch (push-wire.ts) is shared with the client-side buffer, whose flushes complete pushes made earlier.
 * With `{db}` the push goes through the caller's database client instead (the outbox): not buffered, and
 * acknowledged only in the sense that it is part of that client's transaction.
 */
import type { ClientContext } from './context.js';
import { QueenError } from './errors.js';
import { dispatchResults, pushFailed, sendPush, sendPushSql, toWireItems, withTraceContext, type PushCallbacks } from './push-wire.js';
import type { BufferedPush, BufferOptions, FailedResult, PushInput, PushItem, PushResultItem, SqlClient } from './types.js';

/** Where a push goes. */
export interface PushTarget {
  /** The queue name; throws VALIDATION when the builder has none (a rejection of the push, not a throw of push()). */
  queue: () => string;
  partition: string;
  buffer: Required<BufferOptions> | undefined;
  /** The caller's database client: the push goes through it (its transaction), never buffered. */
  db?: SqlClient | undefined;
}

/** The thenable returned by `queue().push()`; runs once, when awaited. */
export class PushBuilder<T, R = PushResultItem[]> implements PromiseLike<R> {
  private readonly callbacks: PushCallbacks<T> = {};
  private running: Promise<R> | undefined;

  constructor(
    private readonly ctx: ClientContext,
    private readonly target: PushTarget,
    private readonly inputs: readonly PushInput<T>[],
  ) {}

  /** Called with the queued (or broker-buffered) items and their results. */
  onSuccess(cb: (items: PushItem<T>[], results: PushResultItem[]) => unknown): this {
    this.callbacks.onSuccess = cb;
    return this;
  }

  /** Called with the items the broker already had. */
  onDuplicate(cb: (items: PushItem<T>[], error: QueenError) => unknown): this {
    this.callbacks.onDuplicate = cb;
    return this;
  }

  /** Called with failed items (or all items on a transport failure); the push then resolves instead of rejecting. */
  onError(cb: (items: PushItem<T>[], error: QueenError) => unknown): this {
    this.callbacks.onError = cb;
    return this;
  }

  then<A = R, B = never>(onfulfilled?: ((value: R) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    this.running ??= this.run();
    return this.running.then(onfulfilled, onrejected);
  }

  private async run(): Promise<R> {
    this.ctx.assertOpen();
    let queue: string;
    try {
      queue = this.target.queue();
    } catch (error) {
      if (!this.callbacks.onError) throw error;
      await this.callbacks.onError([], error as QueenError);
      return [] as R;
    }
    const items = toWireItems(queue, this.target.partition, this.inputs, this.ctx.logger);
    const telemetry = this.ctx.telemetry;
    if (telemetry === null) return this.send(queue, items);
    return telemetry.publish(queue, items.length, (carrier) => this.send(queue, withTraceContext(items, carrier)));
  }

  /** Buffers or sends the wire items and dispatches the results to the callbacks. */
  private async send(queue: string, items: PushItem<T>[]): Promise<R> {
    const db = this.target.db;
    if (this.target.buffer && !db) {
      await this.ctx.buffers.add(queue, this.target.partition, this.target.buffer, items, this.callbacks as PushCallbacks<unknown>);
      return { buffered: true, count: items.length } satisfies BufferedPush as R;
    }
    if (items.length === 0) return [] as R;
    let results: PushResultItem[];
    try {
      results = db ? await sendPushSql(db, items) : await sendPush(this.ctx.transport, items);
    } catch (error) {
      // A database failure aborted the caller's transaction: it rejects even with onError attached.
      if (db || !this.callbacks.onError) throw error;
      await this.callbacks.onError(items, error as QueenError);
      return [] as R;
    }
    const failed = await dispatchResults(items, results, this.callbacks);
    if (failed.length > 0 && !this.callbacks.onError) throw pushFailed(failed);
    return results as R;
  }
}
