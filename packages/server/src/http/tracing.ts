/**
 * The broker's spans per request (docs/monitoring.md "Tracing"): `traced` runs a route's core call inside a
 * publish, receive or settle span when tracing is on, and calls it bare when it is off (`tracing` null: no
 * span, no attribute, no allocation beyond the spec's closure).
 */
import type { OperationSpan, OperationSpec, Tracing } from '../tracing.js';
import type { RequestContext } from './route.js';

/** What a route describes of its operation; the request's trace headers are added here. */
export type OperationOf = Omit<OperationSpec, 'traceparent' | 'tracestate'>;

/** Runs `work` inside the operation's span (ended with the error, if any), or without one when tracing is off. */
export async function traced<T>(
  tracing: Tracing | null,
  ctx: RequestContext,
  spec: () => OperationOf,
  work: (span: OperationSpan | null) => Promise<T>,
): Promise<T> {
  if (tracing === null) return work(null);
  const span = tracing.start({ ...spec(), traceparent: ctx.traceparent, tracestate: ctx.tracestate });
  try {
    const result = await work(span);
    span.end();
    return result;
  } catch (error) {
    span.end(error);
    throw error;
  }
}

/** messaging.destination.partition.id when every message of the request is in one partition. */
export function partitionAttribute(partitions: string[]): Record<string, string> {
  const only = onlyValue(partitions);
  return only === null ? {} : { 'messaging.destination.partition.id': only };
}

/** The one value of a request's queues (partitions, groups), or null when there are several or none. */
export function onlyValue(values: Iterable<string>): string | null {
  let only: string | null = null;
  for (const value of values) {
    if (only === null) only = value;
    else if (value !== only) return null;
  }
  return only;
}
