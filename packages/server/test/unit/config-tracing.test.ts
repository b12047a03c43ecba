/**
 * When the broker exports spans (docs/monitoring.md "Tracing"): the standard OTEL_* variables decide, off is
 * null (the SDK is then never imported), and a value the broker cannot honour stops start-up naming it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/config.js';
import { tracingConfig } from '../../src/config-tracing.js';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

test('off without an endpoint or exporter, with OTEL_TRACES_EXPORTER=none, and with OTEL_SDK_DISABLED=true', () => {
  assert.equal(tracingConfig({}), null);
  assert.equal(tracingConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'nonsense' }), null, 'nothing else is read while off');
  assert.equal(tracingConfig({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }), null);
  assert.equal(tracingConfig({ ...ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }), null);
});

test('on with an endpoint (either variable) or OTEL_TRACES_EXPORTER=otlp; protobuf, parent-based always-on and the batch defaults', () => {
  const expected = { protocol: 'http/protobuf', sampler: { kind: 'parentbased_always_on' }, batch: { scheduledDelayMillis: 5000, maxQueueSize: 2048, maxExportBatchSize: 512, exportTimeoutMillis: 30_000 } };
  assert.deepEqual(tracingConfig(ENDPOINT), expected);
  assert.deepEqual(tracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), expected);
  assert.deepEqual(tracingConfig({ OTEL_TRACES_EXPORTER: 'otlp' }), expected);
  assert.deepEqual(tracingConfig({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })?.protocol, 'http/protobuf', 'the traces variable wins');
  assert.deepEqual(tracingConfig({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })?.sampler, { kind: 'parentbased_traceidratio', ratio: 0.25 });
  assert.deepEqual(tracingConfig({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidratio' })?.sampler, { kind: 'traceidratio', ratio: 1 });
  assert.deepEqual(tracingConfig({ ...ENDPOINT, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_BSP_MAX_QUEUE_SIZE: '100' })?.batch, { scheduledDelayMillis: 50, maxQueueSize: 100, maxExportBatchSize: 100, exportTimeoutMillis: 30_000 });
});

test('what the broker cannot honour stops start-up with the variable named', () => {
  const refused: Array<[Record<string, string>, RegExp]> = [
    [{ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER must be otlp or none \(got zipkin\)/],
    [{ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json \(got grpc\)/],
    [{ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must be one of/],
    [{ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, /OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 \(got 2\)/],
    [{ ...ENDPOINT, OTEL_BSP_MAX_QUEUE_SIZE: '0' }, /OTEL_BSP_MAX_QUEUE_SIZE/],
  ];
  for (const [env, message] of refused) assert.throws(() => tracingConfig(env), (error: Error) => error instanceof ConfigError && message.test(error.message), JSON.stringify(env));
});
