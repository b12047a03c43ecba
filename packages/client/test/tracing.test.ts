/**
 * One trace from producer through the broker to the consumer (docs/monitoring.md "Tracing", docs/client.md
 * "Tracing"): the test process runs the OpenTelemetry SDK with `@queen/client/otel`, a real broker process
 * exports with its own SDK, and both send OTLP/HTTP to a receiver this test runs, which decodes what the real
 * exporters sent (OTLP JSON). Asserted: one trace id from the application's span through the producer's
 * `publish`, the broker's `publish` (with its PostgreSQL child) and `settle`, to the consumer's `process`; the
 * broker's `receive` links to the producer's span; the messaging attributes, the resource from the standard
 * variables and the exporter headers; an invalid traceparent is refused; a broker without OTEL_* variables
 * exports nothing.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { context, trace, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createDatabase, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../../server/test/support/harness.js';
import { QueenError, type Message } from '../src/index.js';
import { openTelemetry } from '../src/otel/index.js';
import { testClient } from './support.js';

/** A span as OTLP JSON carries it, with its resource's attributes. */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  resource: Record<string, unknown>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const valueOf = (v: OtlpValue): unknown => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue ?? v.doubleValue);
const attributesOf = (list: Array<{ key: string; value: OtlpValue }> = []): Record<string, unknown> => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** An OTLP/HTTP receiver: decodes every JSON export request into spans; remembers the request headers. */
async function otlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const requests: Array<{ path: string; contentType: string | undefined; token: string | undefined; body: Buffer }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'], token: req.headers['x-test-token'] as string | undefined, body: Buffer.concat(chunks) });
      if (req.headers['content-type'] === 'application/json') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, kind: s.kind,
                attributes: attributesOf(s.attributes), links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({ traceId: l.traceId, spanId: l.spanId })), resource });
            }
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function until<T>(what: string, probe: () => T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('tracing across producer, broker and consumer', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let db: TestDatabase;
  let broker: BrokerProcess;
  let provider: TracerProvider;

  before(async () => {
    receiver = await otlpReceiver();
    db = await createDatabase();
    broker = await startBroker(db, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_HEADERS: 'x-test-token=broker-secret',
      OTEL_SERVICE_NAME: 'queen-under-test', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test', OTEL_BSP_SCHEDULE_DELAY: '50', LOG_LEVEL: 'info',
    });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` }) })] });
    trace.setGlobalTracerProvider(provider);
  });

  after(async () => {
    await provider?.shutdown();
    trace.disable();
    context.disable();
    await broker?.stop();
    await db?.close();
    await receiver?.close();
  });

  test('a message pushed inside a traced request and processed by an SDK consumer is one trace, with the broker\'s spans in between', async () => {
    const queue = uniqueQueue('otel');
    const queen = testClient(broker.url, { telemetry: openTelemetry() });
    const tracer = trace.getTracer('app');
    const request = tracer.startSpan('POST /orders', { kind: SpanKind.SERVER });
    await context.with(trace.setSpan(context.active(), request), async () => {
      await queen.queue(queue).push([{ data: { order: 1 } }]);
    });
    request.end();

    let seen: Message | undefined;
    let handlerSpan: string | undefined;
    const result = await queen.queue(queue).group('billing').batch(1).limit(1).each().consume(async (message: Message) => {
      seen = message;
      handlerSpan = trace.getActiveSpan()?.spanContext().spanId;
    });
    assert.equal(result.processed, 1);
    await queen.close();
    const traceId = request.spanContext().traceId;

    const spans = receiver.spans;
    const find = (name: string, service: string) => spans.find((s) => s.name === name && s.resource['service.name'] === service);
    const settle = await until('the broker\'s settle span', () => find('settle', 'queen-under-test') ?? spans.find((s) => s.name === `settle ${queue}`));
    const producer = await until('the producer span', () => find(`publish ${queue}`, 'unknown_service:node') ?? spans.find((s) => s.name === `publish ${queue}` && s.kind === 4));
    const brokerPublish = await until('the broker\'s publish span', () => find(`publish ${queue}`, 'queen-under-test'));
    const pushDb = await until('the push\'s database span', () => spans.find((s) => s.name === 'queen.push_messages' && s.parentSpanId === brokerPublish.spanId));
    const receive = await until('the broker\'s receive span', () => spans.find((s) => s.name === `receive ${queue}` && s.attributes['messaging.batch.message_count'] === 1));
    const process = await until('the consumer\'s process span', () => spans.find((s) => s.name === `process ${queue}`));

    // One trace: application request -> producer publish -> broker publish -> PostgreSQL; producer -> process -> settle.
    for (const span of [producer, brokerPublish, pushDb, process, settle]) assert.equal(span.traceId, traceId, span.name);
    assert.equal(producer.parentSpanId, request.spanContext().spanId);
    assert.equal(brokerPublish.parentSpanId, producer.spanId);
    assert.equal(process.parentSpanId, producer.spanId);
    assert.equal(process.spanId, handlerSpan, 'the handler runs inside the process span');
    assert.equal(settle.parentSpanId, process.spanId, 'the auto-ack carries the process span\'s context');
    assert.deepEqual(receive.links, [{ traceId, spanId: producer.spanId }]);
    assert.equal(seen!.traceparent, `00-${traceId}-${producer.spanId}-01`);

    // Kinds (OTLP: 2 SERVER, 3 CLIENT, 4 PRODUCER, 5 CONSUMER) and the messaging attributes.
    assert.deepEqual([producer.kind, brokerPublish.kind, pushDb.kind, receive.kind, settle.kind, process.kind], [4, 2, 3, 2, 2, 5]);
    assert.deepEqual(
      [brokerPublish.attributes['messaging.system'], brokerPublish.attributes['messaging.operation.type'], brokerPublish.attributes['messaging.destination.name'],
        brokerPublish.attributes['messaging.destination.partition.id'], brokerPublish.attributes['messaging.batch.message_count']],
      ['queen', 'send', queue, 'Default', 1],
    );
    assert.deepEqual([receive.attributes['messaging.operation.type'], receive.attributes['messaging.consumer.group.name'], receive.attributes['messaging.destination.name']], ['receive', 'billing', queue]);
    assert.deepEqual([settle.attributes['messaging.operation.type'], settle.attributes['messaging.consumer.group.name'], settle.attributes['messaging.destination.name']], ['settle', 'billing', queue]);
    assert.deepEqual([pushDb.attributes['db.system.name'], pushDb.attributes['db.stored_procedure.name']], ['postgresql', 'queen.push_messages']);
    assert.deepEqual([process.attributes['messaging.system'], process.attributes['messaging.operation.type']], ['queen', 'process']);
    // The standard variables: service name, resource attributes, exporter headers and protocol.
    assert.equal(brokerPublish.resource['deployment.environment'], 'test');
    assert.equal(brokerPublish.resource['service.instance.id'] !== undefined, true);
    const fromBroker = receiver.requests.filter((r) => r.token === 'broker-secret');
    assert.ok(fromBroker.length > 0 && fromBroker.every((r) => r.path === '/v1/traces' && r.contentType === 'application/json'));
  });

  test('a batch handler gets one process span linked to every message; an invalid traceparent is refused with nothing stored', async () => {
    const queue = uniqueQueue('otel-batch');
    const queen = testClient(broker.url, { telemetry: openTelemetry() });
    const producers = ['00-11111111111111111111111111111111-1111111111111111-01', '00-22222222222222222222222222222222-2222222222222222-01'];
    await queen.queue(queue).push(producers.map((traceparent, i) => ({ data: i, traceparent })));
    await assert.rejects(async () => queen.queue(queue).push([{ data: 'x', traceparent: '00-bad' }]),
      (error: QueenError) => error.status === 400 && /Invalid traceparent/.test(error.message));
    const result = await queen.queue(queue).batch(10).limit(2).consume(async (batch: Message[]) => assert.equal(batch.length, 2));
    assert.equal(result.processed, 2);
    await queen.close();
    const process = await until('the batch process span', () => receiver.spans.find((s) => s.name === `process ${queue}`));
    assert.deepEqual(process.links.map((l) => l.traceId).sort(), ['1'.repeat(32), '2'.repeat(32)]);
    assert.equal(process.attributes['messaging.batch.message_count'], 2);
  });

  test('by default the broker exports OTLP protobuf; always_off exports no span; an unreachable collector is a warning', async () => {
    const traceId = '4'.repeat(32);
    const protobuf = await startBroker(db, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' });
    const off = await startBroker(db, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_TRACES_SAMPLER: 'always_off', OTEL_EXPORTER_OTLP_HEADERS: 'x-test-token=sampled-off' });
    const unreachable = await startBroker(db, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_BSP_SCHEDULE_DELAY: '50' });
    try {
      for (const target of [protobuf, off, unreachable]) {
        const res = await fetch(`${target.url}/api/v1/push`, { method: 'POST', headers: { 'Content-Type': 'application/json', traceparent: `00-${traceId}-4444444444444444-01` }, body: JSON.stringify({ items: [{ queue: uniqueQueue('otel-proto'), payload: 1 }] }) });
        assert.equal(res.status, 201);
      }
      // The trace id travels as its 16 raw bytes in the protobuf body.
      const found = await until('a protobuf export carrying the trace', () => receiver.requests.find((r) => r.contentType === 'application/x-protobuf' && r.body.includes(Buffer.from(traceId, 'hex'))));
      assert.equal(found.path, '/v1/traces');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(receiver.requests.some((r) => r.token === 'sampled-off'), false, 'nothing sampled, nothing exported');
      await until('the export failure warning', () => (/tracing: span export failed/.test(unreachable.output()) ? true : undefined));
    } finally {
      await protobuf.stop();
      await off.stop();
      await unreachable.stop();
    }
  });

  test('a broker without OTEL_* variables loads no SDK and exports nothing', async () => {
    const plain = await startBroker(db, { LOG_LEVEL: 'info' });
    try {
      const before = receiver.requests.length;
      const queue = uniqueQueue('otel-off');
      const res = await fetch(`${plain.url}/api/v1/push`, { method: 'POST', headers: { 'Content-Type': 'application/json', traceparent: '00-33333333333333333333333333333333-3333333333333333-01' }, body: JSON.stringify({ items: [{ queue, payload: 1 }] }) });
      assert.equal(res.status, 201);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(receiver.requests.length, before);
      assert.doesNotMatch(plain.output(), /tracing: exporting spans/);
      assert.match(broker.output(), /tracing: exporting spans/, 'the traced broker says so at start-up');
    } finally {
      await plain.stop();
    }
  });
});
