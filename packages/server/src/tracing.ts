/**
 * The broker's tracing port (docs/monitoring.md "Tracing"): what the HTTP layer and core see of OpenTelemetry.
 * The implementation (metrics/otel-tracing.ts) is imported only when tracing is configured; otherwise every
 * holder of a `Tracing` has null, and a null check is all the tracing work a request does.
 */

/** Attribute values a span takes. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** The span of one request's broker operation (publish, receive, settle). */
export interface OperationSpan {
  /** Runs one PostgreSQL round trip as a child span (kind CLIENT) named after the SQL function. */
  database<T>(fn: string, work: () => Promise<T>): Promise<T>;
  /** Adds attributes known only once the work is done. */
  set(attributes: SpanAttributes): void;
  /** Adds links to message contexts known only once the work is done (stored form, core/trace-context.ts). */
  link(contexts: ReadonlyArray<string | null>): void;
  /** Ends the span; an error (an exception, not a 4xx) marks it failed. */
  end(error?: unknown): void;
}

/** What an operation span starts from. */
export interface OperationSpec {
  /** `publish`, `receive` or `settle` (messaging.operation.type `send`, `receive`, `settle`). */
  operation: 'publish' | 'receive' | 'settle';
  /** The queue (messaging.destination.name), or null when the request spans several or none. */
  queue: string | null;
  /** The request's W3C `traceparent` and `tracestate` headers (the span's parent when valid). */
  traceparent: string | null;
  tracestate: string | null;
  /** The messages' stored contexts to link to (a publish knows them up front). */
  links: ReadonlyArray<string | null>;
  attributes: SpanAttributes;
}

/** Starts operation spans and exports them. */
export interface Tracing {
  start(spec: OperationSpec): OperationSpan;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}
