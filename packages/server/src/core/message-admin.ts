/**
 * Administrative operations on messages (docs/api.md 7.3, 7.4, 9.1): delete, requeue from the DLQ, move to the
 * DLQ, queue clear. The rules run in SQL under the partition or cursor lock; this module normalises the
 * identifiers (one that can name nothing, like a partition id that is not a UUID, simply finds nothing),
 * mints the ids of a requeued message, and wakes parked pops after each commit that can make messages
 * claimable.
 */
import { uuidv7 } from '../ids.js';
import type { Store } from '../store/index.js';
import type { ClearResult, DeadLetterResult, RequeueResult, TouchedQueue } from '../store/message-admin.js';
import { messageKey } from './messages.js';
import { effectiveGroup, isValidName } from './names.js';
import type { QueueSignal } from './wake-bus.js';

/** The store as message administration uses it. */
export type MessageAdminStore = Pick<Store, 'messageDelete' | 'messageRequeue' | 'messageDeadLetter' | 'queueClear'>;

/** Outcome of a requeue, with the new message's ids on success. */
export type RequeueOutcome =
  | { outcome: 'requeued'; newTransactionId: string; messageId: string; dlqEntriesRemoved: number }
  | Exclude<RequeueResult, { outcome: 'requeued' }>;

/** Runs the administrative operations and sends their wake-ups. */
export class MessageAdmin {
  private readonly store: MessageAdminStore;
  private readonly origin: string;
  private readonly signal: (signal: QueueSignal) => void;

  constructor(options: {
    /** The operations' statements. */
    store: MessageAdminStore;
    /** This process's server id: the notifications of its own commits are marked with it. */
    origin: string;
    /** Wakes the parked pops of a queue an operation changed. */
    wake: (signal: QueueSignal) => void;
  }) {
    this.store = options.store;
    this.origin = options.origin;
    this.signal = options.wake;
  }

  /** Deletes a message; false when there was none. */
  async delete(partitionId: string, transactionId: string): Promise<boolean> {
    const key = messageKey(partitionId, transactionId);
    return key !== null && this.store.messageDelete(key);
  }

  /** Requeues a dead-lettered message as a new message (new UUIDv7 message id and transactionId). */
  async requeue(partitionId: string, transactionId: string): Promise<RequeueOutcome> {
    const key = messageKey(partitionId, transactionId);
    if (key === null) return { outcome: 'not_found' };
    const messageId = uuidv7();
    const newTransactionId = uuidv7();
    const result = await this.store.messageRequeue({ ...key, messageId, newTransactionId });
    if (result.outcome !== 'requeued') return result;
    this.wake(result.touched);
    return { outcome: 'requeued', newTransactionId, messageId, dlqEntriesRemoved: result.dlqEntriesRemoved };
  }

  /** Moves the group's head message to the DLQ; `group` absent or empty means queue mode. */
  async moveToDlq(partitionId: string, transactionId: string, group: string | null, error: string | null): Promise<DeadLetterResult['outcome']> {
    const key = messageKey(partitionId, transactionId);
    if (key === null) return 'not_found';
    const result = await this.store.messageDeadLetter({ ...key, origin: this.origin, group: effectiveGroup(group), error });
    if (result.outcome === 'moved' && result.leaseReleased) this.wake(result.touched);
    return result.outcome;
  }

  /** Clears a queue or one partition of it. Released leases make the queue's parked pops re-check. */
  async clear(queue: string, partition: string | null): Promise<ClearResult> {
    if (!isValidName(queue)) return { outcome: 'queue_not_found' };
    // A name PostgreSQL cannot store names no partition; '' names none either, and lets the store still tell
    // a missing queue from a missing partition.
    const result = await this.store.queueClear({ origin: this.origin, queue, partition: partition !== null && !isValidName(partition) ? '' : partition });
    if (result.outcome === 'cleared') this.wake(result.touched);
    return result;
  }

  private wake(touched: TouchedQueue): void {
    this.signal({ queue: touched.queue, namespace: touched.namespace, task: touched.task });
  }
}
