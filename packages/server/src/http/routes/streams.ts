/**
 * The streams routes (docs/streams.md; docs/api.md 8 as reconciled in docs/streams.md): `POST /streams/v1/queries`,
 * `POST /streams/v1/cycle`, `POST /streams/v1/state/get`.
 *
 * Every wrongly typed field is a 400 checked over the whole body before anything runs, so a 400 applies
 * nothing: types, required fields, lengths and UUID syntax at the edge from the document (the request schemas'
 * `x-queen-errors`, http/validation.ts); here only what a schema cannot say (the name rule, byte sizes). What the spec makes a cycle failure (an unknown state-op type or ack status, an unknown query, a
 * stale lease, a sink item that cannot be written) is a 200 with `success:false`, also with nothing applied.
 * Limits: a state key is at most 1024 bytes (UTF-8), a state value at most 1 MiB of JSON; names at most 255
 * characters, and not `.` or `..` (docs/api.md 1.10). Text PostgreSQL cannot store (NUL, lone surrogates) is refused for the whole body before the
 * route runs (http/text.ts), so it never reaches a state key, a state value or a name.
 */
import { invalid } from '../../errors.js';
import { isUuid } from '../../ids.js';
import { NO_LEASE } from '../../core/ack.js';
import type { CycleAckRequest, CycleOutcome, StateOpRequest } from '../../core/streams/cycle.js';
import { stateRowWire } from '../../core/streams/queries.js';
import type { Reply as ApiReply, Body, Wire } from '@queen/client/api';
import type { RouteContext } from '../context.js';
import type { Checked, Route } from '../route.js';
import { checkedName } from '../text.js';
import { parsePushItems, pushResultWire } from './push.js';

/** The longest state key accepted, in UTF-8 bytes (it is part of the primary key). */
export const MAX_STATE_KEY_BYTES = 1024;
/** The largest state value accepted, in bytes of JSON text. */
export const MAX_STATE_VALUE_BYTES = 1_048_576;

/** The bodies as the edge checked them (`undefined` and `null` count as absent, docs/api.md 1.2 rule 5). */
type QueryBody = Checked<Body<'registerQuery'>, 'name' | 'source_queue' | 'config_hash' | 'sink_queue' | 'reset'>;
type CycleBody = Checked<Body<'cycle'>, 'query_id' | 'partition_id' | 'consumer_group' | 'state_ops' | 'push_items' | 'ack' | 'release_lease'>;
type StateOpBody = NonNullable<CycleBody['state_ops']>[number];
type CycleAckBody = NonNullable<CycleBody['ack']>;

/** A query, queue or group name (at most 255 characters, edge): the name rule of docs/api.md 1.10 (`.` and `..` refused). */
const streamName = (value: string, field: string): string => checkedName(value, field);

/** Reads `state_ops` (types checked at the edge) and bounds their sizes; an unknown `type` is left for the cycle to fail on. */
export function parseStateOps(raw: StateOpBody[] | null | undefined): StateOpRequest[] {
  if (raw === undefined || raw === null) return [];
  return raw.map((fields) => {
    if (Buffer.byteLength(fields.key, 'utf8') > MAX_STATE_KEY_BYTES) throw invalid(`state_op key too long (max ${MAX_STATE_KEY_BYTES} bytes)`);
    if (fields.type !== 'upsert') return { type: fields.type, key: fields.key, value: null };
    // A missing (or null) upsert value stores {} (docs/streams.md).
    const value = fields.value === undefined || fields.value === null ? {} : fields.value;
    const json = JSON.stringify(value);
    if (Buffer.byteLength(json, 'utf8') > MAX_STATE_VALUE_BYTES) throw invalid(`state_op value too large (max ${MAX_STATE_VALUE_BYTES} bytes)`);
    return { type: 'upsert', key: fields.key, value: json };
  });
}

/** A leaseId that is not a UUID matches no lease, as on the ack routes (core/ack.ts); a NUL never gets here (text.ts). */
function leaseIdOf(value: string | null): string | null {
  return value === null || value === '' || isUuid(value) ? value : NO_LEASE;
}

