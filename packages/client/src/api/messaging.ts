/**
 * The message path of docs/api.md §4-§7.1: configure, push, the three pop routes, ack, lease extend and
 * transactions. Bodies and answers keep the broker's field names (push results are snake_case on the wire).
 */
import type { AckItemResult, AckStatus, PushResultItem } from '../types.js';
import { route, send, type ApiRequester, type CallOptions, type Reply, type Wire } from './route.js';
import type { operations } from './wire.js';

/** Routes of this family. */
export const messagingRoutes = {
  configure: route('configure', 'POST', '/api/v1/configure', 'READ_WRITE'),
  push: route('push', 'POST', '/api/v1/push', 'READ_WRITE'),
  popPartition: route('popPartition', 'GET', '/api/v1/pop/queue/{queue}/partition/{partition}', 'READ_WRITE'),
  popQueue: route('popQueue', 'GET', '/api/v1/pop/queue/{queue}', 'READ_WRITE'),
  popDiscovery: route('popDiscovery', 'GET', '/api/v1/pop', 'READ_WRITE'),
  ackMessage: route('ackMessage', 'POST', '/api/v1/ack', 'READ_WRITE'),
  ackBatch: route('ackBatch', 'POST', '/api/v1/ack/batch', 'READ_WRITE'),
  extendLease: route('extendLease', 'POST', '/api/v1/lease/{leaseId}/extend', 'READ_WRITE'),
  transaction: route('transaction', 'POST', '/api/v1/transaction', 'READ_WRITE'),
} as const;

/** `POST /api/v1/configure` body (docs/api.md §4.2). */
export type ConfigureRequest = Wire<'ConfigureRequest'>;

/** `POST /api/v1/configure` answer: the stored options echoed (`configured` is always true). */
export type ConfigureResponse = Wire<'ConfigureResult'>;

/** Creates a queue or replaces its whole configuration. */
export const configure = (http: ApiRequester, body: ConfigureRequest, options?: CallOptions): Promise<ConfigureResponse> =>
  send(http, messagingRoutes.configure, {}, { body }, options);

/** Pushes items; one result per item, in input order (201, also when items failed). */
export const push = <T = unknown>(http: ApiRequester, body: { items: Array<Wire<'PushItem'> & { payload?: T }> }, options?: CallOptions): Promise<PushResultItem[]> =>
  send(http, messagingRoutes.push, {}, { body }, options);

/** Query parameters of the pop routes (docs/api.md §5.2); `namespace`/`task` select queues on the discovery route. */
export type PopQuery = NonNullable<operations['popDiscovery']['parameters']['query']>;

/** One popped message: the ten keys of docs/api.md §5.12, plus the W3C trace context when it was pushed with one. */
export type PoppedMessage<T = unknown> = Omit<Wire<'Message'>, 'data'> & { data: T };

/** A pop's 200 answer; a 204 (nothing to deliver) resolves with `null`. */
export type PopResponse<T = unknown> = Omit<Wire<'PopResponse'>, 'messages'> & { messages: PoppedMessage<T>[] };

/** Pops from one partition of a queue; `null` on 204. */
export const popPartition = <T = unknown>(http: ApiRequester, queue: string, partition: string, query: PopQuery = {}, options?: CallOptions): Promise<PopResponse<T> | null> =>
  send(http, messagingRoutes.popPartition, { queue, partition }, { query: { ...query } }, options);

/** Pops from any partition of a queue; `null` on 204. */
export const popQueue = <T = unknown>(http: ApiRequester, queue: string, query: PopQuery = {}, options?: CallOptions): Promise<PopResponse<T> | null> =>
  send(http, messagingRoutes.popQueue, { queue }, { query: { ...query } }, options);

/** Pops from any queue matching `namespace`/`task`; `null` on 204. */
export const popDiscovery = <T = unknown>(http: ApiRequester, query: PopQuery & ({ namespace: string } | { task: string }), options?: CallOptions): Promise<PopResponse<T> | null> =>
  send(http, messagingRoutes.popDiscovery, {}, { query: { ...query } }, options);

/** One acknowledgment (docs/api.md §6.1); `error` is stored on DLQ entries. */
export type AckRequest = Wire<'AckItem'>;

/** One ack result (docs/api.md §6.4): the SDK's `AckItemResult`. */
export type AckResult = AckItemResult;

/** Acks one message; the answer is an array of one result. */
export const ackMessage = (http: ApiRequester, body: AckRequest, options?: CallOptions): Promise<AckResult[]> => send(http, messagingRoutes.ackMessage, {}, { body }, options);

/** Acks several messages; results in input order. A top-level `consumerGroup` overrides the items'. */
export const ackBatch = (http: ApiRequester, body: Wire<'AckBatchRequest'>, options?: CallOptions): Promise<AckResult[]> =>
  send(http, messagingRoutes.ackBatch, {}, { body }, options);

/** One lease extension result (docs/api.md §6.5); the dates are null on failure. */
export type LeaseExtendResult = Wire<'LeaseExtendResult'>;

/** Extends a lease (never shortens it); the answer is an array of one. */
export const extendLease = (http: ApiRequester, leaseId: string, body: { seconds?: number } = {}, options?: CallOptions): Promise<LeaseExtendResult[]> =>
  send(http, messagingRoutes.extendLease, { leaseId }, { body }, options);

/** One operation of a transaction (docs/api.md §7.1), as the SDK sends it: a push of items, or one ack. */
export type TransactionOperation = Wire<'TransactionOperation'> &
  ({ type: 'push'; items: Array<Wire<'PushItem'>> } | { type: 'ack'; transactionId: string; partitionId: string; status?: AckStatus });

/** `POST /api/v1/transaction` body. */
export type TransactionRequest = Omit<Wire<'TransactionRequest'>, 'operations'> & { operations: TransactionOperation[] };

/** A transaction's answer: committed, or rolled back with the failing operation's text. */
export type TransactionResponse = Reply<'transaction'>;

/** One operation's result in a transaction answer. */
export type TransactionOperationResult = NonNullable<TransactionResponse['results']>[number];

/** Runs operations in one database transaction, all or nothing. */
export const transaction = (http: ApiRequester, body: TransactionRequest, options?: CallOptions): Promise<TransactionResponse> =>
  send(http, messagingRoutes.transaction, {}, { body }, options);
