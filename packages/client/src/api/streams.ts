/**
 * The streams routes of docs/api.md §8, used by the streaming SDK (`@queen/client/streams`). Field names are
 * snake_case on the wire. A `success:false` answer is a 200 (a cycle rolled back) or a 409 (a config_hash
 * mismatch, which the transport rejects with the body as `error.body`).
 */
import type { PushResultItem } from '../types.js';
import { route, send, type ApiRequester, type CallOptions } from './route.js';

/** Routes of this family. */
export const streamsRoutes = {
  registerQuery: route('registerQuery', 'POST', '/streams/v1/queries', 'READ_WRITE'),
  cycle: route('cycle', 'POST', '/streams/v1/cycle', 'READ_WRITE'),
  getState: route('getState', 'POST', '/streams/v1/state/get', 'READ_ONLY'),
} as const;

/** `POST /streams/v1/queries` body. */
export interface RegisterQueryRequest {
  name: string;
  source_queue: string;
  config_hash: string;
  reset: boolean;
  sink_queue?: string;
}

/** A registered query. */
export interface RegisterQueryResponse {
  success: true;
  query_id: string;
  name: string;
  config_hash: string;
  fresh: boolean;
  reset: boolean;
}

/** Registers (or re-registers) a streaming query. */
export const registerQuery = (http: ApiRequester, body: RegisterQueryRequest, options?: CallOptions): Promise<RegisterQueryResponse | { success: false; error: string }> =>
  send(http, streamsRoutes.registerQuery, {}, { body }, options);

/** One state change of a cycle. */
export type StateOp = { type: 'upsert'; key: string; value: unknown } | { type: 'delete'; key: string };

/** One item pushed by a cycle (docs/api.md §4.4). */
export interface CyclePushItem {
  queue: string;
  partition: string;
  payload: unknown;
  transactionId?: string;
  /** W3C trace context (docs/api.md §4.4): a pass-through emit carries its source message's. */
  traceparent?: string;
  tracestate?: string;
}

/** The source ack of a cycle. */
export interface CycleAck {
  transactionId: string;
  leaseId: string;
  status: 'completed';
  count: number;
}

/** `POST /streams/v1/cycle` body. */
export interface CycleRequest {
  query_id: string;
  partition_id: string;
  consumer_group: string;
  state_ops: StateOp[];
  push_items: CyclePushItem[];
  ack: CycleAck | null;
  release_lease: boolean;
}

/** A cycle's answer: committed, or rolled back with `error`. */
export interface CycleResponse {
  success: boolean;
  query_id: string;
  partition_id: string;
  state_ops_applied: number;
  push_results: PushResultItem[];
  ack_result: { success: boolean; count: number; lease_released: boolean; dlq: boolean } | null;
  error?: string;
}

/** Commits state ops, pushes and the source ack in one database transaction. */
export const cycle = (http: ApiRequester, body: CycleRequest, options?: CallOptions): Promise<CycleResponse> => send(http, streamsRoutes.cycle, {}, { body }, options);

/** `POST /streams/v1/state/get` body (empty `keys`: every row). */
export interface StateGetRequest {
  query_id: string;
  partition_id: string;
  keys?: string[];
  key_prefix?: string;
  ripe_at_or_before?: number;
  /** With ripe_at_or_before: rows that a message this group has not consumed yet belongs to are not ripe. */
  consumer_group?: string;
}

/** One state row. */
export interface StateRow {
  key: string;
  value: unknown;
  updated_at: string;
}

/** A shard's state rows. */
export type StateGetResponse = { success: true; rows: StateRow[] } | { success: false; error: string; rows: [] };

/** Reads a shard's state rows. */
export const getState = (http: ApiRequester, body: StateGetRequest, options?: CallOptions): Promise<StateGetResponse> => send(http, streamsRoutes.getState, {}, { body }, options);
