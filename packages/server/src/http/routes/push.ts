/** `POST /api/v1/push` (docs/api.md 4.4): the 400 type checks, then per-item outcomes in input order. */
import { badRequest } from '../../errors.js';
import { DEFAULT_PARTITION } from '../../core/names.js';
import { BUFFER_WRITE_FAILED, type PushItem, type PushOutcome } from '../../core/push.js';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';

/**
 * Type-checks the items of a push body (also used by transactions); a failure writes nothing. An absent or
 * null payload is stored as `absentPayload` (push: null; transactions: {}).
 */
export function parsePushItems(raw: unknown, absentPayload: unknown = null): PushItem[] {
  if (!Array.isArray(raw)) throw badRequest('items array is required');
  return raw.map((item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw badRequest('Each item must be an object');
    const fields = item as Record<string, unknown>;
    const optional = (name: string): unknown => (fields[name] === null ? undefined : fields[name]);
    const queue = optional('queue');
    if (typeof queue !== 'string') throw badRequest('Queue must be a string');
    const partition = optional('partition');
    if (partition !== undefined && typeof partition !== 'string') throw badRequest('Partition must be a string');
    const transactionId = optional('transactionId');
    if (transactionId !== undefined && typeof transactionId !== 'string') throw badRequest('TransactionId must be a string');
    const traceId = optional('traceId');
    if (traceId !== undefined && typeof traceId !== 'string') throw badRequest('TraceId must be a string');
    return {
      queue,
      partition: partition ?? DEFAULT_PARTITION,
      payload: JSON.stringify(fields.payload === undefined || fields.payload === null ? absentPayload : fields.payload),
      transactionId: transactionId === undefined || transactionId === '' ? null : transactionId,
      traceId: traceId ?? null,
    };
  });
}

/** The wire object of one push outcome. */
export function pushResultWire(outcome: PushOutcome, index: number): Record<string, unknown> {
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
        const outcomes = await core.push.push(items, ctx.subject);
        core.metrics.recorder.pushed(outcomes);
        // Items that had to be buffered and could not be written: 500 with the same array (docs/api.md 4.4).
        const bufferFailed = outcomes.some((o) => o.status === 'failed' && o.error === BUFFER_WRITE_FAILED);
        return { status: bufferFailed ? 500 : 201, body: outcomes.map(pushResultWire) };
      },
    },
  ];
}
