/**
 * The wire side of a push, shared by the push builder and the client-side buffer: mapping inputs to wire
 * items, sending them, and dispatching the per-item results to the callbacks. It knows no builder and no
 * client context, so the buffer (which the context holds) can use it without an import circle.
 *
 * A push can also travel through the caller's own database client (`sendPushSql`): the same wire items go to
 * the SQL API's `queen.produce`, which answers with the same per-item results, inside the caller's
 * transaction. The driver's failure (bad input, an encrypted queue, a lost connection) leaves that
 * transaction aborted, so it always rejects (`DATABASE`), whatever callbacks are attached.
 */
import { errorMessage, QueenError } from './errors.js';
import { push } from './api/messaging.js';
import { recording } from './api/route.js';
import type { Transport } from './http.js';
import { isUuid, uuidv7 } from './ids.js';
import type { SafeLogger } from './log.js';
import type { TraceCarrier } from './telemetry.js';
import type { DuplicateResult, FailedResult, PushInput, PushItem, PushResultItem, SqlClient } from './types.js';

/** Callbacks attached to one push. */
export interface PushCallbacks<T> {
  onSuccess?: (items: PushItem<T>[], results: PushResultItem[]) => unknown;
  onDuplicate?: (items: PushItem<T>[], error: QueenError) => unknown;
  onError?: (items: PushItem<T>[], error: QueenError) => unknown;
}

/** Maps push inputs to wire items: payload from `data`, else `payload`, else the whole item. */
export function toWireItems<T>(queue: string, partition: string, inputs: readonly PushInput<T>[], logger: SafeLogger): PushItem<T>[] {
  return inputs.map((input) => {
    const record = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined;
    let payload: unknown = input;
    if (record && 'data' in record) payload = record.data;
    else if (record && 'payload' in record) payload = record.payload;
    const given = record?.transactionId;
    const item: PushItem<T> = { queue, partition, payload: payload as T, transactionId: typeof given === 'string' && given !== '' ? given : uuidv7() };
    const traceId = record?.traceId;
    if (traceId !== undefined && traceId !== null) {
      if (isUuid(traceId)) item.traceId = traceId;
      else logger.warn('traceId dropped: not a UUID', { queue, transactionId: item.transactionId });
    }
    if (typeof record?.traceparent === 'string') {
      item.traceparent = record.traceparent;
      if (typeof record.tracestate === 'string') item.tracestate = record.tracestate;
    }
    return item;
  });
}

/** Gives the items without a trace context of their own the producer span's (`telemetry`). */
export function withTraceContext<T>(items: PushItem<T>[], carrier: TraceCarrier | null): PushItem<T>[] {
  if (carrier === null) return items;
  return items.map((item) => (item.traceparent !== undefined ? item : { ...item, ...carrier }));
}

/**
 * Calls the callbacks with their own items: queued/buffered -> onSuccess, duplicate -> onDuplicate, failed ->
 * onError. Returns the failed results (the caller rejects with them when no onError was attached).
 */
export async function dispatchResults<T>(items: PushItem<T>[], results: PushResultItem[], callbacks: PushCallbacks<T>): Promise<FailedResult[]> {
  const pick = (statuses: string[]) => {
    const chosen: number[] = [];
    results.forEach((r, i) => statuses.includes(r.status) && chosen.push(i));
    return { items: chosen.map((i) => items[i]!), results: chosen.map((i) => results[i]!) };
  };
  const ok = pick(['queued', 'buffered']);
  const dup = pick(['duplicate']);
  const bad = pick(['failed']);
  if (callbacks.onSuccess && ok.items.length > 0) await callbacks.onSuccess(ok.items, ok.results);
  if (callbacks.onDuplicate && dup.items.length > 0) {
    await callbacks.onDuplicate(dup.items, new QueenError('PUSH_FAILED', 'Duplicate transactionId', { results: dup.results as DuplicateResult[] }));
  }
  const failed = bad.results as FailedResult[];
  if (callbacks.onError && failed.length > 0) await callbacks.onError(bad.items, pushFailed(failed));
  return failed;
}

/** The PUSH_FAILED error for failed items. */
export function pushFailed(failed: FailedResult[]): QueenError {
  return new QueenError('PUSH_FAILED', `Push failed for ${failed.length} item(s): ${failed[0]?.error ?? 'unknown error'}`, { results: failed });
}

/** Sends wire items in one request; resolves with the broker's per-item results. */
export async function sendPush<T>(transport: Transport, items: PushItem<T>[]): Promise<PushResultItem[]> {
  const first = items[0]!;
  const http = recording(transport);
  const results: unknown = await push(http, { items }, { affinityKey: `${first.queue}:${first.partition}` });
  if (!Array.isArray(results)) throw new QueenError('HTTP', 'Unexpected push answer', { status: http.last!.status, body: results, url: http.last!.url });
  return results as PushResultItem[];
}

/** The statement of a push through the caller's database client (SQL API v1, docs/sql-api.md). */
const PRODUCE_SQL = 'SELECT queen.produce($1::jsonb) AS results';

/** Sends wire items through `db` in its current transaction; resolves with the same per-item results as HTTP. */
export async function sendPushSql<T>(db: SqlClient, items: PushItem<T>[]): Promise<PushResultItem[]> {
  let rows: unknown[];
  try {
    ({ rows } = await db.query(PRODUCE_SQL, [JSON.stringify(items)]));
  } catch (error) {
    throw new QueenError('DATABASE', `Push through the database failed: ${errorMessage(error)}`, { cause: error });
  }
  const row = rows[0];
  let results: unknown = row !== null && typeof row === 'object' ? (row as { results?: unknown }).results : undefined;
  if (typeof results === 'string') results = JSON.parse(results) as unknown;
  if (!Array.isArray(results) || results.length !== items.length) {
    throw new QueenError('DATABASE', 'Unexpected answer of queen.produce', { body: row });
  }
  return results as PushResultItem[];
}
