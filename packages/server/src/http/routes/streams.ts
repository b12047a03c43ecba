/**
 * The streams routes (docs/streams.md; docs/api.md 8 as reconciled in docs/streams.md): `POST /streams/v1/queries`,
 * `POST /streams/v1/cycle`, `POST /streams/v1/state/get`.
 *
 * Every wrongly typed field is a 400 checked over the whole body before anything runs, so a 400 applies
 * nothing. What the spec makes a cycle failure (an unknown state-op type or ack status, an unknown query, a
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
import type { Reply as ApiReply, Wire } from '@queen/client/api';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';
import { checkedName } from '../text.js';
import { parsePushItems, pushResultWire } from './push.js';

/** The longest state key accepted, in UTF-8 bytes (it is part of the primary key). */
export const MAX_STATE_KEY_BYTES = 1024;
/** The largest state value accepted, in bytes of JSON text. */
export const MAX_STATE_VALUE_BYTES = 1_048_576;
const MAX_NAME_LENGTH = 255;

type Fields = Record<string, unknown>;

/** `undefined` and `null` count as absent (docs/api.md 1.2 rule 5). */
const absent = (value: unknown): value is null | undefined => value === undefined || value === null;

/** A required non-empty string field, else 400 `<field> is required`. */
function requiredString(body: Fields, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') throw invalid(`${field} is required`);
  return value;
}

/** A value PostgreSQL can index: at most 255 characters (unstorable text is refused before, http/text.ts). */
function bounded(value: string, field: string): string {
  if (value.length > MAX_NAME_LENGTH) throw invalid(`${field} is too long (max ${MAX_NAME_LENGTH} characters)`);
  return value;
}

/** A query, queue or group name: bounded, then the name rule of docs/api.md 1.10 (`.` and `..` refused). */
const streamName = (value: string, field: string): string => checkedName(bounded(value, field), field);

function optionalBoolean(body: Fields, field: string, fallback: boolean): boolean {
  const value = body[field];
  if (absent(value)) return fallback;
  if (typeof value !== 'boolean') throw invalid(`${field} must be a boolean`);
  return value;
}

function optionalString(fields: Fields, field: string, label = field): string | null {
  const value = fields[field];
  if (absent(value)) return null;
  if (typeof value !== 'string') throw invalid(`${label} must be a string`);
  return value;
}

/** A required UUID field of the cycle: absent -> `<field> is required`, malformed -> `<field> must be a UUID`. */
function uuidField(body: Fields, field: string): string {
  const value = requiredString(body, field);
  if (!isUuid(value)) throw invalid(`${field} must be a UUID`);
  return value;
}

/** Type-checks `state_ops`; an unknown `type` is left for the cycle to fail on. */
export function parseStateOps(raw: unknown): StateOpRequest[] {
  if (absent(raw)) return [];
  if (!Array.isArray(raw)) throw invalid('state_ops must be an array');
  return raw.map((op: unknown) => {
    if (op === null || typeof op !== 'object' || Array.isArray(op)) throw invalid('Each state_op must be an object');
    const fields = op as Fields;
    if (typeof fields.key !== 'string') throw invalid('state_op key must be a string');
    if (Buffer.byteLength(fields.key, 'utf8') > MAX_STATE_KEY_BYTES) throw invalid(`state_op key too long (max ${MAX_STATE_KEY_BYTES} bytes)`);
    if (fields.type !== 'upsert') return { type: fields.type, key: fields.key, value: null };
    // A missing (or null) upsert value stores {} (docs/streams.md).
    const value = absent(fields.value) ? {} : fields.value;
    const json = JSON.stringify(value);
    if (Buffer.byteLength(json, 'utf8') > MAX_STATE_VALUE_BYTES) throw invalid(`state_op value too large (max ${MAX_STATE_VALUE_BYTES} bytes)`);
    return { type: 'upsert', key: fields.key, value: json };
  });
}

/** A leaseId that is not a UUID matches no lease, as on the ack routes (core/ack.ts); a NUL never gets here (text.ts). */
function leaseIdOf(value: string | null): string | null {
  return value === null || value === '' || isUuid(value) ? value : NO_LEASE;
}

/** Type-checks `ack`; its status and transactionId are checked by the cycle (they fail it, docs/streams.md). */
export function parseCycleAck(raw: unknown): CycleAckRequest | null {
  if (absent(raw)) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid('ack must be an object');
  const fields = raw as Fields;
  const count = fields.count;
  if (!absent(count) && (typeof count !== 'number' || !Number.isFinite(count))) throw invalid('ack.count must be a number');
  return {
    transactionId: fields.transactionId,
    leaseId: leaseIdOf(optionalString(fields, 'leaseId', 'ack.leaseId')),
    status: fields.status,
    count: absent(count) ? null : count,
    error: optionalString(fields, 'error', 'ack.error'),
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
      async handle({ body }) {
        const name = requiredString(body, 'name');
        const sourceQueue = requiredString(body, 'source_queue');
        const configHash = requiredString(body, 'config_hash');
        const sink = optionalString(body, 'sink_queue');
        const reply = await core.streams.register({
          name: streamName(name, 'name'),
          sourceQueue: streamName(sourceQueue, 'source_queue'),
          configHash: bounded(configHash, 'config_hash'),
          sinkQueue: sink === null || sink === '' ? null : streamName(sink, 'sink_queue'),
          reset: optionalBoolean(body, 'reset', false),
        });
        return { status: 200, body: reply satisfies ApiReply<'registerQuery'> };
      },
    },
    {
      method: 'POST',
      path: '/streams/v1/cycle',
      access: 'READ_WRITE',
      body: 'required',
      async handle({ body, subject }) {
        const queryId = uuidField(body, 'query_id');
        const partitionId = uuidField(body, 'partition_id');
        const group = optionalString(body, 'consumer_group');
        const consumerGroup = group === null || group === '' ? group : streamName(group, 'consumer_group');
        const stateOps = parseStateOps(body.state_ops);
        if (!absent(body.push_items) && !Array.isArray(body.push_items)) throw invalid('push_items must be an array');
        const pushItems = absent(body.push_items) ? [] : parsePushItems(body.push_items, null);
        const ack = parseCycleAck(body.ack);
        const releaseLease = optionalBoolean(body, 'release_lease', true);
        const outcome = await core.streams.cycle(
          { queryId, partitionId, consumerGroup, stateOps, pushItems, ack, releaseLease },
          subject,
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
        const queryId = requiredString(body, 'query_id');
        const partitionId = requiredString(body, 'partition_id');
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
