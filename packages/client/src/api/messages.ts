/**
 * Single messages, the dead-letter queue and traces (docs/api.md §7.4-§7.6). Trace fields are snake_case on the
 * wire (upstream's names); message fields camelCase.
 */
import type { DlqPage } from '../types.js';
import { route, send, type ApiRequester, type CallOptions, type NotFoundBody, type RefusedBody } from './route.js';
import type { Pagination } from './resources.js';

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

/** Per-message status of docs/api.md §7.4. */
export type MessageStatus = 'pending' | 'processing' | 'completed' | 'dead_letter';

/** How a queue is consumed: queue mode, named groups, both, or not yet. */
export interface ConsumptionMode {
  hasQueueMode: boolean;
  busGroupsCount: number;
  type: 'queue' | 'bus' | 'hybrid' | 'none';
}

/** Where a message is and its state: what the list rows and the detail share. */
export interface MessageIdentity {
  id: string;
  transactionId: string;
  partitionId: string;
  queuePath: string;
  queue: string;
  partition: string;
  namespace: string | null;
  task: string | null;
  status: MessageStatus;
}

/** One row of the message list (no payload; a preview when asked for with `preview`). */
export interface MessageListRow extends MessageIdentity {
  queueStatus: MessageStatus | null;
  busStatus: { consumedBy: number; totalGroups: number } | null;
  traceId: string | null;
  producerSub: string | null;
  /** The W3C trace context the message was pushed with, or null. */
  traceparent: string | null;
  tracestate: string | null;
  queuePriority: number;
  createdAt: string;
  leaseExpiresAt: string | null;
  /** With `preview=N`: the payload's JSON text cut to N characters (null: sealed and not openable). */
  payloadPreview?: string | null;
  payloadTruncated?: boolean;
  payloadBytes?: number | null;
}

/** A page of messages, newest first; `nextCursor` continues it. */
export interface MessageList {
  messages: MessageListRow[];
  mode: ConsumptionMode;
  nextCursor?: string | null;
}

/** Filters of the message list. */
export interface MessageListQuery {
  queue?: string;
  partition?: string;
  ns?: string;
  namespace?: string;
  task?: string;
  status?: MessageStatus | string;
  consumerGroup?: string;
  from?: string | Date;
  to?: string | Date;
  limit?: number;
  offset?: number;
  cursor?: string;
  preview?: number;
}

/** Lists messages (default: the last hour). */
export const listMessages = (http: ApiRequester, query: MessageListQuery = {}, options?: CallOptions): Promise<MessageList> => send(http, messageRoutes.listMessages, {}, { query: { ...query } }, options);

/** One consumer group's view of a message. */
export interface MessageGroupState {
  name: string;
  consumed: boolean;
  leaseExpiresAt: string | null;
  retryCount: number;
  deliveryAttempts: number | null;
}

/** A message with its payload and per-group state. */
export interface MessageDetail extends MessageIdentity {
  payload: unknown;
  isEncrypted: boolean;
  traceId: string | null;
  producerSub: string | null;
  /** The W3C trace context the message was pushed with, or null. */
  traceparent: string | null;
  tracestate: string | null;
  createdAt: string;
  errorMessage: string | null;
  retryCount: number;
  leaseExpiresAt: string | null;
  queueConfig: { leaseTime: number; retryLimit: number; retryDelay: number; ttl: number; priority: number };
  mode: ConsumptionMode & { consumedByGroups: number };
  consumerGroups: MessageGroupState[];
}

/** A message's detail; a missing one answers `{error:"Message not found"}` with `X-Queen-Status: 404`. */
export const getMessage = (http: ApiRequester, partitionId: string, transactionId: string, options?: CallOptions): Promise<MessageDetail | NotFoundBody> =>
  send(http, messageRoutes.getMessage, { partitionId, transactionId }, {}, options);

/** A delete's answer (`message` says whether it existed). */
export interface DeleteMessageResponse {
  success: boolean;
  partitionId: string;
  transactionId: string;
  message: string;
}

