/**
 * Consumer-group state: claims (`queen.pop_messages`), acks (`queen.ack_messages`) and lease extension
 * (`queen.lease_extend`). See sql/functions/pop_messages.sql and ack_messages.sql for the rules they implement.
 */
import type pg from 'pg';

/** Parameters of one pop attempt. */
export interface ClaimParams {
  scope: 'partition' | 'queue' | 'discovery';
  queue: string | null;
  partition: string | null;
  namespace: string | null;
  task: string | null;
  group: string;
  batch: number;
  maxPartitions: number;
  leaseId: string;
  leaseSeconds: number;
  autoAck: boolean;
  subscribeMode: 'new' | 'timestamp' | null;
  subscribeFrom: string | null;
  firstAttempt: boolean;
  rotateAfter: string | null;
  holdUnder: number;
}

/** One delivered message, as the pop function returns it. */
export interface ClaimedMessage {
  queue_name: string;
  partition_id: string;
  partition_name: string;
  message_id: string;
  transaction_id: string;
  trace_id: string | null;
  /** JSON text, written to the wire verbatim. */
  payload: string;
  producer_sub: string | null;
  created_at: string;
}

/** The outcome of one attempt: messages, or the reason there are none. */
export type ClaimOutcome =
  | { kind: 'messages'; messages: ClaimedMessage[] }
  | { kind: 'empty'; reason: string }
  | { kind: 'hold'; holdMs: number };

interface ClaimRow extends ClaimedMessage {
  empty_reason: string | null;
  hold_ms: number | null;
}

const CLAIM_SQL = `SELECT queue_name, partition_id, partition_name, message_id, transaction_id, trace_id, payload,
    producer_sub, created_at, empty_reason, hold_ms
  FROM queen.pop_messages($1, $2, $3, $4, $5, $6, $7, $8, $9::uuid, $10, $11, $12, $13::timestamptz, $14, $15::uuid, $16)`;

/** Runs one pop attempt. */
export async function cursorClaim(db: pg.Pool | pg.PoolClient, p: ClaimParams): Promise<ClaimOutcome> {
  const result = await db.query<ClaimRow>({
    name: 'queen.pop_messages',
    text: CLAIM_SQL,
    values: [p.scope, p.queue, p.partition, p.namespace, p.task, p.group, p.batch, p.maxPartitions, p.leaseId,
      p.leaseSeconds, p.autoAck, p.subscribeMode, p.subscribeFrom, p.firstAttempt, p.rotateAfter, p.holdUnder],
  });
  const first = result.rows[0];
  if (first === undefined) return { kind: 'empty', reason: 'none' };
  if (first.empty_reason === 'hold') return { kind: 'hold', holdMs: first.hold_ms ?? 0 };
  if (first.empty_reason !== null) return { kind: 'empty', reason: first.empty_reason };
  return { kind: 'messages', messages: result.rows };
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

/** The result of one ack item (API.md 6.4, without its index). */
export interface AckResult {
  success: boolean;
  error: string | null;
  queueName: string | null;
  partitionName: string | null;
  leaseReleased: boolean;
  dlq: boolean;
}

interface AckRow {
  success: boolean;
  error: string | null;
  queue_name: string | null;
  partition_name: string | null;
  lease_released: boolean;
  dlq: boolean;
}

const ACK_SQL = `SELECT success, error, queue_name, partition_name, lease_released, dlq
  FROM queen.ack_messages($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[])`;

/** Applies a batch of acks in one transaction; results in item order. */
export async function cursorAck(db: pg.Pool | pg.PoolClient, params: { items: AckItem[] }): Promise<AckResult[]> {
  const { items } = params;
  const result = await db.query<AckRow>({
    name: 'queen.ack_messages',
    text: ACK_SQL,
    values: [items.map((i) => i.transactionId), items.map((i) => i.partitionId), items.map((i) => i.status),
      items.map((i) => i.group), items.map((i) => i.leaseId), items.map((i) => i.error)],
  });
  return result.rows.map((row) => ({
    success: row.success,
    error: row.error,
    queueName: row.queue_name,
    partitionName: row.partition_name,
    leaseReleased: row.lease_released,
    dlq: row.dlq,
  }));
}

/** The outcome of a lease extension. */
export interface LeaseExtendResult {
  outcome: 'extended' | 'expired' | 'not_found';
  expiresAt: string | null;
}

/** Extends every live lease record carrying `leaseId` to at least now + seconds. */
export async function leaseExtend(db: pg.Pool, params: { leaseId: string; seconds: number }): Promise<LeaseExtendResult> {
  const result = await db.query<{ outcome: LeaseExtendResult['outcome']; expires_at: string | null }>(
    'SELECT outcome, expires_at FROM queen.lease_extend($1::uuid, $2)',
    [params.leaseId, params.seconds],
  );
  const row = result.rows[0];
  return { outcome: row?.outcome ?? 'not_found', expiresAt: row?.expires_at ?? null };
}

/** Releases the leases a pop took when its response could not be delivered. */
export async function leaseRelease(db: pg.Pool, params: { leaseId: string; origin: string }): Promise<void> {
  await db.query('SELECT queen.lease_release($1::uuid, $2)', [params.leaseId, params.origin]);
}
