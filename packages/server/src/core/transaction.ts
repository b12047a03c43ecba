/**
 * Transactions (docs/api.md 7.1): pushes and acks across queues, all or nothing, in one database transaction.
 *
 * Operations run in array order against the state the earlier ones left. Each push item counts as one
 * operation (results are numbered over the flattened list). The first failure stops the run: a push item
 * that fails its checks, is refused (maxSize) or duplicates a stored (partition, transactionId); an ack
 * whose result is `success:false`; an unknown operation type. The transaction is then rolled back and the
 * results end with the failing operation. Idempotent ack successes (C3) are successes.
 *
 * `requiredLeases` lets a client ack without repeating the lease id: an ack op without `leaseId` on a
 * (partition, group) whose live lease id is listed there is applied as if it carried that id.
 *
 * Before the first operation runs, the transaction takes the locks of all of them in the global order
 * (partitions by queue and partition name, then cursors by partition and group), so transactions listing
 * the same partitions in different orders serialise instead of deadlocking.
 *
 * Wake-ups are sent only after the commit: parked pops of every queue that received messages and of every
 * queue whose lease an ack released. (The SQL functions' NOTIFYs reach other processes at the commit too.)
 */
import { clientLeft } from '../errors.js';
import { uuidv7 } from '../ids.js';
import { requestSignal } from './request-scope.js';
import type { Store } from '../store/index.js';
import type { LockTargets } from '../store/transaction.js';
import { toAckItems, type AckRequestItem } from './ack.js';
import type { AppendFunction, Sealing } from './payload-sealing.js';
import { itemError, toAppendItem, type PushItem } from './push.js';
import type { QueueSignal } from './wake-bus.js';

/** One operation, as the HTTP layer parsed it. */
export type TransactionOperation =
  | { type: 'push'; items: PushItem[] }
  | { type: 'ack'; item: AckRequestItem }
  | { type: 'unknown'; rawType: unknown };

/** The result object of one operation (docs/api.md 7.1). */
export type OperationResult =
  | { index: number; type: 'push'; success: true; transactionId: string; messageId: string; partitionId: string; queueName: string }
  | { index: number; type: 'push'; success: false; transactionId: string | null; queueName: string; error: string }
  | { index: number; type: 'ack'; success: boolean; transactionId: string; error: string | null; dlq: boolean; leaseReleased: boolean }
  | { index: number; type: unknown; success: false; error: string };

/** The answer to a transaction request. */
export interface TransactionOutcome {
  transactionId: string;
  success: boolean;
  /** Present only on failure. */
  error?: string;
  results: OperationResult[];
}

/** The statements of a transaction, all on its `tx`: locks, appends, acks, the live-lease look-up. */
type TransactionStore = Pick<Store, 'transactionLock' | 'segmentAppend' | 'cursorAck' | 'leaseLiveLock'>;

/** What a transaction needs from its surroundings. */
export interface TransactionContext {
  /** `transaction` runs the work in one database transaction, committing or rolling back as it decides. */
  store: Pick<Store, 'transaction'>;
  /** The sealing step around the appends (the one /push goes through, docs/api.md 9.6). */
  sealing: Sealing;
  /** Wakes parked pops of a queue (called after the commit). */
  signal(signal: QueueSignal): void;
  /** The caller's JWT subject, stamped on pushed messages. */
  producerSub: string | null;
}

/** Push items written per call: a transaction's pushes go in a few large calls, not one call per operation. */
const APPEND_CHUNK = 1000;
/** Runs of a transaction that met a deadlock or serialization failure against another path: it wrote nothing. */
const CONFLICT_ATTEMPTS = 3;

/** The state of one run: results so far, the failure if any, the queues to wake after the commit. */
interface Run {
  results: OperationResult[];
  error: string | null;
  woken: Map<string, QueueSignal>;
}

/** The rendering of an unknown operation type in its error text. */
function typeText(type: unknown): string {
  return typeof type === 'string' ? type : (JSON.stringify(type) ?? 'undefined');
}

