/**
 * Ack (docs/api.md 6.1-6.3): normalises the items; the rules themselves run in `queen.ack_messages`, per
 * (partition, group) under the cursor row lock.
 *
 * Concurrent ack requests share transactions (group commit, coalescer.ts), as pushes do: consumers that ack
 * one message at a time otherwise pay a commit and a function call each. Requests that name the same
 * (partition, group) never share a call, because the function checks each pair against its state at the
 * start of the call: each request gets exactly the answer it would get alone.
 */
import type { OperationSpan } from '../tracing.js';
import { Coalescer } from './coalescer.js';
import { isUuid } from '../ids.js';
import type { AckItem, AckResult, LeaseExtendResult } from '../store/cursors.js';
import type { Store } from '../store/index.js';
import { effectiveGroup } from './names.js';
import type { QueueSignal } from './wake-bus.js';

export type { AckResult } from '../store/cursors.js';

/** One ack as the client sent it (type-checked by the HTTP layer). */
export interface AckRequestItem {
  transactionId: string;
  partitionId: string;
  status: string | null;
  consumerGroup: string | null;
  leaseId: string | null;
  error: string | null;
}

/** Stands for a leaseId that is not a UUID: it matches no lease (docs/api.md 1.9), and is text PostgreSQL can store. */
export const NO_LEASE = '00000000-0000-0000-0000-000000000000';

/** Builds the store's ack items: default status, effective group, ids that are not UUIDs never match. */
export function toAckItems(items: AckRequestItem[]): AckItem[] {
  return items.map((item) => ({
    transactionId: item.transactionId,
    partitionId: isUuid(item.partitionId) ? item.partitionId.toLowerCase() : null,
    status: item.status ?? 'completed',
    group: effectiveGroup(item.consumerGroup),
    leaseId: item.leaseId === null || item.leaseId === '' ? null : isUuid(item.leaseId) ? item.leaseId : NO_LEASE,
    error: item.error,
  }));
}

/** The store as acks and lease extensions use it. */
export type AckStore = Pick<Store, 'cursorAck' | 'leaseExtend'>;

/** Applies acks; results in item order. A released lease wakes the queue's parked pops. */
export class AckService {
  private readonly store: AckStore;
  private readonly wake: (signal: QueueSignal) => void;
  private readonly coalescer: Coalescer<AckItem, AckResult>;

  constructor(options: {
    /** `cursorAck` applies a batch in one transaction (`queen.ack_messages`). */
    store: AckStore;
    /** Wakes the parked pops of a queue whose lease was released. */
    wake: (signal: QueueSignal) => void;
    /** Ack transactions running at once, at most; requests arriving meanwhile share the next one. */
    maxInFlight: number;
    /** Items per shared transaction (a request is never split). */
    maxItems: number;
    /** Errors after which a shared transaction is retried per request, so that one bad request fails alone. */
    isolateOnError: (error: unknown) => boolean;
  }) {
    this.store = options.store;
    this.wake = options.wake;
    this.coalescer = new Coalescer((items) => this.store.cursorAck({ items }), {
      maxInFlight: options.maxInFlight,
      maxItems: options.maxItems,
      isolateOnError: options.isolateOnError,
      key: (item) => `${item.partitionId ?? ''}\u0000${item.group}`,
    });
  }

  /** Extends a live lease by `seconds` (`POST …/lease/:leaseId/extend`); the id is a lowercase UUID. */
  extendLease(params: { leaseId: string; seconds: number }): Promise<LeaseExtendResult> {
    return this.store.leaseExtend(params);
  }

  /**
   * Acks a batch of items in one transaction (which concurrent requests on other partitions may share); with a
   * span, the wait for that transaction is its database child.
   */
  async ack(items: AckRequestItem[], span: OperationSpan | null = null): Promise<AckResult[]> {
    if (items.length === 0) return [];
    const submit = (): Promise<AckResult[]> => this.coalescer.submit(toAckItems(items));
    const results = await (span === null ? submit() : span.database('queen.ack_messages', submit));
    const released = new Set(results.filter((r) => r.leaseReleased && r.queueName !== null).map((r) => r.queueName!));
    // The scope is unknown here: discovery pops of every scope re-check, which is cheap and never misses.
    for (const queue of released) this.wake({ queue, namespace: null, task: null });
    return results;
  }
}
