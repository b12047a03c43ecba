/**
 * Tracing hooks (docs/client.md "Tracing"): what a `Queen` calls around pushes, consume handlers and requests when
 * it was given `telemetry`. The SDK itself imports nothing of OpenTelemetry: `@queen/client/otel` builds these
 * hooks on `@opentelemetry/api` (an optional peer dependency), so an application without OpenTelemetry pays
 * one null check per operation and installs nothing.
 */

/** W3C Trace Context as a message field or request header pair. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** What a `process` span needs of a delivered message. */
export interface TracedMessage {
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
}

/** The hooks; every method runs its work exactly once and returns (or throws) what the work did. */
export interface QueenTelemetry {
  /** The active context as W3C headers for a request to the broker, or null when none is active. */
  headers(): TraceCarrier | null;
  /**
   * Runs a push of `count` items to `queue` inside a `publish` span (kind PRODUCER, a child of the active
   * context); `send` receives that span's context, which items without their own carry.
   */
  publish<R>(queue: string, count: number, send: (carrier: TraceCarrier | null) => Promise<R>): Promise<R>;
  /**
   * Runs a consume handler (and its ack) inside a `process` span (kind CONSUMER): a single message's context is
   * its parent; a batch's messages are its links. `run` reports a failed handler through `fail`.
   */
  process<R>(queue: string, messages: readonly TracedMessage[], run: (fail: (error: unknown) => void) => Promise<R>): Promise<R>;
}

/** The context fields of a message (or an item) that has them, for items derived from it. */
export function carrierOf(message: TracedMessage): TraceCarrier | undefined {
  if (message.traceparent === undefined) return undefined;
  return message.tracestate === undefined ? { traceparent: message.traceparent } : { traceparent: message.traceparent, tracestate: message.tracestate };
}