/** Executes a transaction; failures are answers, not exceptions (only database failures throw). */
export async function executeTransaction(
  operations: TransactionOperation[],
  requiredLeases: string[],
  context: TransactionContext,
): Promise<TransactionOutcome> {
  const transactionId = uuidv7();
  const leases = new Set(requiredLeases.map((id) => id.toLowerCase()));
  const run = await context.store.transaction<Run>(async (tx) => {
    const append = context.sealing.wrap((items) => tx.segmentAppend({ items }));
    await tx.transactionLock(lockTargets(operations));
    const state: Run = { results: [], error: null, woken: new Map() };
    for (let at = 0; at < operations.length; at++) {
      const operation = operations[at]!;
      if (operation.type === 'push') {
        // Consecutive push operations are written together: a failure anywhere rolls everything back, so
        // writing them in one call answers exactly what one call per operation would, in linear time.
        const items: PushItem[] = [];
        for (; at < operations.length && operations[at]!.type === 'push'; at++) {
          for (const item of (operations[at] as { items: PushItem[] }).items) items.push(item);
        }
        at -= 1;
        await runPush(append, items, context.producerSub, state);
      } else if (operation.type === 'ack') await runAck(tx, operation.item, leases, state);
      else {
        state.error = `Unknown operation type: ${typeText(operation.rawType)}`;
        state.results.push({ index: state.results.length, type: operation.rawType ?? null, success: false, error: state.error });
      }
      if (state.error !== null) return { commit: false, value: state };
      // A client that left gets no answer: roll back rather than commit work it cannot learn the outcome of.
      if (requestSignal()?.aborted === true) throw clientLeft();
    }
    return { commit: true, value: state };
  }, { attempts: CONFLICT_ATTEMPTS });
  if (run.error !== null) return { transactionId, success: false, error: run.error, results: run.results };
  for (const signal of run.woken.values()) context.signal(signal);
  return { transactionId, success: true, results: run.results };
}

/** Every partition the pushes may write (items that pass their checks) and every pair the acks may settle. */
function lockTargets(operations: TransactionOperation[]): LockTargets {
  const pushes: Array<{ queue: string; partition: string }> = [];
  const acks: Array<{ partitionId: string; group: string }> = [];
  for (const operation of operations) {
    if (operation.type === 'push') {
      for (const item of operation.items) if (itemError(item) === null) pushes.push({ queue: item.queue, partition: item.partition });
    } else if (operation.type === 'ack') {
      const item = toAckItems([operation.item])[0]!;
      if (item.partitionId !== null) acks.push({ partitionId: item.partitionId, group: item.group });
    }
  }
  return { pushes, acks };
}

/** Pushes the items of consecutive push ops; stops at the first item that fails. */
async function runPush(append: AppendFunction, items: PushItem[], producerSub: string | null, state: Run): Promise<void> {
  const firstInvalid = items.findIndex((item) => itemError(item) !== null);
  const valid = firstInvalid === -1 ? items : items.slice(0, firstInvalid);
  const appended = valid.map((item) => toAppendItem(item, producerSub));
  const outcomes: Awaited<ReturnType<AppendFunction>> = [];
  for (let from = 0; from < appended.length; from += APPEND_CHUNK) {
    const chunk = await append(appended.slice(from, from + APPEND_CHUNK));
    outcomes.push(...chunk);
    if (chunk.some((outcome) => outcome.status !== 'queued')) break; // the results end at the first failure
  }
  for (let i = 0; i < outcomes.length; i++) {
    const item = appended[i]!;
    const outcome = outcomes[i]!;
    const index = state.results.length;
    if (outcome.status !== 'queued') {
      const reason = outcome.status === 'duplicate' ? `Duplicate transactionId: ${item.transactionId}` : (outcome.error ?? 'Push failed');
      state.error = `PUSH operation failed: ${reason}`;
      state.results.push({ index, type: 'push', success: false, transactionId: valid[i]!.transactionId, queueName: item.queue, error: reason });
      return;
    }
    state.results.push({ index, type: 'push', success: true, transactionId: item.transactionId, messageId: outcome.messageId!, partitionId: outcome.partitionId, queueName: item.queue });
    state.woken.set(item.queue, { queue: item.queue, namespace: outcome.namespace, task: outcome.task });
  }
  if (firstInvalid !== -1) {
    const item = items[firstInvalid]!;
    const reason = itemError(item)!;
    state.error = `PUSH operation failed: ${reason}`;
    state.results.push({ index: state.results.length, type: 'push', success: false, transactionId: item.transactionId, queueName: item.queue, error: reason });
  }
}

/** Applies one ack op, carrying a listed live lease id when the op names none. */
async function runAck(store: TransactionStore, request: AckRequestItem, leases: Set<string>, state: Run): Promise<void> {
  const item = toAckItems([request])[0]!;
  if (item.leaseId === null && item.partitionId !== null && leases.size > 0) {
    const live = await store.leaseLiveLock({ partitionId: item.partitionId, group: item.group });
    if (live !== null && leases.has(live)) item.leaseId = live;
  }
  const result = (await store.cursorAck({ items: [item] }))[0]!;
  state.results.push({ index: state.results.length, type: 'ack', success: result.success, transactionId: request.transactionId, error: result.error, dlq: result.dlq, leaseReleased: result.leaseReleased });
  if (!result.success) {
    state.error = `ACK operation failed: ${result.error ?? 'unknown error'}`;
    return;
  }
  if (result.leaseReleased && result.queueName !== null) {
    // Namespace and task are not known here: discovery pops re-check spuriously rather than miss the wake.
    if (!state.woken.has(result.queueName)) state.woken.set(result.queueName, { queue: result.queueName, namespace: null, task: null });
  }
}
