/**
 * The OpenTelemetry implementation of the tracing port (src/tracing.ts; docs/monitoring.md "Tracing"). Imported
 * only by `loadTracing` (boot/monitoring.ts) when tracing is configured: a broker without OTEL_* variables never
 * loads the SDK.
 *
 * Spans: one SERVER span per push (`publish <queue>`), pop (`receive <queue>`) and ack (`settle <queue>`)
 * request, its parent the request's `traceparent` header when valid, linked to the W3C context of each message
 * it carried (a publish: the items'; a receive: the delivered messages', once claimed). Attributes follow the
 * messaging semantic conventions (messaging.system = queen, messaging.operation.type, destination, partition,
 * consumer group, batch size). Each PostgreSQL round trip under it is a CLIENT child span named after the SQL
 * function. No global provider or context manager is registered: parents are passed explicitly, so the broker
 * never touches an application's own OpenTelemetry set-up when embedded.
 */
import {
  ROOT_CONTEXT, SpanKind, SpanStatusCode, createTraceState, trace, type Context, type Link, type Span, type SpanContext, type Tracer,
} from '@opentelemetry/api';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler,
} from '@opentelemetry/sdk-trace';
import type { TracingConfig, TracingSampler } from '../config.js';
import { parseTraceparent, traceContextOf } from '../core/trace-context.js';
import type { OperationSpan, OperationSpec, SpanAttributes, Tracing } from '../tracing.js';

/** How long shutdown waits for the last export. */
const SHUTDOWN_EXPORT_MS = 5000;

/** messaging.operation.type per operation (semantic conventions 1.27+: a publish is `send`). */
const OPERATION_TYPE = { publish: 'send', receive: 'receive', settle: 'settle' } as const;

/** The remote span context of a W3C pair, or null when the traceparent is not valid. */
function spanContextOf(traceparent: string | null, tracestate: string | null): SpanContext | null {
  if (traceparent === null) return null;
  const parsed = parseTraceparent(traceparent);
  if (parsed === null) return null;
  return {
    traceId: parsed.traceId, spanId: parsed.spanId, traceFlags: parsed.flags & 1, isRemote: true,
    ...(tracestate === null ? {} : { traceState: createTraceState(tracestate) }),
  };
}

function samplerOf(config: TracingSampler): Sampler {
  switch (config.kind) {
    case 'always_on': return new AlwaysOnSampler();
    case 'always_off': return new AlwaysOffSampler();
    case 'traceidratio': return new TraceIdRatioBasedSampler(config.ratio);
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.ratio) });
  }
}

/** One request's span, with its database children. */
class RequestSpan implements OperationSpan {
  private readonly context: Context;

  /** `linked`: the span ids of the parent and of every link so far (a producer span is linked once). */
  constructor(private readonly tracer: Tracer, private readonly span: Span, private readonly linked: Set<string>) {
    this.context = trace.setSpan(ROOT_CONTEXT, span);
  }

  async database<T>(fn: string, work: () => Promise<T>): Promise<T> {
    const child = this.tracer.startSpan(fn, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': 'postgresql', 'db.stored_procedure.name': fn },
    }, this.context);
    try {
      return await work();
    } catch (error) {
      failed(child, error);
      throw error;
    } finally {
      child.end();
    }
  }

  set(attributes: SpanAttributes): void {
    this.span.setAttributes(attributes);
  }

  link(contexts: ReadonlyArray<string | null>): void {
    this.span.addLinks(linksOf(contexts, this.linked));
  }

  end(error?: unknown): void {
    if (error !== undefined) failed(this.span, error);
    this.span.end();
  }
}

function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined });
}

/** One link per distinct producer span among the stored contexts (`seen` holds span ids already linked or the parent). */
function linksOf(contexts: ReadonlyArray<string | null>, seen: Set<string>): Link[] {
  const links: Link[] = [];
  for (const stored of contexts) {
    if (stored === null) continue;
    const pair = traceContextOf(stored);
    const context = spanContextOf(pair.traceparent, pair.tracestate);
    if (context === null || seen.has(context.spanId)) continue;
    seen.add(context.spanId);
    links.push({ context });
  }
  return links;
}

/**
 * Starts the SDK: a tracer provider exporting in batches over OTLP/HTTP. A failed export (collector down, a
 * refused header) reaches `onExportError` through the SDK's global error handler: the broker is its own process,
 * so it owns that handler.
 */
export function startTracing(config: TracingConfig, identity: { version: string; serverId: string }, onExportError: (error: unknown) => void): Tracing {
  setGlobalErrorHandler(onExportError);
  // The SDK's own attributes (telemetry.sdk.*), then the broker's defaults, then what OTEL_SERVICE_NAME and
  // OTEL_RESOURCE_ATTRIBUTES say (each merge lets the later one win).
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'queen', 'service.version': identity.version, 'service.instance.id': identity.serverId }))
    .merge(detectResources({ detectors: [envDetector] }));
  const exporter = config.protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter();
  const provider = new TracerProvider({ resource, sampler: samplerOf(config.sampler), spanProcessors: [new BatchSpanProcessor({ exporter, ...config.batch })] });
  const tracer = provider.getTracer('queen', identity.version);
  return {
    start(spec: OperationSpec): OperationSpan {
      const parent = spanContextOf(spec.traceparent, spec.tracestate);
      const linked = new Set(parent === null ? [] : [parent.spanId]);
      const span = tracer.startSpan(spec.queue === null ? spec.operation : `${spec.operation} ${spec.queue}`, {
        kind: SpanKind.SERVER,
        attributes: {
          'messaging.system': 'queen',
          'messaging.operation.type': OPERATION_TYPE[spec.operation],
          'messaging.operation.name': spec.operation,
          ...(spec.queue === null ? {} : { 'messaging.destination.name': spec.queue }),
          ...spec.attributes,
        },
        links: linksOf(spec.links, linked),
      }, parent === null ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, parent));
      return new RequestSpan(tracer, span, linked);
    },
    shutdown: () => {
      // A collector that hangs must not hold the broker's exit: the last spans are given a few seconds.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`span export at shutdown took over ${SHUTDOWN_EXPORT_MS} ms: the last spans are dropped`)), SHUTDOWN_EXPORT_MS);
      });
      return Promise.race([provider.shutdown(), late]).finally(() => clearTimeout(timer));
    },
  };
}
