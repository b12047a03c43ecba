/**
 * The trace objects of docs/api.md 7.6 as the wire carries them: snake_case keys (upstream's shape), built here
 * from the camelCase rows of store/traces.ts, in upstream's key order.
 */
import type { Reply } from '@queen/client/api';
import { omittedFlags } from './messages.js';
import type { NamedTraceEvent, TraceEvent, TraceNameSummary } from '../store/traces.js';

/** One event of `GET …/traces/:partitionId/:transactionId`. */
export function traceEventWire(event: TraceEvent): Reply<'getTraces'>['traces'][number] {
  return {
    id: event.id,
    event_type: event.eventType,
    data: event.data,
    ...(event.dataOmitted ? omittedFlags('data', event.dataBytes, null, true) : {}),
    consumer_group: event.consumerGroup,
    worker_id: event.workerId,
    created_at: event.createdAt,
    trace_names: event.traceNames,
  };
}

/**
 * One event of `GET …/traces/by-name/:traceName`, with its message; `messageUrl` names where a message
 * whose payload was left out is served in full (the HTTP layer knows the route).
 */
export function namedTraceEventWire(event: NamedTraceEvent, messageUrl: (partitionId: string, transactionId: string) => string): Reply<'listTracesByName'>['traces'][number] {
  return {
    id: event.id,
    transaction_id: event.transactionId,
    partition_id: event.partitionId,
    event_type: event.eventType,
    data: event.data,
    ...(event.dataOmitted ? omittedFlags('data', event.dataBytes, null, true) : {}),
    consumer_group: event.consumerGroup,
    worker_id: event.workerId,
    created_at: event.createdAt,
    queue_name: event.queueName,
    partition_name: event.partitionName,
    message_payload: event.messagePayload,
    ...(event.messagePayloadOmitted
      ? omittedFlags('message_payload', event.messagePayloadBytes, messageUrl(event.partitionId, event.transactionId), true)
      : {}),
    trace_names: event.traceNames,
  };
}

/** One name of `GET …/traces/names`. */
export function traceNameWire(summary: TraceNameSummary): Reply<'listTraceNames'>['trace_names'][number] {
  return {
    trace_name: summary.traceName,
    trace_count: summary.traceCount,
    message_count: summary.messageCount,
    last_seen: summary.lastSeen,
  };
}
