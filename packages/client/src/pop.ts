/**
 * One pop request (docs/client.md): route choice, query, and the HTTP timeout of a long poll. `popOnce` throws
 * every failure so the consume loop can apply its own policy; `pop` (the public one) answers `[]` for
 * transport failures that persist and rejects only on 4xx, which are caller mistakes.
 */
import { BUILDER_DEFAULTS, QUEUE_MODE } from './defaults.js';
import { QueenError } from './errors.js';
import { popDiscovery, popPartition, popQueue, type PopQuery, type PopResponse } from './api/messaging.js';
import type { CallOptions } from './api/route.js';
import type { Transport } from './http.js';
import type { SafeLogger } from './log.js';
import { isCallerError } from './retry.js';
import { messagesFrom } from './message.js';
import type { Message, SubscriptionMode } from './types.js';

/** The consumer side of a queue builder's state. */
export interface PopSpec {
  queue: string | undefined;
  partition: string | undefined;
  namespace: string | undefined;
  task: string | undefined;
  group: string | undefined;
  batch: number;
  partitions: number | undefined;
  wait: boolean;
  timeoutMillis: number;
  leaseSeconds: number | undefined;
  autoAck: boolean | undefined;
  subscriptionMode: SubscriptionMode | undefined;
  subscriptionFrom: string | undefined;
}

/** Load-balancing key of a consumer (docs/client.md rule 10). */
export function consumerAffinityKey(spec: PopSpec): string {
  const group = spec.group ?? QUEUE_MODE;
  if (spec.queue === undefined) return `${spec.namespace ?? '*'}:${spec.task ?? '*'}:${group}`;
  return `${spec.queue}:${spec.partition ?? '*'}:${group}`;
}

/** Overrides of one pop call made by the consume loop. */
export interface PopCall {
  batch?: number;
  timeoutMillis?: number;
  sendAutoAck: boolean;
  signal?: AbortSignal;
}

/** Sends one pop; resolves with the messages (`[]` for a 204) or rejects with the QueenError. */
export async function popOnce<T>(transport: Transport, spec: PopSpec, call: PopCall): Promise<Message<T>[]> {
  if (spec.queue === undefined && spec.namespace === undefined && spec.task === undefined) {
    throw new QueenError('VALIDATION', 'A discovery consumer (queue() without a name) needs namespace() or task()');
  }
  const timeout = call.timeoutMillis ?? spec.timeoutMillis;
  const query: PopQuery = {
    batch: Math.max(1, call.batch ?? spec.batch),
    wait: spec.wait,
    timeout,
    consumerGroup: spec.group,
    partitions: spec.partitions,
    leaseSeconds: spec.leaseSeconds,
    subscriptionMode: spec.subscriptionMode,
    subscriptionFrom: spec.subscriptionFrom,
    namespace: spec.namespace,
    task: spec.task,
    autoAck: call.sendAutoAck && spec.autoAck === true ? true : undefined,
  };
  const options: CallOptions = {
    affinityKey: consumerAffinityKey(spec),
    ...(spec.wait ? { timeoutMillis: timeout + BUILDER_DEFAULTS.pollGraceMillis, longPoll: true } : {}),
    ...(call.signal ? { signal: call.signal } : {}),
  };
  let answer: PopResponse | null;
  if (spec.queue === undefined) answer = await popDiscovery(transport, query as PopQuery & { namespace: string }, options);
  else if (spec.partition !== undefined && spec.partition !== BUILDER_DEFAULTS.partition) answer = await popPartition(transport, spec.queue, spec.partition, query, options);
  else answer = await popQueue(transport, spec.queue, query, options);
  return messagesFrom<T>(answer, transport);
}

/**
 * The public pop: 4xx rejects; so does a broker that cannot be reached at all after the retries (`NETWORK`:
 * a wrong URL or a stopped broker must not look like an empty queue). A long-poll timeout answers `[]`; a
 * persisting 5xx or timeout is logged with `logger.error` and answers `[]` (docs/client.md rule 4).
 */
export async function pop<T>(transport: Transport, logger: SafeLogger, spec: PopSpec): Promise<Message<T>[]> {
  try {
    return await popOnce<T>(transport, spec, { sendAutoAck: true });
  } catch (error) {
    if (!(error instanceof QueenError)) throw error;
    if (error.code === 'ABORTED' || error.code === 'NETWORK' || isCallerError(error)) throw error;
    if (error.code !== 'TIMEOUT' || !spec.wait) logger.error('pop failed', { queue: spec.queue, code: error.code, status: error.status, error: error.message });
    return [];
  }
}
