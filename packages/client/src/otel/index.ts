/**
 * `@queen/client/otel`: the SDK's tracing hooks (../telemetry.ts) on OpenTelemetry's API, for
 * `new Queen({ url, telemetry: openTelemetry() })` (docs/client.md "Tracing"). It uses whatever tracer provider
 * and context manager the application registered (NodeSDK, or a TracerProvider of its own), and formats W3C
 * context itself, so messages carry `traceparent`/`tracestate` whichever propagator the application chose for
 * its own HTTP. Spans follow the messaging semantic conventions: `publish <queue>` (PRODUCER) around a push,
 * `process <queue>` (CONSUMER) around a consume handler and its ack.
 */
import {
  context, ROOT_CONTEXT, SpanKind, SpanStatusCode, createTraceState, trace, type Link, type Span, type SpanContext, type Tracer,
} from '@opentelemetry/api';
import type { QueenTelemetry, TraceCarrier, TracedMessage } from '../telemetry.js';

export type { QueenTelemetry, TraceCarrier } from '../telemetry.js';

/** Options of `openTelemetry()`. */
export interface OpenTelemetryOptions {
  /** The tracer to use; default: the global provider's tracer named `@queen/client`. */
  tracer?: Tracer;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** W3C fields of a span context (version 00). */
function carrierOf(span: SpanContext): TraceCarrier {
  const traceparent = `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const tracestate = span.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** The remote span context of a delivered message, or undefined (no context, or a version this SDK cannot read). */
function remoteContext(message: TracedMessage): SpanContext | undefined {
  const match = message.traceparent === undefined ? null : TRACEPARENT.exec(message.traceparent);
  if (match === null) return undefined;
  return {
    traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16) & 1, isRemote: true,
    ...(message.tracestate === undefined ? {} : { traceState: createTraceState(message.tracestate) }),
  };
}

async function inSpan<R>(span: Span, work: (fail: (error: unknown) => void) => Promise<R>): Promise<R> {
  const fail = (error: unknown): void => {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, ...(error instanceof Error ? { message: error.message } : {}) });
  };
  try {
    return await context.with(trace.setSpan(context.active(), span), () => work(fail));
  } catch (error) {
    fail(error);
    throw error;
  } finally {
    span.end();
  }
}

/** The hooks of a `Queen` on OpenTelemetry's API. */
export function openTelemetry(options: OpenTelemetryOptions = {}): QueenTelemetry {
  const tracer = (): Tracer => options.tracer ?? trace.getTracer('@queen/client');
  const attributes = (operation: 'publish' | 'process', type: 'send' | 'process', queue: string, count: number) => ({
    'messaging.system': 'queen',
    'messaging.operation.name': operation,
    'messaging.operation.type': type,
    ...(queue === '' ? {} : { 'messaging.destination.name': queue }),
    ...(count === 1 ? {} : { 'messaging.batch.message_count': count }),
  });
  return {
    headers() {
      const span = trace.getSpan(context.active());
      return span !== undefined && trace.isSpanContextValid(span.spanContext()) ? carrierOf(span.spanContext()) : null;
    },
    publish(queue, count, send) {
      const span = tracer().startSpan(queue === '' ? 'publish' : `publish ${queue}`, { kind: SpanKind.PRODUCER, attributes: attributes('publish', 'send', queue, count) });
      const own = span.spanContext();
      return inSpan(span, () => send(trace.isSpanContextValid(own) ? carrierOf(own) : null));
    },
    process(queue, messages, run) {
      const remote = messages.map(remoteContext);
      const single = messages.length === 1 ? remote[0] : undefined;
      const links: Link[] = single !== undefined ? [] : remote.flatMap((c) => (c === undefined ? [] : [{ context: c }]));
      const parent = single !== undefined ? trace.setSpanContext(ROOT_CONTEXT, single) : context.active();
      const span = tracer().startSpan(queue === '' ? 'process' : `process ${queue}`, { kind: SpanKind.CONSUMER, attributes: attributes('process', 'process', queue, messages.length), links }, parent);
      return inSpan(span, run);
    },
  };
}
