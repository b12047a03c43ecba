/** What `pop`, `ack` and `tail` share: the popped message's NDJSON line, one pop, one ack, the retry rule. */
import type { AckStatus } from '@queen/client';
import * as broker from '@queen/client/api';
import type { Api, CallOptions } from '../../api.js';
import { CliError, EXIT, userError } from '../../errors.js';
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

/** Which pop route a run uses: one partition, a whole queue, or discovery by namespace/task. */
export interface PopTarget {
  queue: string | undefined;
  partition: string | undefined;
}

export function popTarget(queue: string | undefined, partition: string | undefined, opts: { namespace?: string; task?: string }): PopTarget {
  if (!queue && !opts.namespace && !opts.task) throw userError('pop needs a queue, or --namespace and/or --task for a discovery pop');
  return { queue: queue || undefined, partition: queue ? partition : undefined };
}

/** One pop: the messages (empty on 204 or a long-poll timeout) and the answer's queue name. */
export async function popOnce(api: Api, target: PopTarget, params: broker.PopQuery, waitMillis: number, signal?: AbortSignal | null): Promise<{ messages: WireMessage[]; queue: string }> {
  const options: CallOptions = { longPoll: true, timeoutMillis: waitMillis + 5000, allowFailure: true, ...(signal !== undefined ? { signal } : {}) };
  const http = api.http(options);
  const body = target.queue === undefined
    ? await broker.popDiscovery(http, params as broker.PopQuery & { namespace: string })
    : target.partition
      ? await broker.popPartition(http, target.queue, target.partition, params)
      : await broker.popQueue(http, target.queue, params);
  return { messages: body?.messages ?? [], queue: body?.queue ?? '' };
}

/** Acks messages `completed` (or `failed`) for a group in one request; resolves with the refused ones. */
export async function ackMessages(api: Api, messages: Array<{ transactionId: string; partitionId: string; leaseId?: string; consumerGroup?: string }>, group: string | undefined, status: AckStatus = 'completed', error?: string): Promise<Array<{ transactionId: string; error: string }>> {
  const acknowledgments = messages.map((m) => ({ transactionId: m.transactionId, partitionId: m.partitionId, status, ...(m.leaseId ? { leaseId: m.leaseId } : {}), ...(m.consumerGroup ? { consumerGroup: m.consumerGroup } : {}), ...(error ? { error } : {}) }));
  const body = await broker.ackBatch(api.http({ signal: null, allowFailure: true }), { acknowledgments, ...(group ? { consumerGroup: group } : {}) });
  return body.filter((r) => !r.success).map((r) => ({ transactionId: r.transactionId, error: r.error ?? 'refused' }));
}

export function isTransient(error: unknown): boolean {
  return error instanceof CliError && error.exitCode === EXIT.server;
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

