/**
 * A streams cycle (docs/streams.md): one shard's state ops, sink pushes and optional source ack, committed in
 * one database transaction or not at all.
 *
 * The pure checks run first (state-op types, the ack's status and transactionId, each push item's own
 * checks); then `queen.streams_cycle_apply` takes the shard lock and every other lock in the global order,
 * checks the ack against the source lease (fencing), and applies the state ops and the ack. A cycle with sink
 * pushes runs that and the broker's sealed append (the transaction route's) in one transaction; a cycle
 * without is that one statement. Any failure rolls everything back and answers `success:false` with the
 * failure text: no state change, no sink message, no cursor move. Wake-ups are sent after the commit only.
 *
 * The ack differs from docs/api.md 6.3 in one point: an ack at or below the cursor is a failure (`Message already
 * acknowledged`), not an idempotent success, so a replayed cycle cannot commit its state ops and pushes twice
 * (docs/streams.md).
 */
import type { Store, TransactionDecision } from '../../store/index.js';
import type { CycleAckItem, CycleApplyParams, CycleApplyResult, StateOp } from '../../store/streams.js';
import { effectiveGroup } from '../names.js';
import type { AppendItem } from '../../store/segments.js';
import type { Sealing } from '../payload-sealing.js';
import { appendOutcomes, itemError, toAppendItem, type PushItem, type PushOutcome } from '../push.js';
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

/** The store as a cycle uses it: the apply statement, and the transaction around it and the sink pushes. */
export type CycleStore = Pick<Store, 'streamsCycleApply' | 'transaction'>;

/** Runs of a cycle that met a deadlock or serialization failure: it wrote nothing, so it runs again. */
const CONFLICT_ATTEMPTS = 3;

/** What a cycle needs from its surroundings. */
export interface CycleContext {
  store: CycleStore;
  /** The sealing step around the sink pushes. */
  sealing: Sealing;
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

/** An outcome and the queues to wake once it is committed. */
interface Run {
  outcome: CycleOutcome;
  woken: QueueSignal[];
}

const failed = (queueName: string | null, error: string): Run => ({ outcome: { success: false, queueName, error }, woken: [] });

/** The run of a committed cycle: its answer, and the sink queues plus (if its lease was released) the source to wake. */
function committed(request: CycleRequest, applied: CycleApplyResult & { error: null }, pushResults: PushOutcome[], woken: Map<string, QueueSignal>): Run {
  if (applied.leaseReleased && applied.queueName !== null && !woken.has(applied.queueName)) {
    woken.set(applied.queueName, { queue: applied.queueName, namespace: applied.queueNamespace, task: applied.queueTask });
  }
  const ackResult: CycleAckResult | null = request.ack === null ? null
    : { success: true, count: request.ack.count ?? 1, lease_released: applied.leaseReleased, dlq: applied.dlq };
  return { outcome: { success: true, queueName: applied.queueName, stateOpsApplied: applied.stateOpsApplied, pushResults, ackResult }, woken: [...woken.values()] };
}

/** The work of a cycle with sink pushes, inside its transaction: apply, then append; any failure rolls back. */
async function applyAndPush(tx: Store, sealing: Sealing, request: CycleRequest, params: CycleApplyParams, appended: AppendItem[]): Promise<TransactionDecision<Run>> {
  const applied = await tx.streamsCycleApply(params);
  if (applied.error !== null) return { commit: false, value: failed(applied.queueName, applied.error) };
  const results = await sealing.wrap((items) => tx.segmentAppend({ items }))(appended);
  const { outcomes, woken } = appendOutcomes(appended, results, appended.map((item) => item.transactionId));
  // A sink item that cannot be written fails the whole cycle (docs/streams.md).
  const refused = outcomes.find((outcome): outcome is Extract<PushOutcome, { status: 'failed' }> => outcome.status === 'failed');
  if (refused !== undefined) return { commit: false, value: failed(applied.queueName, refused.error) };
  return { commit: true, value: committed(request, applied, outcomes, woken) };
}

/** Runs one cycle; failures are answers, not exceptions (only database failures throw). */
export async function executeCycle(request: CycleRequest, context: CycleContext): Promise<CycleOutcome> {
  const failure = precheck(request);
  if (failure !== null) return { success: false, queueName: null, error: failure };

  const ack: CycleAckItem | null = request.ack === null ? null : {
    transactionId: request.ack.transactionId as string,
    leaseId: request.ack.leaseId === '' ? null : request.ack.leaseId,
    status: (request.ack.status ?? 'completed') as string,
    error: request.ack.error,
  };
  // Minted here, in item order, so the sink keeps the emit order (docs/streams.md step 3).
  const appended = request.pushItems.map((item) => toAppendItem(item, context.producerSub));
  const params: CycleApplyParams = {
    queryId: request.queryId,
    partitionId: request.partitionId,
    group: effectiveGroup(request.consumerGroup),
    stateOps: request.stateOps.map((op): StateOp => ({ type: op.type as StateOp['type'], key: op.key, value: op.type === 'upsert' ? op.value : null })),
    pushTargets: appended.map((item) => ({ queue: item.queue, partition: item.partition })),
    ack,
    releaseLease: request.releaseLease,
  };

  // Without sink pushes the cycle is the one apply statement; with them, a transaction around apply and append.
  let run: Run;
  if (appended.length === 0) {
    const applied = await context.store.streamsCycleApply(params);
    run = applied.error !== null ? failed(applied.queueName, applied.error) : committed(request, applied, [], new Map());
  } else {
    run = await context.store.transaction((tx) => applyAndPush(tx, context.sealing, request, params, appended), { attempts: CONFLICT_ATTEMPTS });
  }
  for (const signal of run.woken) context.signal(signal);
  return run.outcome;
}
