/** `POST /api/v1/ack`, `POST /api/v1/ack/batch` and lease extension (docs/api.md 6). */
import type { AckRequestItem, AckResult } from '../../core/ack.js';
import { isUuid } from '../../ids.js';
import { QUEUE_MODE } from '../../core/names.js';
import type { Body, Wire } from '@queen/client/api';
import type { RouteContext } from '../context.js';
import type { Checked, RequestContext } from '../route.js';
import { onlyValue, traced } from '../tracing.js';
import type { Route } from '../route.js';
import { checkedName } from '../text.js';

/** Ten years: longer extensions are clamped (an interval must stay representable). */
const MAX_LEASE_SECONDS = 315_360_000;

const optionalString = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** An ack's fields with its ids type-checked. */
export type AckFields = Checked<Body<'ackMessage'>, 'transactionId' | 'partitionId'>;

/**
 * Reads one ack's fields (ids already type-checked at the edge or by the caller); `group` is the group that applies: a
 * string other than `""` (queue mode) follows the name rule (docs/api.md 1.10).
 */
export function ackItem(fields: AckFields, group: unknown): AckRequestItem {
  return {
    transactionId: fields.transactionId,
    partitionId: fields.partitionId,
    // A status of another type is still a status the client meant: C1 reports it rather than defaulting it.
    status: fields.status === undefined || fields.status === null ? null : typeof fields.status === 'string' ? fields.status : JSON.stringify(fields.status),
    consumerGroup: typeof group === 'string' && group !== '' ? checkedName(group, 'consumerGroup') : optionalString(group),
    leaseId: optionalString(fields.leaseId),
    error: optionalString(fields.error),
  };
}

function groupAttribute(items: AckRequestItem[]): Record<string, string> {
  const group = onlyValue(items.map((i) => (i.consumerGroup === null || i.consumerGroup === '' ? QUEUE_MODE : i.consumerGroup)));
  return group === null ? {} : { 'messaging.consumer.group.name': group };
}

/** Applies the acks inside a `settle` span when tracing is on; its queue is known once they are applied. */
function settle(core: RouteContext, ctx: RequestContext, items: AckRequestItem[]): Promise<AckResult[]> {
  return traced(core.tracing, ctx, () => ({
    operation: 'settle',
    queue: null,
    links: [],
    attributes: { 'messaging.batch.message_count': items.length, ...groupAttribute(items) },
  }), async (span) => {
    const results = await core.ack.ack(items, span);
    const queue = onlyValue(results.flatMap((r) => (r.queueName === null ? [] : [r.queueName])));
    if (span !== null && queue !== null) span.set({ 'messaging.destination.name': queue });
    return results;
  });
}

function ackWire(result: AckResult, index: number, transactionId: string): Wire<'AckResult'> {
  return { index, transactionId, success: result.success, error: result.error, queueName: result.queueName,
    partitionName: result.partitionName, leaseReleased: result.leaseReleased, dlq: result.dlq };
}

/** The ack and lease routes. */
export function ackRoutes(core: RouteContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/ack',
      access: 'READ_WRITE',
      body: 'required',
      async handle(ctx) {
        const body = ctx.body as AckFields; // validation.ts
        const item = ackItem(body, body.consumerGroup);
        const [result] = await settle(core, ctx, [item]);
        core.metrics.recorder.acked([item], [result!]);
        return { status: 200, body: [ackWire(result!, 0, item.transactionId)] };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/ack/batch',
      access: 'READ_WRITE',
      body: 'required',
      async handle(ctx) {
        // The acknowledgments and their ids are checked at the edge (validation.ts); the rest is read leniently.
        const body = ctx.body as { acknowledgments: AckFields[]; consumerGroup?: unknown };
        const topGroup = typeof body.consumerGroup === 'string' && body.consumerGroup !== '' ? body.consumerGroup : null;
        const items = body.acknowledgments.map((fields) => ackItem(fields, topGroup ?? fields.consumerGroup));
        const results = await settle(core, ctx, items);
        core.metrics.recorder.acked(items, results);
        return { status: 200, body: results.map((r, i) => ackWire(r, i, items[i]!.transactionId)) };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/lease/:leaseId/extend',
      access: 'READ_WRITE',
      body: 'optional',
      async handle({ params, body }) {
        const leaseId = params.leaseId ?? '';
        const seconds = typeof body.seconds === 'number' && Number.isInteger(body.seconds) && body.seconds > 0 ? Math.min(body.seconds, MAX_LEASE_SECONDS) : 60;
        const result = isUuid(leaseId) ? await core.ack.extendLease({ leaseId: leaseId.toLowerCase(), seconds }) : { outcome: 'not_found' as const, expiresAt: null };
        const error = result.outcome === 'extended' ? null : result.outcome === 'expired' ? 'Lease already expired' : 'Lease not found';
        return {
          status: 200,
          body: [{ index: 0, leaseId, success: error === null, error, expiresAt: result.expiresAt, newExpiresAt: result.expiresAt }],
        };
      },
    },
  ];
}
