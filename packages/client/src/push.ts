/**
 * Push (CLIENT.md §5.1): the payload rule, client-minted UUIDv7 transactionIds (so a retried push
 * deduplicates instead of duplicating), traceId filtering, and the per-status callbacks. The callback
 * dispatch is shared with the client-side buffer, whose flushes complete pushes made earlier.
 */
import type { ClientContext } from './context.js';
import { QueenError } from './errors.js';
import type { Transport } from './http.js';
import { isUuid, uuidv7 } from './ids.js';
import type { SafeLogger } from './log.js';
import type { BufferedPush, BufferOptions, DuplicateResult, FailedResult, PushInput, PushItem, PushResultItem } from './types.js';

/** Callbacks attached to one push. */
export interface PushCallbacks<T> {
  onSuccess?: (items: PushItem<T>[], results: PushResultItem[]) => unknown;
  onDuplicate?: (items: PushItem<T>[], error: QueenError) => unknown;
  onError?: (items: PushItem<T>[], error: QueenError) => unknown;
}

/** Maps push inputs to wire items: payload from `data`, else `payload`, else the whole item. */
export function toWireItems<T>(queue: string, partition: string, inputs: readonly PushInput<T>[], logger: SafeLogger): PushItem<T>[] {
  return inputs.map((input) => {
    const record = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined;
    let payload: unknown = input;
    if (record && 'data' in record) payload = record.data;
    else if (record && 'payload' in record) payload = record.payload;
    const given = record?.transactionId;
    const item: PushItem<T> = { queue, partition, payload: payload as T, transactionId: typeof given === 'string' && given !== '' ? given : uuidv7() };
    const traceId = record?.traceId;
    if (traceId !== undefined && traceId !== null) {
      if (isUuid(traceId)) item.traceId = traceId;
      else logger.warn('traceId dropped: not a UUID', { queue, transactionId: item.transactionId });
    }
    return item;
  });
}

/**
 * Calls the callbacks with their own items: queued/buffered -> onSuccess, duplicate -> onDuplicate, failed ->
 * onError. Returns the failed results (the caller rejects with them when no onError was attached).
 */
export async function dispatchResults<T>(items: PushItem<T>[], results: PushResultItem[], callbacks: PushCallbacks<T>): Promise<FailedResult[]> {
  const pick = (statuses: string[]) => {
    const chosen: number[] = [];
    results.forEach((r, i) => statuses.includes(r.status) && chosen.push(i));
    return { items: chosen.map((i) => items[i]!), results: chosen.map((i) => results[i]!) };
  };
  const ok = pick(['queued', 'buffered']);
  const dup = pick(['duplicate']);
  const bad = pick(['failed']);
  if (callbacks.onSuccess && ok.items.length > 0) await callbacks.onSuccess(ok.items, ok.results);
  if (callbacks.onDuplicate && dup.items.length > 0) {
    await callbacks.onDuplicate(dup.items, new QueenError('PUSH_FAILED', 'Duplicate transactionId', { results: dup.results as DuplicateResult[] }));
  }
  const failed = bad.results as FailedResult[];
  if (callbacks.onError && failed.length > 0) await callbacks.onError(bad.items, pushFailed(failed));
  return failed;
}

/** The PUSH_FAILED error for failed items. */
export function pushFailed(failed: FailedResult[]): QueenError {
  return new QueenError('PUSH_FAILED', `Push failed for ${failed.length} item(s): ${failed[0]?.error ?? 'unknown error'}`, { results: failed });
}

/** Sends wire items in one request; resolves with the broker's per-item results. */
export async function sendPush<T>(transport: Transport, items: PushItem<T>[]): Promise<PushResultItem[]> {
  const first = items[0]!;
  const res = await transport.request({ method: 'POST', path: '/api/v1/push', body: { items }, affinityKey: `${first.queue}:${first.partition}` });
  if (!Array.isArray(res.body)) throw new QueenError('HTTP', 'Unexpected push answer', { status: res.status, body: res.body, url: res.url });
  return res.body as PushResultItem[];
}

/** Where a push goes. */
export interface PushTarget {
  /** The queue name; throws VALIDATION when the builder has none (a rejection of the push, not a throw of push()). */
  queue: () => string;
  partition: string;
  buffer: Required<BufferOptions> | undefined;
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
    if (this.target.buffer) {
      await this.ctx.buffers.add(queue, this.target.partition, this.target.buffer, items, this.callbacks as PushCallbacks<unknown>);
      return { buffered: true, count: items.length } satisfies BufferedPush as R;
    }
    if (items.length === 0) return [] as R;
    let results: PushResultItem[];
    try {
      results = await sendPush(this.ctx.transport, items);
    } catch (error) {
      if (!this.callbacks.onError) throw error;
      await this.callbacks.onError(items, error as QueenError);
      return [] as R;
    }
    const failed = await dispatchResults(items, results, this.callbacks);
    if (failed.length > 0 && !this.callbacks.onError) throw pushFailed(failed);
    return results as R;
  }
}
