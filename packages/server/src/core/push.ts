/**
 * Push (API.md 4.4): per-item checks, id minting, group commit through the coalescer, wake-ups.
 *
 * The HTTP layer has already rejected malformed requests (the 400s); here each item is judged on its own, so
 * a bad item fails alone. Items that pass are appended in one transaction together with whatever other
 * requests arrived at the same time, and parked pops of every queue that received messages are woken.
 */
import { isUuid, uuidv7 } from '../ids.js';
import type { AppendItem, AppendResult } from '../store/segments.js';
import { Coalescer } from './coalescer.js';
import { isValidName } from './names.js';
import type { QueueSignal } from './wake-bus.js';

/** One item of a push request, type-checked by the HTTP layer. */
export interface PushItem {
  queue: string;
  partition: string;
  /** The payload as JSON text. */
  payload: string;
  transactionId: string | null;
  traceId: string | null;
}

/** What happened to one item (API.md 4.4, response table). */
export type PushOutcome =
  | { status: 'queued'; transactionId: string; messageId: string; partitionId: string; traceId: string | null; queue: string }
  | { status: 'duplicate'; transactionId: string; messageId: string; queue: string }
  | { status: 'failed'; transactionId: string | null; queue: string; partition: string; error: string };

/** Checks one item on its own; returns the failure text or null. */
export function itemError(item: PushItem): string | null {
  if (!isValidName(item.queue)) return 'Invalid queue name';
  if (!isValidName(item.partition)) return 'Invalid partition name';
  if (item.transactionId !== null && item.transactionId.length > 255) return 'TransactionId too long (max 255 characters)';
  if (item.transactionId !== null && item.transactionId.includes('\u0000')) return 'Invalid transactionId';
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
  };
}

/** Accepts pushes and answers each item after the commit. */
export class PushService {
  private readonly coalescer: Coalescer<AppendItem, AppendResult>;

  constructor(
    append: (items: AppendItem[]) => Promise<AppendResult[]>,
    private readonly signal: (signal: QueueSignal) => void,
    options: { maxInFlight: number; maxItems: number; isolateOnError: (error: unknown) => boolean },
  ) {
    this.coalescer = new Coalescer(append, options);
  }

  /** Pushes the items; one outcome per item, in input order. `producerSub` is the caller's JWT subject. */
  async push(items: PushItem[], producerSub: string | null): Promise<PushOutcome[]> {
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

    const results = await this.coalescer.submit(accepted);
    const woken = new Map<string, QueueSignal>();
    results.forEach((result, i) => {
      const item = accepted[i]!;
      const index = acceptedIndex[i]!;
      const clientTransactionId = items[index]!.transactionId;
      if (result.status === 'queued') {
        outcomes[index] = { status: 'queued', transactionId: item.transactionId, messageId: result.messageId!, partitionId: result.partitionId, traceId: item.traceId, queue: item.queue };
        woken.set(item.queue, { queue: item.queue, namespace: result.namespace, task: result.task });
      } else if (result.status === 'duplicate') {
        outcomes[index] = { status: 'duplicate', transactionId: item.transactionId, messageId: result.messageId!, queue: item.queue };
      } else {
        outcomes[index] = { status: 'failed', transactionId: clientTransactionId, queue: item.queue, partition: item.partition, error: result.error ?? 'Push failed' };
      }
    });
    for (const signal of woken.values()) this.signal(signal);
    return outcomes;
  }
}
