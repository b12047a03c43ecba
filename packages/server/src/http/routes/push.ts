/** `POST /api/v1/push` (docs/api.md 4.4): the 400 type checks, then per-item outcomes in input order. */
import { invalid } from '../../errors.js';
import { DEFAULT_PARTITION } from '../../core/names.js';
import { BUFFER_WRITE_FAILED, type PushItem, type PushOutcome } from '../../core/push.js';
import { isValidTracestate, parseTraceparent, storedTraceContext } from '../../core/trace-context.js';
import type { Wire } from '@queen/client/api';
import type { RouteContext } from '../context.js';
import { onlyValue, partitionAttribute, traced } from '../tracing.js';
import type { Route } from '../route.js';

/** The 400 of an invalid W3C trace context field (docs/api.md 4.4). */
const INVALID_TRACEPARENT = 'Invalid traceparent: must be a W3C traceparent (00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>)';
const INVALID_TRACESTATE = 'Invalid tracestate: must be a W3C tracestate (at most 32 key=value members, 512 characters)';

/** An item's trace context in its stored form (core/trace-context.ts), or null; invalid fields are a 400. */
function itemTraceContext(traceparent: unknown, tracestate: unknown): string | null {
  if (traceparent !== undefined && typeof traceparent !== 'string') throw invalid('Traceparent must be a string');
  if (tracestate !== undefined && typeof tracestate !== 'string') throw invalid('Tracestate must be a string');
  if (traceparent === undefined) {
    if (tracestate !== undefined) throw invalid('Tracestate needs a traceparent');
    return null;
  }
  if (parseTraceparent(traceparent) === null) throw invalid(INVALID_TRACEPARENT);
  if (tracestate !== undefined && !isValidTracestate(tracestate)) throw invalid(INVALID_TRACESTATE);
  return storedTraceContext(traceparent, tracestate ?? null);
}

/**
 * The request's own `traceparent`/`tracestate` headers as a stored context, for a single-item push whose item
 * has none (docs/api.md 4.4). An invalid header is ignored, as W3C Trace Context tells a receiver to do: the
 * header belongs to the HTTP hop, which the caller may not control (a proxy, an agent).
 */
function headerTraceContext(traceparent: string | null, tracestate: string | null): string | null {
  if (traceparent === null || parseTraceparent(traceparent) === null) return null;
  return storedTraceContext(traceparent, tracestate !== null && isValidTracestate(tracestate) ? tracestate : null);
}

/**
 * Type-checks the items of a push body (also used by transactions and streams cycles); a failure writes
 * nothing. An absent or null payload is stored as `absentPayload` (push: null; transactions: {}).
 */
export function parsePushItems(raw: unknown, absentPayload: unknown = null): PushItem[] {
  if (!Array.isArray(raw)) throw invalid('items array is required');
  return raw.map((item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw invalid('Each item must be an object');
    const fields = item as Record<string, unknown>;
    const optional = (name: string): unknown => (fields[name] === null ? undefined : fields[name]);
    const queue = optional('queue');
    if (typeof queue !== 'string') throw invalid('Queue must be a string');
    const partition = optional('partition');
    if (partition !== undefined && typeof partition !== 'string') throw invalid('Partition must be a string');
    const transactionId = optional('transactionId');
    if (transactionId !== undefined && typeof transactionId !== 'string') throw invalid('TransactionId must be a string');
    const traceId = optional('traceId');
    if (traceId !== undefined && typeof traceId !== 'string') throw invalid('TraceId must be a string');
    return {
      queue,
      partition: partition ?? DEFAULT_PARTITION,
      payload: JSON.stringify(fields.payload === undefined || fields.payload === null ? absentPayload : fields.payload),
      transactionId: transactionId === undefined || transactionId === '' ? null : transactionId,
      traceId: traceId ?? null,
      traceContext: itemTraceContext(optional('traceparent'), optional('tracestate')),
    };
  });
}

/** The wire object of one push outcome. */
export function pushResultWire(outcome: PushOutcome, index: number): Wire<'PushResult'> {
  switch (outcome.status) {
    case 'queued':
      return { index, transaction_id: outcome.transactionId, status: 'queued', message_id: outcome.messageId,
        partition_id: outcome.partitionId, trace_id: outcome.traceId, queueName: outcome.queue };
    case 'duplicate':
      return { index, transaction_id: outcome.transactionId, status: 'duplicate', message_id: outcome.messageId, queueName: outcome.queue };
    case 'failed':
      return { index, transaction_id: outcome.transactionId, status: 'failed', queueName: outcome.queue, queue: outcome.queue,
        partition: outcome.partition, error: outcome.error };
    case 'buffered':
      return { index, transaction_id: outcome.transactionId, status: 'buffered', queueName: outcome.queue, queue: outcome.queue,
        partition: outcome.partition, transactionId: outcome.transactionId };
  }
}

/** The push route. */
export function pushRoutes(core: RouteContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/push',
      access: 'READ_WRITE',
      body: 'required',
      async handle(ctx) {
        const items = parsePushItems(ctx.body.items);
        if (items.length === 1 && items[0]!.traceContext === null && ctx.traceparent !== null) {
          items[0]!.traceContext = headerTraceContext(ctx.traceparent, ctx.tracestate);
        }
        const outcomes = await traced(core.tracing, ctx, () => ({
          operation: 'publish',
          queue: onlyValue(items.map((i) => i.queue)),
          links: items.map((i) => i.traceContext),
          attributes: { 'messaging.batch.message_count': items.length, ...partitionAttribute(items.map((i) => i.partition)) },
        }), (span) => core.push.push(items, ctx.subject, span));
        core.metrics.recorder.pushed(outcomes);
        // Items that had to be buffered and could not be written: 500 with the same array (docs/api.md 4.4).
        const bufferFailed = outcomes.some((o) => o.status === 'failed' && o.error === BUFFER_WRITE_FAILED);
        return { status: bufferFailed ? 500 : 201, body: outcomes.map(pushResultWire) };
      },
    },
  ];
}
