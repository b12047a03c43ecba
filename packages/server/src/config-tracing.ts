/**
 * Tracing settings (docs/monitoring.md "Tracing"): whether the broker exports spans over OTLP at all, with which
 * protocol and sampler, from the standard OpenTelemetry variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
 *
 * Tracing is on when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, or when
 * OTEL_TRACES_EXPORTER=otlp; OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true turn it off. The batch span
 * processor's OTEL_BSP_* variables are read here too (this SDK version leaves them to the application). Off means null:
 * the SDK is never imported. The exporter itself reads its OTEL_EXPORTER_OTLP_* variables (endpoint, headers,
 * timeout, compression) and the resource detector OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, as every
 * OpenTelemetry SDK does: only the decisions the broker takes are read here.
 */
import { ConfigError, integer, text, type Env } from './config-values.js';

/** Which sampler decides what is recorded (OTEL_TRACES_SAMPLER, with OTEL_TRACES_SAMPLER_ARG as the ratio). */
export type TracingSampler =
  | { kind: 'always_on' | 'always_off' | 'parentbased_always_on' | 'parentbased_always_off' }
  | { kind: 'traceidratio' | 'parentbased_traceidratio'; ratio: number };

/** How the broker exports spans; null in Config when tracing is off. */
export interface TracingConfig {
  /** OTLP over HTTP: protobuf (the specification's default) or JSON. */
  protocol: 'http/protobuf' | 'http/json';
  sampler: TracingSampler;
  /** The batch span processor (OTEL_BSP_*): delay between exports (ms), queue and batch sizes, export timeout (ms). */
  batch: { scheduledDelayMillis: number; maxQueueSize: number; maxExportBatchSize: number; exportTimeoutMillis: number };
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

function sampler(env: Env): TracingSampler {
  const kind = text(env, 'OTEL_TRACES_SAMPLER')?.trim().toLowerCase() ?? 'parentbased_always_on';
  if (!(SAMPLERS as readonly string[]).includes(kind)) throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')} (got ${kind})`);
  if (kind !== 'traceidratio' && kind !== 'parentbased_traceidratio') return { kind: kind as Exclude<TracingSampler['kind'], 'traceidratio' | 'parentbased_traceidratio'> };
  const raw = text(env, 'OTEL_TRACES_SAMPLER_ARG')?.trim();
  const ratio = raw === undefined ? 1 : Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 (got ${raw})`);
  return { kind, ratio };
}

/** The tracing settings, or null when tracing is off. */
export function tracingConfig(env: Env): TracingConfig | null {
  if (text(env, 'OTEL_SDK_DISABLED')?.trim().toLowerCase() === 'true') return null;
  const exporter = text(env, 'OTEL_TRACES_EXPORTER')?.trim().toLowerCase();
  if (exporter !== undefined && exporter !== 'otlp' && exporter !== 'none') {
    throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp or none (got ${exporter}): the broker exports traces over OTLP only`);
  }
  const endpoint = text(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? text(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (exporter === 'none' || (exporter === undefined && endpoint === undefined)) return null;
  const protocol = (text(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? text(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf').trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (got ${protocol}): gRPC is not bundled`);
  }
  const maxQueueSize = integer(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1, 1_000_000);
  return {
    protocol,
    sampler: sampler(env),
    batch: {
      scheduledDelayMillis: integer(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 1, 3_600_000),
      maxQueueSize,
      maxExportBatchSize: integer(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', Math.min(512, maxQueueSize), 1, maxQueueSize),
      exportTimeoutMillis: integer(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000, 1, 3_600_000),
    },
  };
}