/** Deletes a message with its DLQ entries and traces. */
export const deleteMessage = (http: ApiRequester, partitionId: string, transactionId: string, options?: CallOptions): Promise<DeleteMessageResponse> =>
  send(http, messageRoutes.deleteMessage, { partitionId, transactionId }, {}, options);

/** A requeue from the DLQ, or why not. */
export type RetryMessageResponse = { success: true; partitionId: string; transactionId: string; newTransactionId: string; messageId: string; dlqEntriesRemoved: number } | RefusedBody;

/** Requeues a dead-lettered message as a new message of the same partition. */
export const retryMessage = (http: ApiRequester, partitionId: string, transactionId: string, options?: CallOptions): Promise<RetryMessageResponse> =>
  send(http, messageRoutes.retryMessage, { partitionId, transactionId }, { body: {} }, options);

/** A move to the DLQ, or why not. */
export type MoveToDlqResponse = { success: true; partitionId: string; transactionId: string; consumerGroup: string; dlq: true } | RefusedBody;

/** Moves a group's head message to the DLQ (default: queue mode). */
export const moveMessageToDlq = (http: ApiRequester, partitionId: string, transactionId: string, body: { consumerGroup?: string; error?: string } = {}, options?: CallOptions): Promise<MoveToDlqResponse> =>
  send(http, messageRoutes.moveMessageToDlq, { partitionId, transactionId }, { body }, options);

/** Filters of the DLQ list. */
export interface DlqQuery {
  queue?: string;
  consumerGroup?: string;
  partition?: string;
  from?: string | Date;
  to?: string | Date;
  limit?: number;
  offset?: number;
}

/** Lists DLQ entries, newest failure first. */
export const listDlq = <T = unknown>(http: ApiRequester, query: DlqQuery = {}, options?: CallOptions): Promise<DlqPage<T>> => send(http, messageRoutes.listDlq, {}, { query: { ...query } }, options);

/** `POST /api/v1/traces` body. */
export interface RecordTraceRequest {
  transactionId: string;
  partitionId: string;
  data: unknown;
  consumerGroup?: string;
  eventType?: string;
  traceNames?: string | string[] | null;
}

/** Records a trace event; an unknown message answers `{success:false}` with `X-Queen-Status: 404`. */
export const recordTrace = (http: ApiRequester, body: RecordTraceRequest, options?: CallOptions): Promise<{ success: true; traceId: string } | RefusedBody> =>
  send(http, messageRoutes.recordTrace, {}, { body }, options);

/** One trace event of a message. */
export interface TraceEventRow {
  id: string;
  event_type: string;
  data: unknown;
  consumer_group: string | null;
  worker_id: string | null;
  created_at: string;
  trace_names: string[];
}

/** A message's trace events, oldest first. */
export const getTraces = (http: ApiRequester, partitionId: string, transactionId: string, options?: CallOptions): Promise<{ traces: TraceEventRow[] }> =>
  send(http, messageRoutes.getTraces, { partitionId, transactionId }, {}, options);

/** One trace event found by name, with its message. */
export interface NamedTraceRow extends TraceEventRow {
  transaction_id: string;
  partition_id: string;
  queue_name: string;
  partition_name: string;
  message_payload: unknown;
}

/** A page of trace events carrying one name. */
export const listTracesByName = (http: ApiRequester, traceName: string, query: { limit?: number; offset?: number } = {}, options?: CallOptions): Promise<{ traces: NamedTraceRow[]; total: number; pagination: Pagination }> =>
  send(http, messageRoutes.listTracesByName, { traceName }, { query }, options);

/** One trace name with its counts. */
export interface TraceNameRow {
  trace_name: string;
  trace_count: number;
  message_count: number;
  last_seen: string;
}

/** A page of trace names. */
export const listTraceNames = (http: ApiRequester, query: { limit?: number; offset?: number } = {}, options?: CallOptions): Promise<{ trace_names: TraceNameRow[]; total: number; pagination: Pagination }> =>
  send(http, messageRoutes.listTraceNames, {}, { query }, options);
