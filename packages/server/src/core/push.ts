/**
 * Push (docs/api.md 4.4): per-item checks, id minting, group commit through the coalescer, wake-ups.
 *
 * The HTTP layer has already rejected malformed requests (the 400s); here each item is judged on its own, so
 * a bad item fails alone. Items that pass are appended in one transaction together with whatever other
 * requests arrived at the same time, and parked pops of every queue that received messages are woken.
 * Items go to the failover buffer instead while it is active; on Citus only those of partitions it holds, or
 * whose worker the append found unreachable, while the others are written (docs/scale-out.md section 7).
 */
import { bufferFull, databaseUnreachable } from '../errors.js';
import { isUuid, uuidv7 } from '../ids.js';
import type { OperationSpan } from '../tracing.js';
import type { Store } from '../store/index.js';
import type { AppendItem, AppendResult } from '../store/segments.js';
import { Coalescer } from './coalescer.js';
import { nameError } from './names.js';
import type { Sealing } from './payload-sealing.js';
import type { QueueSignal } from './wake-bus.js';

/** One item of a push request, type-checked by the HTTP layer. */
export interface PushItem {
  queue: string;
  partition: string;
  /** The payload as JSON text. */
  payload: string;
  transactionId: string | null;
  traceId: string | null;
  /** The W3C trace context in its stored form (core/trace-context.ts), checked by the HTTP layer; null when none. */
  traceContext: string | null;
}

/** What happened to one item (docs/api.md 4.4, response table). */
export type PushOutcome =
  | { status: 'queued'; transactionId: string; messageId: string; partitionId: string; traceId: string | null; queue: string }
  | { status: 'duplicate'; transactionId: string; messageId: string; queue: string }
  | { status: 'failed'; transactionId: string | null; queue: string; partition: string; error: string }
  | { status: 'buffered'; transactionId: string; queue: string; partition: string };

/** The buffer has no room for the items (FILE_BUFFER_MAX_BYTES): the push is refused as unavailable, none is kept. */
export class BufferFullError extends Error {}

/** The per-item error of items that had to be buffered and could not be (the push answers a server error, docs/api.md 4.4). */
export const BUFFER_WRITE_FAILED = 'File buffer write failed';

/**
 * Where pushes go instead of the database (the failover buffer, docs/api.md 9.4, 9.5). `active()` and `write()`
 * are called in the same turn of the event loop, so the decision and the reservation cannot be split.
 */
export interface PushDiversion {
  /** True when these items must be buffered (push maintenance, database down, buffered items not replayed yet, or a partition held by the failed set). */
  active(items: AppendItem[]): boolean;
  /**
   * After `active` said yes, in the same turn: null when all of them are to be buffered, else which ones (the
   * buffer routes per partition on Citus: only the items of partitions it holds records of).
   */
  heldItems(items: AppendItem[]): boolean[] | null;
  /** Writes items durably; resolves after the fsync, rejects when the buffer cannot be written (BufferFullError: no room). */
  write(items: AppendItem[]): Promise<void>;
  /** The database work of a push failed: true when it is an outage (now marked) and the items are to be buffered. */
  divert(error: unknown): boolean;
}

/** The elements of `list` whose `mask` entry equals `want`. */
function pick<T>(list: readonly T[], mask: readonly boolean[], want: boolean): T[] {
  return list.filter((_, i) => mask[i] === want);
}

/** Checks one item on its own; returns the failure text or null. */
export function itemError(item: PushItem): string | null {
  const badName = nameError(item.queue, 'queue name') ?? nameError(item.partition, 'partition name');
  if (badName !== null) return badName;
  if (item.transactionId !== null && item.transactionId.length > 255) return 'TransactionId too long (max 255 characters)';
  if (item.traceId !== null && !isUuid(item.traceId)) return 'Invalid traceId: must be a UUID';
  return null;
}

/** The stored form of an item that passed its checks: ids minted (UUIDv7), traceId lowercased. */
export function toAppendItem(item: PushItem, producerSub: string | null): AppendItem {
  return {
    queue: item.queue,
    partition: item.partition,
    messageId: uuidv7(),
    transactionId: item.transactionId ?? uuidv7(),
    traceId: item.traceId?.toLowerCase() ?? null,
    payload: item.payload,
    producerSub,
    traceContext: item.traceContext,
  };
}

/**
 * The answer to each appended item and the queues to wake: the one conversion of the store's results
 * (`segmentAppend`) into push outcomes, for /push and the sinks of streams cycles. `clientTransactionIds[i]`
 * is the transactionId the client sent for item i (null when the broker minted it): a failed item answers
 * with it.
 */
export function appendOutcomes(
  items: readonly AppendItem[],
  results: readonly AppendResult[],
  clientTransactionIds: ReadonlyArray<string | null>,
): { outcomes: PushOutcome[]; woken: Map<string, QueueSignal> } {
  const woken = new Map<string, QueueSignal>();
  const outcomes = results.map((result, i): PushOutcome => {
    const item = items[i]!;
    if (result.status === 'queued') {
      woken.set(item.queue, { queue: item.queue, namespace: result.namespace, task: result.task });
      return { status: 'queued', transactionId: item.transactionId, messageId: result.messageId!, partitionId: result.partitionId, traceId: item.traceId, queue: item.queue };
    }
    if (result.status === 'duplicate') return { status: 'duplicate', transactionId: item.transactionId, messageId: result.messageId!, queue: item.queue };
    return { status: 'failed', transactionId: clientTransactionIds[i] ?? null, queue: item.queue, partition: item.partition, error: result.error ?? 'Push failed' };
  });
  return { outcomes, woken };
}

