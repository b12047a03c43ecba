/** `POST /api/v1/push` (docs/api.md 4.4): the 400 type checks, then per-item outcomes in input order. */
import { invalid } from '../../errors.js';
import { DEFAULT_PARTITION } from '../../core/names.js';
import { BUFFER_WRITE_FAILED, type PushItem, type PushOutcome } from '../../core/push.js';
import { isValidTracestate, parseTraceparent, storedTraceContext } from '../../core/trace-context.js';
import type { Body, Wire } from '@queen/client/api';
import type { RouteContext } from '../context.js';
import { documentValidators } from '../validation.js';
import { onlyValue, partitionAttribute, traced } from '../tracing.js';
import type { Route } from '../route.js';

/** The 400 of an invalid W3C trace context field (docs/api.md 4.4). */
const INVALID_TRACEPARENT = 'Invalid traceparent: must be a W3C traceparent (00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>)';
const INVALID_TRACESTATE = 'Invalid tracestate: must be a W3C tracestate (at most 32 key=value members, 512 characters)';

/** An item's trace context in its stored form (core/trace-context.ts), or null; invalid fields are a 400. */
function itemTraceContext(traceparent: string | undefined, tracestate: string | undefined): string | null {
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
 * The items of a push body, type-checked at the edge against the document's PushItem (validation.ts): null
 * fields count as absent; an absent or null payload is stored as `absentPayload` (push: null; transactions: {}).
 */
export function pushItems(items: Wire<'PushItem'>[], absentPayload: unknown = null): PushItem[] {
  return items.map((item) => ({
    queue: item.queue,
    partition: item.partition ?? DEFAULT_PARTITION,
    payload: JSON.stringify(item.payload === undefined || item.payload === null ? absentPayload : item.payload),
    transactionId: item.transactionId === undefined || item.transactionId === null || item.transactionId === '' ? null : item.transactionId,
    traceId: item.traceId ?? null,
    traceContext: itemTraceContext(item.traceparent ?? undefined, item.tracestate ?? undefined),
  }));
}

/**
 * Type-checks the items of a body that holds push items inside (transactions, streams cycles) with the same
 * compiled PushItem schema the push route's edge check uses, then reads them as `pushItems` does; a failure
 * writes nothing.
 */
export function parsePushItems(raw: unknown[], absentPayload: unknown = null): PushItem[] {
  const check = documentValidators().schema('PushItem');
  for (const item of raw) check(item);
  return pushItems(raw as Wire<'PushItem'>[], absentPayload);
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
        const items = pushItems((ctx.body as Body<'push'>).items);
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
