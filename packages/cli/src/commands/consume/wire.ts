/** What `pop`, `ack` and `tail` share: the NDJSON line of a popped message, `--since`. */
import * as broker from '@queen/client/api';
import { millisIso, parseTime, rfc3339 } from '../../time.js';

/** A message of a pop answer (docs/api.md §5.12), with the `queue` and `retryCount` an upstream broker may add. */
export type WireMessage = broker.PoppedMessage & { queue?: string; retryCount?: number };

/** The NDJSON line of one message: `{queue, partition, transactionId, partitionId, createdAt, data, ...}`. */
export function messageLine(msg: WireMessage, queue: string): Record<string, unknown> {
  return {
    queue: msg.queue || queue,
    partition: msg.partition,
    transactionId: msg.transactionId,
    partitionId: msg.partitionId,
    // One time format across commands (docs/cli.md): the pop answer's microseconds cut to tail's milliseconds.
    createdAt: millisIso(msg.createdAt),
    ...(typeof msg.retryCount === 'number' ? { retryCount: msg.retryCount } : {}),
    data: msg.data,
    ...(msg.leaseId ? { leaseId: msg.leaseId } : {}),
    ...(msg.consumerGroup ? { consumerGroup: msg.consumerGroup } : {}),
    ...(msg.traceId ? { traceId: msg.traceId } : {}),
    ...(msg.producerSub ? { producerSub: msg.producerSub } : {}),
    ...(msg.traceparent ? { traceparent: msg.traceparent } : {}),
    ...(msg.tracestate ? { tracestate: msg.tracestate } : {}),
  };
}

/** `--since`: `now` verbatim, anything else parsed with docs/cli.md and sent as RFC 3339. */
export function subscriptionFrom(since: string | undefined): string | undefined {
  if (since === undefined) return undefined;
  return since.trim().toLowerCase() === 'now' ? 'now' : rfc3339(parseTime(since, '--since'));
}
