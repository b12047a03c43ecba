/**
 * The streams state store (tables of schema `queen_streams`, functions `queen.streams_*` of sql/functions): query registration,
 * shard reads, and the database transaction of one cycle.
 *
 * A cycle with sink pushes runs on one pooled connection inside one transaction: `queen.streams_cycle_apply`
 * (shard lock, fencing checks, state ops, the ack through `queen.ack_messages`), then the sink pushes through
 * the same append the transaction route uses (`queen.push_messages`, wrapped by the broker's sealing step),
 * then COMMIT or ROLLBACK as the work decides (core/streams/cycle.ts, through `Store.transaction`). A cycle
 * without pushes is `streams_cycle_apply` alone, one atomic statement: it raises (SQLSTATE QS001) on every
 * failure, so nothing it wrote survives one. Deadlocks and serialization failures have written nothing: the
 * whole cycle is run again from the start (`retryConflicts`, the classifier of store/database.ts).
 */
import pg from 'pg';
import type { Db } from './database.js';

/** What a registration found and did (see `queen.streams_query_register`). */
export interface QueryRegistration {
  outcome: 'fresh' | 'same' | 'reset' | 'mismatch';
  queryId: string;
  /** The hash stored before this call. */
  storedHash: string;
}

/** Registers a query by name, or finds it again (docs/streams.md). */
export async function streamsQueryRegister(
  db: Db,
  params: { name: string; sourceQueue: string; sinkQueue: string | null; configHash: string; reset: boolean },
): Promise<QueryRegistration> {
  const result = await db.query<QueryRegistration>(
    'SELECT outcome, query_id::text AS "queryId", stored_hash AS "storedHash" FROM queen.streams_query_register($1, $2, $3, $4, $5)',
    [params.name, params.sourceQueue, params.sinkQueue, params.configHash, params.reset],
  );
  return result.rows[0]!;
}

/** One state row as read back. */
export interface StateRow {
  key: string;
  value: unknown;
  /** Milliseconds with a Z. */
  updatedAt: string;
}

/** Reads one shard's rows, filtered, ordered by key (docs/streams.md). Null filters are no filters. */
export async function streamsStateRead(
  db: Db,
  params: { queryId: string; partitionId: string; keys: string[] | null; keyPrefix: string | null; ripeAtOrBefore: number | null; group: string | null },
): Promise<StateRow[]> {
  const result = await db.query<StateRow>({
    name: 'queen.streams_state_get',
    text: 'SELECT key, value, updated_at AS "updatedAt" FROM queen.streams_state_get($1::uuid, $2::uuid, $3::text[], $4, $5::numeric, $6)',
    values: [params.queryId, params.partitionId, params.keys, params.keyPrefix, params.ripeAtOrBefore, params.group],
  });
  return result.rows;
}

/** One state operation, checked: the value is JSON text (upserts only). */
export interface StateOp {
  type: 'upsert' | 'delete';
  key: string;
  value: string | null;
}

/** The ack of a cycle, checked: status is one of completed, success, failed, dlq. */
export interface CycleAckItem {
  transactionId: string;
  leaseId: string | null;
  status: string;
  error: string | null;
}

/** What `streams_cycle_apply` reports: a failure text (nothing applied), or what it did. */
export type CycleApplyResult =
  | { error: string; queueName: string | null }
  | { error: null; queueName: string | null; queueNamespace: string | null; queueTask: string | null; stateOpsApplied: number; leaseReleased: boolean; dlq: boolean };

/** The parameters of `streams_cycle_apply`. */
export interface CycleApplyParams {
  queryId: string;
  partitionId: string;
  group: string;
  stateOps: StateOp[];
  pushTargets: Array<{ queue: string; partition: string }>;
  ack: CycleAckItem | null;
  releaseLease: boolean;
}

/** A successful cycle's result row, under the names of CycleApplyResult. */
type ApplyRow = Omit<Extract<CycleApplyResult, { error: null }>, 'error'>;

const APPLY_SQL = `SELECT queue_name AS "queueName", queue_namespace AS "queueNamespace", queue_task AS "queueTask",
    state_ops_applied AS "stateOpsApplied", lease_released AS "leaseReleased", dlq
  FROM queen.streams_cycle_apply($1::uuid, $2::uuid, $3, $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
    $9, $10, $11, $12, $13)`;

/** The SQLSTATE `streams_cycle_apply` raises a cycle failure with (message: the text, detail: the source queue). */
const CYCLE_FAILED = 'QS001';

/** Shard lock, fencing checks, state ops and ack, in that order (`queen.streams_cycle_apply`): one atomic statement. */
export async function streamsCycleApply(db: Db, p: CycleApplyParams): Promise<CycleApplyResult> {
  let row: ApplyRow;
  try {
    const result = await db.query<ApplyRow>({
      name: 'queen.streams_cycle_apply',
      text: APPLY_SQL,
      values: [p.queryId, p.partitionId, p.group, p.stateOps.map((o) => o.type), p.stateOps.map((o) => o.key),
        p.stateOps.map((o) => o.value), p.pushTargets.map((t) => t.queue), p.pushTargets.map((t) => t.partition),
        p.ack?.transactionId ?? null, p.ack?.leaseId ?? null, p.ack?.status ?? null, p.ack?.error ?? null, p.releaseLease],
    });
    row = result.rows[0]!;
  } catch (error) {
    if (!(error instanceof pg.DatabaseError) || error.code !== CYCLE_FAILED) throw error;
    return { error: error.message, queueName: error.detail === undefined || error.detail === '' ? null : error.detail };
  }
  return { error: null, ...row };
}
