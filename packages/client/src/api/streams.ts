/**
 * The streams routes of docs/api.md §8, used by the streaming SDK (`@queen/client/streams`). Field names are
 * snake_case on the wire. A `success:false` answer is a 200 (a cycle rolled back) or a 409 (a config_hash
 * mismatch, which the transport rejects with the body as `error.body`).
 */
import { route, send, type ApiRequester, type CallOptions, type Wire } from './route.js';

/** Routes of this family. */
export const streamsRoutes = {
  registerQuery: route('registerQuery', 'POST', '/streams/v1/queries', 'READ_WRITE'),
  cycle: route('cycle', 'POST', '/streams/v1/cycle', 'READ_WRITE'),
  getState: route('getState', 'POST', '/streams/v1/state/get', 'READ_ONLY'),
} as const;

/** `POST /streams/v1/queries` body. */
export type RegisterQueryRequest = Wire<'StreamQueryRequest'>;

/** A registered query. */
export type RegisterQueryResponse = Wire<'StreamQueryResult'>;

/** Registers (or re-registers) a streaming query. */
export const registerQuery = (http: ApiRequester, body: RegisterQueryRequest, options?: CallOptions): Promise<RegisterQueryResponse | { success: false; error: string }> =>
  send(http, streamsRoutes.registerQuery, {}, { body }, options);

/** `POST /streams/v1/cycle` body. */
export type CycleRequest = Wire<'StreamCycleRequest'>;

/** One state change of a cycle. */
export type StateOp = NonNullable<CycleRequest['state_ops']>[number];

/** One item pushed by a cycle (docs/api.md §4.4); a pass-through emit carries its source message's trace context. */
export type CyclePushItem = Wire<'PushItem'>;

/** The source ack of a cycle. */
export type CycleAck = NonNullable<CycleRequest['ack']>;

/** A cycle's answer: committed, or rolled back with `error`. */
export type CycleResponse = Wire<'StreamCycleResult'>;

/** Commits state ops, pushes and the source ack in one database transaction. */
export const cycle = (http: ApiRequester, body: CycleRequest, options?: CallOptions): Promise<CycleResponse> => send(http, streamsRoutes.cycle, {}, { body }, options);

/** `POST /streams/v1/state/get` body (empty `keys`: every row). */
export type StateGetRequest = Wire<'StreamStateRequest'>;

/** A shard's state rows. */
export type StateGetResponse = Wire<'StreamStateResult'>;

/** One state row. */
export type StateRow = StateGetResponse['rows'][number];

/** Reads a shard's state rows. */
export const getState = (http: ApiRequester, body: StateGetRequest, options?: CallOptions): Promise<StateGetResponse> => send(http, streamsRoutes.getState, {}, { body }, options);
