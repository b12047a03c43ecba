/**
 * Consumer-group state: claims (`queen.pop_messages`), the readiness of parked pops (`queen.pop_ready`), acks
 * (`queen.ack_messages`) and lease extension (`queen.lease_extend`). See sql/functions/pop_messages.sql and
 * ack_messages.sql for the rules they implement.
 */
import type { Db } from './database.js';

/**
 * What a pop asks for: the one request shape from the route (core/pop.ts `PopRequest` extends it) down to
 * the pop function. `group` is the effective group (queue mode's name when none was given).
 */
export interface PopSelection {
  scope: 'partition' | 'queue' | 'discovery';
  queue: string | null;
  partition: string | null;
  namespace: string | null;
  task: string | null;
  group: string;
  batch: number;
  maxPartitions: number;
  leaseSeconds: number;
  autoAck: boolean;
}

/** Parameters of one pop attempt: the selection plus what the attempt loop decides. */
export interface ClaimParams extends PopSelection {
  leaseId: string;
  subscribeMode: 'new' | 'timestamp' | null;
  subscribeFrom: string | null;
  firstAttempt: boolean;
  rotateAfter: string | null;
  holdUnder: number;
}

/** One delivered message. */
export interface ClaimedMessage {
  queue: string;
  partitionId: string;
  partitionName: string;
  messageId: string;
  transactionId: string;
  traceId: string | null;
  /** JSON text (or a sealed payload until opened), written to the wire verbatim. */
  payload: string;
  producerSub: string | null;
  /** ISO-8601 text, as PostgreSQL rendered it. */
  createdAt: string;
  /** The W3C trace context in its stored form (core/trace-context.ts), or null. */
  traceContext: string | null;
}

/** The outcome of one attempt: messages, or the reason there are none. */
export type ClaimOutcome =
  | { kind: 'messages'; messages: ClaimedMessage[] }
  | { kind: 'empty'; reason: string }
  | { kind: 'hold'; holdMs: number };

/** A row of `queen.pop_messages`: a message, or (first row only) why there is none. */
export interface ClaimRow extends ClaimedMessage {
  emptyReason: string | null;
  holdMs: number | null;
}

/** The pop function's parameters (named notation: the call reads as the signature), each with its field. */
const CLAIM_ARGUMENTS: ReadonlyArray<readonly [parameter: string, field: keyof ClaimParams, cast: string]> = [
  ['p_scope', 'scope', ''],
  ['p_queue', 'queue', ''],
  ['p_partition', 'partition', ''],
  ['p_namespace', 'namespace', ''],
  ['p_task', 'task', ''],
  ['p_group', 'group', ''],
  ['p_batch', 'batch', ''],
  ['p_max_partitions', 'maxPartitions', ''],
  ['p_lease_id', 'leaseId', '::uuid'],
  ['p_lease_seconds', 'leaseSeconds', ''],
  ['p_auto_ack', 'autoAck', ''],
  ['p_subscribe_mode', 'subscribeMode', ''],
  ['p_subscribe_from', 'subscribeFrom', '::timestamptz'],
  ['p_first_attempt', 'firstAttempt', ''],
  ['p_rotate_after', 'rotateAfter', '::uuid'],
  ['p_hold_under', 'holdUnder', ''],
];

/** The claim's columns, as ClaimRow names them. */
export const CLAIM_COLUMNS = `queue_name AS queue, partition_id AS "partitionId", partition_name AS "partitionName",
    message_id AS "messageId", transaction_id AS "transactionId", trace_id AS "traceId", payload,
    producer_sub AS "producerSub", created_at AS "createdAt", empty_reason AS "emptyReason", hold_ms AS "holdMs",
    trace_context AS "traceContext"`;

const CLAIM_SQL = `SELECT ${CLAIM_COLUMNS}
  FROM queen.pop_messages(${CLAIM_ARGUMENTS.map(([parameter, , cast], i) => `${parameter} => $${i + 1}${cast}`).join(', ')})`;

