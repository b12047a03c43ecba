/**
 * Single messages, the dead-letter queue and traces (docs/api.md §7.4-§7.6). Trace fields are snake_case on the
 * wire (upstream's names); message fields camelCase.
 */
import type { DlqPage } from '../types.js';
import { route, send, type ApiRequester, type Body, type CallOptions, type Query, type Reply, type Wire } from './route.js';

/** Routes of this family. */
export const messageRoutes = {
  listMessages: route('listMessages', 'GET', '/api/v1/messages', 'READ_ONLY'),
  getMessage: route('getMessage', 'GET', '/api/v1/messages/{partitionId}/{transactionId}', 'READ_ONLY'),
  deleteMessage: route('deleteMessage', 'DELETE', '/api/v1/messages/{partitionId}/{transactionId}', 'READ_WRITE'),
  retryMessage: route('retryMessage', 'POST', '/api/v1/messages/{partitionId}/{transactionId}/retry', 'READ_WRITE'),
  moveMessageToDlq: route('moveMessageToDlq', 'POST', '/api/v1/messages/{partitionId}/{transactionId}/dlq', 'READ_WRITE'),
  listDlq: route('listDlq', 'GET', '/api/v1/dlq', 'READ_ONLY'),
  recordTrace: route('recordTrace', 'POST', '/api/v1/traces', 'READ_WRITE'),
  listTraceNames: route('listTraceNames', 'GET', '/api/v1/traces/names', 'READ_ONLY'),
  listTracesByName: route('listTracesByName', 'GET', '/api/v1/traces/by-name/{traceName}', 'READ_ONLY'),
  getTraces: route('getTraces', 'GET', '/api/v1/traces/{partitionId}/{transactionId}', 'READ_ONLY'),
} as const;

/** Dates of a query may be given as Date objects; the SDK sends their ISO text. */
type WithDates<Q> = Omit<Q, 'from' | 'to'> & { from?: string | Date; to?: string | Date };

/** A page of messages, newest first; `nextCursor` continues it. */
export type MessageList = Reply<'listMessages'>;

/** One row of the message list (no payload; a preview when asked for with `preview`). */
export type MessageListRow = MessageList['messages'][number];

/** Per-message status of docs/api.md §7.4. */
export type MessageStatus = Wire<'MessageStatus'>;

/** How a queue is consumed: queue mode, named groups, both, or not yet. */
export type ConsumptionMode = Wire<'ConsumptionMode'>;

/** Filters of the message list. */
export type MessageListQuery = WithDates<Query<'listMessages'>>;

/** Lists messages (default: the last hour). */
export const listMessages = (http: ApiRequester, query: MessageListQuery = {}, options?: CallOptions): Promise<MessageList> => send(http, messageRoutes.listMessages, {}, { query: { ...query } }, options);

/** A message with its payload and per-group state. */
export type MessageDetail = Wire<'MessageDetail'>;

/** One consumer group's view of a message. */
export type MessageGroupState = MessageDetail['consumerGroups'][number];

/** A message's detail; a missing one answers `{error:"Message not found"}` with `X-Queen-Status: 404`. */
export const getMessage = (http: ApiRequester, partitionId: string, transactionId: string, options?: CallOptions): Promise<Reply<'getMessage'>> =>
  send(http, messageRoutes.getMessage, { partitionId, transactionId }, {}, options);

/** A delete's answer (`message` says whether it existed). */
export type DeleteMessageResponse = Reply<'deleteMessage'>;

/** Deletes a message with its DLQ entries and traces. */
export const deleteMessage = (http: ApiRequester, partitionId: string, transactionId: string, options?: CallOptions): Promise<DeleteMessageResponse> =>
  send(http, messageRoutes.deleteMessage, { partitionId, transactionId }, {}, options);

/** A requeue from the DLQ, or why not. */
export type RetryMessageResponse = Reply<'retryMessage'>;

/** Requeues a dead-lettered message as a new message of the same partition. */
export const retryMessage = (http: ApiRequester, partitionId: string, transactionId: string, options?: CallOptions): Promise<RetryMessageResponse> =>
  send(http, messageRoutes.retryMessage, { partitionId, transactionId }, { body: {} }, options);

/** A move to the DLQ, or why not. */
export type MoveToDlqResponse = Reply<'moveMessageToDlq'>;

/** Moves a group's head message to the DLQ (default: queue mode). */
export const moveMessageToDlq = (http: ApiRequester, partitionId: string, transactionId: string, body: Body<'moveMessageToDlq'> = {}, options?: CallOptions): Promise<MoveToDlqResponse> =>
  send(http, messageRoutes.moveMessageToDlq, { partitionId, transactionId }, { body }, options);

/** Filters of the DLQ list. */
export type DlqQuery = WithDates<Query<'listDlq'>>;

/** Lists DLQ entries, newest failure first. */
export const listDlq = <T = unknown>(http: ApiRequester, query: DlqQuery = {}, options?: CallOptions): Promise<DlqPage<T>> => send(http, messageRoutes.listDlq, {}, { query: { ...query } }, options);

/** `POST /api/v1/traces` body. */
export type RecordTraceRequest = Wire<'TraceRequest'>;

/** Records a trace event; an unknown message answers `{success:false}` with `X-Queen-Status: 404`. */
export const recordTrace = (http: ApiRequester, body: RecordTraceRequest, options?: CallOptions): Promise<Reply<'recordTrace'>> =>
  send(http, messageRoutes.recordTrace, {}, { body }, options);

/** One trace event of a message. */
export type TraceEventRow = Reply<'getTraces'>['traces'][number];

/** A message's trace events, oldest first. */
export const getTraces = (http: ApiRequester, partitionId: string, transactionId: string, options?: CallOptions): Promise<Reply<'getTraces'>> =>
  send(http, messageRoutes.getTraces, { partitionId, transactionId }, {}, options);

/** One trace event found by name, with its message. */
export type NamedTraceRow = Reply<'listTracesByName'>['traces'][number];

/** A page of trace events carrying one name. */
export const listTracesByName = (http: ApiRequester, traceName: string, query: Query<'listTracesByName'> = {}, options?: CallOptions): Promise<Reply<'listTracesByName'>> =>
  send(http, messageRoutes.listTracesByName, { traceName }, { query }, options);

/** One trace name with its counts. */
export type TraceNameRow = Reply<'listTraceNames'>['trace_names'][number];

/** A page of trace names. */
export const listTraceNames = (http: ApiRequester, query: Query<'listTraceNames'> = {}, options?: CallOptions): Promise<Reply<'listTraceNames'>> =>
  send(http, messageRoutes.listTraceNames, {}, { query }, options);