/** The store as push uses it. */
export type PushStore = Pick<Store, 'segmentAppend'>;

/** What the push service is built from. */
export interface PushServiceOptions {
  /** `segmentAppend` writes a merged batch in one transaction (`queen.push_messages`). */
  store: PushStore;
  /** The sealing step around every append (encryption at rest, docs/api.md 9.6). */
  sealing: Sealing;
  /** After a commit: wakes the parked pops of the queues that received messages. */
  wake: (signal: QueueSignal) => void;
  /** Push transactions in flight at once, at most. */
  maxInFlight: number;
  /** Items per merged transaction, at most. */
  maxItems: number;
  /** A merged batch that failed this way is retried request by request, so a bad request fails alone. */
  isolateOnError: (error: unknown) => boolean;
  /** The failover buffer; without one, every push goes to the database. */
  diversion?: PushDiversion | null;
}

/** Accepts pushes and answers each item after the commit. */
export class PushService {
  private readonly coalescer: Coalescer<AppendItem, AppendResult>;
  private readonly signal: (signal: QueueSignal) => void;
  private readonly diversion: PushDiversion | null;

  constructor(options: PushServiceOptions) {
    this.signal = options.wake;
    this.diversion = options.diversion ?? null;
    const { store } = options;
    const append = options.sealing.wrap((items) => store.segmentAppend({ items }));
    this.coalescer = new Coalescer(append, { maxInFlight: options.maxInFlight, maxItems: options.maxItems, isolateOnError: options.isolateOnError });
  }

  /**
   * Pushes the items; one outcome per item, in input order. `producerSub` is the caller's JWT subject; with a
   * span, the wait for the commit is its database child.
   */
  async push(items: PushItem[], producerSub: string | null, span: OperationSpan | null = null): Promise<PushOutcome[]> {
    const outcomes = new Array<PushOutcome>(items.length);
    const accepted: AppendItem[] = [];
    const acceptedIndex: number[] = [];
    items.forEach((item, index) => {
      const error = itemError(item);
      if (error !== null) {
        outcomes[index] = { status: 'failed', transactionId: item.transactionId, queue: item.queue, partition: item.partition, error };
        return;
      }
      accepted.push(toAppendItem(item, producerSub));
      acceptedIndex.push(index);
    });

    if (accepted.length === 0) return outcomes;
    const held = this.diversion?.active(accepted) === true ? this.diversion.heldItems(accepted) : undefined;
    if (held === null) {
      await this.buffer(items, outcomes, accepted, acceptedIndex);
      return outcomes;
    }
    if (held === undefined) {
      await this.append(items, outcomes, accepted, acceptedIndex, span);
      return outcomes;
    }
    // Per partition (Citus): the items of partitions the buffer holds join it (order per partition), the others are written.
    await Promise.all([
      this.buffer(items, outcomes, pick(accepted, held, true), pick(acceptedIndex, held, true)),
      this.append(items, outcomes, pick(accepted, held, false), pick(acceptedIndex, held, false), span),
    ]);
    return outcomes;
  }

  /**
   * Writes the items to the database and answers them. An outage buffers them all; items the store answers
   * `unreachable` (Citus: their worker is down) are buffered as in an outage, and the buffer then holds their
   * partitions until its replay; the others are answered from their commit.
   */
  private async append(items: PushItem[], outcomes: PushOutcome[], accepted: AppendItem[], acceptedIndex: number[], span: OperationSpan | null): Promise<void> {
    if (accepted.length === 0) return;
    let results: AppendResult[];
    try {
      results = await (span === null ? this.coalescer.submit(accepted) : span.database('queen.push_messages', () => this.coalescer.submit(accepted)));
    } catch (error) {
      // A lost database: the commit may or may not have happened; buffered items replay idempotently.
      if (this.diversion?.divert(error) === true) return this.buffer(items, outcomes, accepted, acceptedIndex);
      throw error;
    }
    let buffered: Promise<void> | null = null;
    if (results.some((r) => r.status === 'unreachable')) {
      if (this.diversion === null) throw databaseUnreachable();
      const unreachable = results.map((r) => r.status === 'unreachable');
      buffered = this.buffer(items, outcomes, pick(accepted, unreachable, true), pick(acceptedIndex, unreachable, true));
      [accepted, acceptedIndex, results] = [pick(accepted, unreachable, false), pick(acceptedIndex, unreachable, false), pick(results, unreachable, false)];
    }
    const appended = appendOutcomes(accepted, results, acceptedIndex.map((index) => items[index]!.transactionId));
    appended.outcomes.forEach((outcome, i) => (outcomes[acceptedIndex[i]!] = outcome));
    for (const signal of appended.woken.values()) this.signal(signal);
    await buffered;
  }

  /** Answers the accepted items from the buffer: `buffered` once fsync'd, `failed` when it cannot be written. */
  private async buffer(items: PushItem[], outcomes: PushOutcome[], accepted: AppendItem[], acceptedIndex: number[]): Promise<void> {
    if (accepted.length === 0) return;
    let written = true;
    try {
      await this.diversion!.write(accepted);
    } catch (error) {
      if (error instanceof BufferFullError) throw bufferFull();
      written = false;
    }
    accepted.forEach((item, i) => {
      const index = acceptedIndex[i]!;
      outcomes[index] = written
        ? { status: 'buffered', transactionId: item.transactionId, queue: item.queue, partition: item.partition }
        : { status: 'failed', transactionId: items[index]!.transactionId, queue: item.queue, partition: item.partition, error: BUFFER_WRITE_FAILED };
    });
  }
}