/** Reads `ack` (types checked at the edge); its status and transactionId are checked by the cycle (they fail it, docs/streams.md). */
export function parseCycleAck(fields: CycleAckBody | null | undefined): CycleAckRequest | null {
  if (fields === undefined || fields === null) return null;
  return {
    transactionId: fields.transactionId,
    leaseId: leaseIdOf(fields.leaseId ?? null),
    status: fields.status,
    count: fields.count ?? null,
    error: fields.error ?? null,
  };
}

function cycleWire(queryId: string, partitionId: string, outcome: CycleOutcome): Wire<'StreamCycleResult'> {
  const ids = { query_id: queryId, partition_id: partitionId, queueName: outcome.queueName };
  if (!outcome.success) {
    return { success: false, ...ids, state_ops_applied: 0, push_results: [], ack_result: null, error: outcome.error };
  }
  return { success: true, ...ids, state_ops_applied: outcome.stateOpsApplied,
    push_results: outcome.pushResults.map(pushResultWire), ack_result: outcome.ackResult };
}

/** The three streams routes. */
export function streamsRoutes(core: RouteContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/streams/v1/queries',
      access: 'READ_WRITE',
      body: 'required',
      async handle(ctx) {
        const body = ctx.body as QueryBody;
        const sink = body.sink_queue;
        const reply = await core.streams.register({
          name: streamName(body.name, 'name'),
          sourceQueue: streamName(body.source_queue, 'source_queue'),
          configHash: body.config_hash,
          sinkQueue: sink === undefined || sink === null || sink === '' ? null : streamName(sink, 'sink_queue'),
          reset: body.reset ?? false,
        });
        return { status: 200, body: reply satisfies ApiReply<'registerQuery'> };
      },
    },
    {
      method: 'POST',
      path: '/streams/v1/cycle',
      access: 'READ_WRITE',
      body: 'required',
      async handle(ctx) {
        const body = ctx.body as CycleBody;
        const { query_id: queryId, partition_id: partitionId } = body;
        const group = body.consumer_group ?? null;
        const consumerGroup = group === null || group === '' ? group : streamName(group, 'consumer_group');
        const stateOps = parseStateOps(body.state_ops);
        const pushItems = body.push_items === undefined || body.push_items === null ? [] : parsePushItems(body.push_items, null);
        const ack = parseCycleAck(body.ack);
        const releaseLease = body.release_lease ?? true;
        const outcome = await core.streams.cycle(
          { queryId, partitionId, consumerGroup, stateOps, pushItems, ack, releaseLease },
          ctx.subject,
        );
        if (outcome.success) core.metrics.recorder.pushed(outcome.pushResults);
        return { status: 200, body: cycleWire(queryId, partitionId, outcome) };
      },
    },
    {
      method: 'POST',
      path: '/streams/v1/state/get',
      access: 'READ_ONLY',
      body: 'required',
      async handle({ body }) {
        const { query_id: queryId, partition_id: partitionId } = body as Checked<Body<'getState'>, 'query_id' | 'partition_id'>;
        const keys = Array.isArray(body.keys) && body.keys.length > 0 ? body.keys.filter((k): k is string => typeof k === 'string') : null;
        const keyPrefix = typeof body.key_prefix === 'string' && body.key_prefix !== '' ? body.key_prefix : null;
        const ripe = body.ripe_at_or_before;
        const group = typeof body.consumer_group === 'string' && body.consumer_group !== '' ? body.consumer_group : null;
        const rows = await core.streams.state({
          queryId,
          partitionId,
          keys,
          keyPrefix,
          ripeAtOrBefore: typeof ripe === 'number' && Number.isFinite(ripe) ? ripe : null,
          group,
        });
        return { status: 200, body: { success: true, rows: rows.map(stateRowWire) } satisfies ApiReply<'getState'> };
      },
    },
  ];
}