/** Runs one pop attempt. */
export async function cursorClaim(db: Db, p: ClaimParams): Promise<ClaimOutcome> {
  const result = await db.query<ClaimRow>({
    name: 'queen.pop_messages',
    text: CLAIM_SQL,
    values: CLAIM_ARGUMENTS.map(([, field]) => p[field]),
  });
  return claimOutcome(result.rows);
}

/** The outcome of a claim's rows (pop_messages' shape, shared by citus-routing.ts's partition_claim). */
export function claimOutcome(rows: ClaimRow[]): ClaimOutcome {
  const first = rows[0];
  if (first === undefined) return { kind: 'empty', reason: 'none' };
  if (first.emptyReason === 'hold') return { kind: 'hold', holdMs: first.holdMs ?? 0 };
  if (first.emptyReason !== null) return { kind: 'empty', reason: first.emptyReason };
  // The rows are the messages (their two null outcome fields ride along unread): no per-row copy on the hot path.
  return { kind: 'messages', messages: rows };
}

/** A parked pop's wait key, as `queen.pop_ready` reads it: `partition` null is the wildcard. */
export interface ReadyKey {
  queue: string;
  partition: string | null;
  group: string;
}

/**
 * Which keys may have something to claim (a superset: see sql/functions/pop_ready.sql), as one boolean per
 * key in the order given. One statement for any number of keys.
 */
export async function cursorsReady(db: Db, params: { keys: readonly ReadyKey[] }): Promise<boolean[]> {
  const { keys } = params;
  const result = await db.query<{ i: number }>({
    name: 'queen.pop_ready',
    text: 'SELECT i FROM queen.pop_ready($1::text[], $2::text[], $3::text[]) AS i',
    values: [keys.map((k) => k.queue), keys.map((k) => k.partition), keys.map((k) => k.group)],
  });
  const ready = new Array<boolean>(keys.length).fill(false);
  for (const row of result.rows) ready[row.i - 1] = true;
  return ready;
}

/** One ack to apply. `partitionId` is null when the client sent something that is not a UUID. */
export interface AckItem {
  transactionId: string;
  partitionId: string | null;
  status: string;
  group: string;
  leaseId: string | null;
  error: string | null;
}

/** The result of one ack item (docs/api.md 6.4, without its index). */
export interface AckResult {
  success: boolean;
  error: string | null;
  queueName: string | null;
  partitionName: string | null;
  leaseReleased: boolean;
  dlq: boolean;
}

const ACK_SQL = `SELECT success, error, queue_name AS "queueName", partition_name AS "partitionName",
    lease_released AS "leaseReleased", dlq
  FROM queen.ack_messages($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[])`;

/** Applies a batch of acks in one transaction; results in item order. */
export async function cursorAck(db: Db, params: { items: AckItem[] }): Promise<AckResult[]> {
  const { items } = params;
  const result = await db.query<AckResult>({
    name: 'queen.ack_messages',
    text: ACK_SQL,
    values: [items.map((i) => i.transactionId), items.map((i) => i.partitionId), items.map((i) => i.status),
      items.map((i) => i.group), items.map((i) => i.leaseId), items.map((i) => i.error)],
  });
  return result.rows;
}

/** The outcome of a lease extension. */
export interface LeaseExtendResult {
  outcome: 'extended' | 'expired' | 'not_found';
  expiresAt: string | null;
}

/** Extends every live lease record carrying `leaseId` to at least now + seconds. */
export async function leaseExtend(db: Db, params: { leaseId: string; seconds: number }): Promise<LeaseExtendResult> {
  const result = await db.query<LeaseExtendResult>(
    'SELECT outcome, expires_at AS "expiresAt" FROM queen.lease_extend($1::uuid, $2)',
    [params.leaseId, params.seconds],
  );
  return result.rows[0] ?? { outcome: 'not_found', expiresAt: null };
}

/** Releases the leases a pop took when its response could not be delivered. */
export async function leaseRelease(db: Db, params: { leaseId: string; origin: string }): Promise<void> {
  await db.query('SELECT queen.lease_release($1::uuid, $2)', [params.leaseId, params.origin]);
}
