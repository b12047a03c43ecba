/**
 * Traces (docs/api.md 7.6): consumers record events against a message; operators read them per message, by
 * trace name, and list the names in use. Fields are snake_case on the wire (upstream's shape, built by core/traces.ts).
 */
import type { Reply as ApiReply, Body } from '@queen/client/api';
import { adminNotFound } from '../errors.js';
import { effectiveGroup, isValidName } from '../../core/names.js';
import { messageKey } from '../../core/messages.js';
import { namedTraceEventWire, traceEventWire, traceNameWire } from '../../core/traces.js';
import { uuidv7 } from '../../ids.js';
import type { RouteContext } from '../context.js';
import { pageOf } from '../pagination.js';
import type { Checked, Route } from '../route.js';
import { checkedName } from '../text.js';
import { messagePath } from './messages.js';

/** A validated `POST /api/v1/traces` body. */
export interface TraceInput {
  transactionId: string;
  partitionId: string;
  group: string;
  eventType: string;
  /** The event data as JSON text. */
  data: string;
  names: string[];
}

/**
 * Reads a trace body. `consumerGroup` defaults to queue mode, `eventType` to `info`; `traceNames` is a name,
 * an array of names or null (duplicates dropped). The group and the names follow the name rule (docs/api.md
 * 1.10: a trace name is a path segment of `/traces/by-name/:traceName`): `Invalid consumerGroup` and
 * `Invalid traceNames` (anything but valid names), or the same with `: "." and ".." are not allowed`.
 */
export function parseTraceInput(body: Record<string, unknown>): TraceInput {
  // transactionId, partitionId (strings) and data (present, not null) are checked at the edge (TraceRequest's marks).
  const { transactionId, partitionId, data, consumerGroup, eventType, traceNames } = body as Checked<Body<'recordTrace'>, 'transactionId' | 'partitionId' | 'data'>;
  const group = effectiveGroup(typeof consumerGroup === 'string' ? consumerGroup : null);
  checkedName(group, 'consumerGroup');
  const type = typeof eventType === 'string' && eventType !== '' ? eventType : 'info';
  const list = traceNames === undefined || traceNames === null ? [] : Array.isArray(traceNames) ? traceNames : [traceNames];
  const names = list.map((name: unknown) => checkedName(typeof name === 'string' ? name : '', 'traceNames'));
  return { transactionId, partitionId, group, eventType: type, data: JSON.stringify(data), names: [...new Set(names)] };
}

/** The trace routes. */
export function traceRoutes(core: RouteContext): Route[] {
  const { catalog } = core;
  return [
    {
      method: 'POST',
      path: '/api/v1/traces',
      access: 'READ_WRITE',
      body: 'required',
      async handle({ body }) {
        const input = parseTraceInput(body);
        const key = messageKey(input.partitionId, input.transactionId);
        const id = uuidv7();
        const recorded = key !== null && (await catalog.traceRecord({ ...input, ...key, id, workerId: core.identity.serverId }));
        if (!recorded) throw adminNotFound({ success: false, error: 'Message not found' });
        return { status: 201, body: { success: true, traceId: id } satisfies ApiReply<'recordTrace'> };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/traces/names',
      access: 'READ_ONLY',
      async handle({ query }) {
        const page = pageOf(query);
        const { total, names } = await catalog.traceNameList(page);
        return { status: 200, body: { trace_names: names.map(traceNameWire), total, pagination: page } satisfies ApiReply<'listTraceNames'> };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/traces/by-name/:traceName',
      access: 'READ_ONLY',
      async handle({ params, query }) {
        const name = params.traceName ?? '';
        const page = pageOf(query);
        const { total, traces } = isValidName(name) ? await catalog.traceListByName({ name, ...page, maxBytes: core.bounds.listingMaxBytes, readPayload: (stored) => core.payloads.value(stored) }) : { total: 0, traces: [] };
        return { status: 200, body: { traces: traces.map((event) => namedTraceEventWire(event, messagePath)), total, pagination: page } satisfies ApiReply<'listTracesByName'> };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/traces/:partitionId/:transactionId',
      access: 'READ_ONLY',
      async handle({ params }) {
        const key = messageKey(params.partitionId ?? '', params.transactionId ?? '');
        const traces = key === null ? [] : await catalog.traceListForMessage({ ...key, maxBytes: core.bounds.listingMaxBytes });
        return { status: 200, body: { traces: traces.map(traceEventWire) } satisfies ApiReply<'getTraces'> };
      },
    },
  ];
}
