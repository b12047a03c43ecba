/**
 * A streams cycle (STREAMS.md 3.3): one shard's state ops, sink pushes and optional source ack, committed in
 * one database transaction or not at all.
 *
 * The pure checks run first (state-op types, the ack's status and transactionId, each push item's own
 * checks); then, inside the transaction, `queen.streams_cycle_apply` takes the shard lock and every other lock
 * in the global order, checks the ack against the source lease (fencing), applies the state ops and the ack,
 * and the sink pushes go through the broker's sealed append (the transaction route's). Any failure rolls
 * everything back and answers `success:false` with the failure text: no state change, no sink message, no
 * cursor move. Wake-ups are sent after the commit only.
 *
 * The ack differs from API.md 6.3 in one point: an ack at or below the cursor is a failure (`Message already
 * acknowledged`), not an idempotent success, so a replayed cycle cannot commit its state ops and pushes twice
 * (STREAMS.md 3.3.5).
 */
import type { CycleAckItem, CycleStore, StateOp } from '../../store/streams.js';
import type { TransactionDecision } from '../../store/transaction.js';
import { effectiveGroup } from '../names.js';
import { itemError, toAppendItem, type PushItem, type PushOutcome } from '../push.js';
import type { QueueSignal } from '../wake-bus.js';

/** A state op as the HTTP layer type-checked it; `type` is checked here (an unknown one fails the cycle). */
export interface StateOpRequest {
  type: unknown;
  key: string;
  /** The upsert value as JSON text; null for deletes. */
  value: string | null;
}

/** The ack of a cycle as the HTTP layer type-checked it; status and transactionId are checked here. */
export interface CycleAckRequest {
  transactionId: unknown;
  leaseId: string | null;
  status: unknown;
  count: number | null;
  error: string | null;
}

/** One cycle request. Ids are UUIDs (the HTTP layer checked them). */
export interface CycleRequest {
  queryId: string;
  partitionId: string;
  consumerGroup: string | null;
  stateOps: StateOpRequest[];
  pushItems: PushItem[];
  ack: CycleAckRequest | null;
  releaseLease: boolean;
}

/** The `ack_result` of a successful cycle. */
export interface CycleAckResult {
  success: true;
  count: number;
  lease_released: boolean;
  dlq: boolean;
}

/** The outcome of a cycle: committed, or rolled back with a reason. */
export type CycleOutcome =
  | { success: true; queueName: string | null; stateOpsApplied: number; pushResults: PushOutcome[]; ackResult: CycleAckResult | null }
  | { success: false; queueName: string | null; error: string };

/** What a cycle needs from its surroundings. */
export interface CycleContext {
  /** Runs the work in one database transaction, committing or rolling back as it decides. */
  run<T>(work: (store: CycleStore) => Promise<TransactionDecision<T>>): Promise<T>;
  /** Wakes parked pops of a queue (called after the commit). */
  signal(signal: QueueSignal): void;
  /** The caller's JWT subject, stamped on the sink messages. */
  producerSub: string | null;
}

const ACK_STATUSES = new Set(['completed', 'success', 'failed', 'dlq']);

/** The rendering of a value in an error text: strings as they are, anything else as JSON. */
function shown(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/** The checks that need no database: the first failure text, or null. */
function precheck(request: CycleRequest): string | null {
  for (const op of request.stateOps) {
    if (op.type !== 'upsert' && op.type !== 'delete') return `Unknown state_op type: ${shown(op.type ?? null)}`;
  }
  const { ack } = request;
  if (ack !== null) {
    const status = ack.status ?? 'completed';
    if (typeof status !== 'string' || !ACK_STATUSES.has(status)) return `Unknown ack.status: ${shown(status)}`;
    if (typeof ack.transactionId !== 'string' || ack.transactionId === '') return 'ack.transactionId is required';
  }
  for (const item of request.pushItems) {
    const error = itemError(item);
    if (error !== null) return error;
  }
  return null;
}

/** Runs one cycle; failures are answers, not exceptions (only database failures throw). */
export async function executeCycle(request: CycleRequest, context: CycleContext): Promise<CycleOutcome> {
  const failure = precheck(request);
  if (failure !== null) return { success: false, queueName: null, error: failure };

  const group = effectiveGroup(request.consumerGroup);
  const stateOps: StateOp[] = request.stateOps.map((op) => ({ type: op.type as StateOp['type'], key: op.key, value: op.type === 'upsert' ? op.value : null }));
  const ack: CycleAckItem | null = request.ack === null ? null : {
    transactionId: request.ack.transactionId as string,
    leaseId: request.ack.leaseId === '' ? null : request.ack.leaseId,
    status: (request.ack.status ?? 'completed') as string,
    error: request.ack.error,
  };
  // Minted here, in item order, so the sink keeps the emit order (STREAMS.md 3.3.2 step 3).
  const appended = request.pushItems.map((item) => toAppendItem(item, context.producerSub));

  const { outcome, woken } = await context.run<{ outcome: CycleOutcome; woken: QueueSignal[] }>(async (store) => {
    const rollBack = (queueName: string | null, error: string) => ({ commit: false, value: { outcome: { success: false as const, queueName, error }, woken: [] } });
    const applied = await store.apply({
      queryId: request.queryId,
      partitionId: request.partitionId,
      group,
      stateOps,
      pushTargets: appended.map((item) => ({ queue: item.queue, partition: item.partition })),
      ack,
      releaseLease: request.releaseLease,
    });
    const queueName = applied.queueName;
    if (applied.error !== null) return rollBack(queueName, applied.error);

    const results = appended.length === 0 ? [] : await store.append(appended);
    const pushResults: PushOutcome[] = [];
    const woken = new Map<string, QueueSignal>();
    for (let i = 0; i < appended.length; i++) {
      const item = appended[i]!;
      const result = results[i]!;
      if (result.status === 'queued') {
        pushResults.push({ status: 'queued', transactionId: item.transactionId, messageId: result.messageId!, partitionId: result.partitionId, traceId: item.traceId, queue: item.queue });
        woken.set(item.queue, { queue: item.queue, namespace: result.namespace, task: result.task });
      } else if (result.status === 'duplicate') {
        pushResults.push({ status: 'duplicate', transactionId: item.transactionId, messageId: result.messageId!, queue: item.queue });
      } else {
        // A sink item that cannot be written fails the whole cycle (STREAMS.md 3.3.3).
        return rollBack(queueName, result.error ?? 'Push failed');
      }
    }
    if (applied.leaseReleased && queueName !== null && !woken.has(queueName)) {
      woken.set(queueName, { queue: queueName, namespace: applied.queueNamespace, task: applied.queueTask });
    }
    const ackResult: CycleAckResult | null = request.ack === null ? null
      : { success: true, count: request.ack.count ?? 1, lease_released: applied.leaseReleased, dlq: applied.dlq };
    return {
      commit: true,
      value: { outcome: { success: true, queueName, stateOpsApplied: applied.stateOpsApplied, pushResults, ackResult }, woken: [...woken.values()] },
    };
  });
  for (const signal of woken) context.signal(signal);
  return outcome;
}
