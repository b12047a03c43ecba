/**
 * The streaming runtime's HTTP behaviour against scripted servers (what a real broker cannot produce on
 * demand): the registration body and bearer token, the 409 mapping, retries of 5xx/408/429 and none of other
 * 4xx, a `success:false` cycle as STREAMS_CYCLE_FAILED with the broker's text, and the `pop` and `flush` error
 * phases.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Stream, StreamsError, type ErrorContext } from '../../src/streams/index.js';
import { scriptedServer, until, type Scripted, type SeenRequest } from '../support.js';

const quiet = { info() {}, warn() {}, error() {} };
const registered = { status: 200, body: { success: true, query_id: '11111111-1111-4111-8111-111111111111', name: 'q', config_hash: 'h', fresh: true, reset: false } };
const message = (i: number) => ({ id: `0000-${i}`, transactionId: `t${i}`, traceId: null, data: i, producerSub: null, createdAt: new Date(1000 + i).toISOString(), partitionId: '22222222-2222-4222-8222-222222222222', partition: 'P', leaseId: 'L', consumerGroup: 'streams.q' });

/** A broker script: registration, one batch on the first pop then empty pops, and `cycle` answers in order. */
function broker(cycle: Scripted[], extra: (req: SeenRequest) => Scripted | undefined = () => undefined) {
  let pops = 0;
  let cycles = 0;
  return (req: SeenRequest): Scripted => {
    const special = extra(req);
    if (special) return special;
    if (req.url.startsWith('/streams/v1/queries')) return registered;
    if (req.url.startsWith('/api/v1/pop/')) return pops++ === 0 ? { status: 200, body: { messages: [message(1), message(2)] } } : { status: 204 };
    if (req.url.startsWith('/streams/v1/cycle')) return cycle[Math.min(cycles++, cycle.length - 1)]!;
    if (req.url.startsWith('/streams/v1/state/get')) return { status: 200, body: { success: true, rows: [] } };
    return { status: 404, body: { error: 'Not found' } };
  };
}

describe('registration', () => {
  test('the body of docs/streams.md, with the bearer token; the pop carries the group, batch and partitions', async () => {
    const server = await scriptedServer(broker([{ status: 200, body: { success: true } }]));
    try {
      const handle = await Stream.from({ queueName: 'orders' }).map((m) => m.data).to({ queueName: 'out' }).run({ queryId: 'q', url: `${server.url}/`, bearerToken: 'tok', logger: quiet, maxPartitions: 3, batchSize: 50, maxWaitMillis: 100 });
      await until('a cycle', () => server.seen.some((r) => r.url === '/streams/v1/cycle'));
      await handle.stop();
      const reg = server.seen.find((r) => r.url === '/streams/v1/queries')!;
      assert.deepEqual(JSON.parse(reg.body), { name: 'q', source_queue: 'orders', config_hash: await Stream.from({ queueName: 'orders' }).map((m) => m.data).to({ queueName: 'out' }).configHash(), reset: false, sink_queue: 'out' });
      assert.equal(reg.headers.authorization, 'Bearer tok');
      const pop = server.seen.find((r) => r.url.startsWith('/api/v1/pop/'))!;
      assert.equal(pop.url, '/api/v1/pop/queue/orders?batch=50&wait=true&timeout=100&consumerGroup=streams.q&partitions=3');
      const cycle = JSON.parse(server.seen.find((r) => r.url === '/streams/v1/cycle')!.body);
      assert.deepEqual(cycle, {
        query_id: registered.body.query_id,
        partition_id: message(1).partitionId,
        consumer_group: 'streams.q',
        state_ops: [],
        push_items: [{ queue: 'out', partition: 'P', payload: { value: 1 } }, { queue: 'out', partition: 'P', payload: { value: 2 } }],
        ack: { transactionId: 't2', leaseId: 'L', status: 'completed', count: 2 },
        release_lease: true,
      });
    } finally {
      await server.close();
    }
  });

  test('409 rejects with STREAMS_CONFIG_HASH_MISMATCH and the broker text plus a hint; other 4xx with STREAMS_REGISTER_FAILED, never retried', async () => {
    const server = await scriptedServer((req) =>
      JSON.parse(req.body).name === 'a'
        ? { status: 409, body: { success: false, error: 'config_hash mismatch: stored x, got y' } }
        : { status: 400, body: { error: 'source_queue is required' } },
    );
    try {
      await assert.rejects(Stream.from({ queueName: 's' }).run({ queryId: 'a', url: server.url, logger: quiet }), (e: unknown) => e instanceof StreamsError && e.code === 'STREAMS_CONFIG_HASH_MISMATCH' && e.status === 409 && /^config_hash mismatch: stored x, got y\n\nHint: pass `reset: true`/.test(e.message));
      await assert.rejects(Stream.from({ queueName: 's' }).run({ queryId: 'b', url: server.url, logger: quiet }), (e: unknown) => e instanceof StreamsError && e.code === 'STREAMS_REGISTER_FAILED' && e.message === 'source_queue is required');
      assert.equal(server.seen.length, 2, 'no retries of 4xx');
    } finally {
      await server.close();
    }
  });

  test('503, 408 and 429 are retried (then the answer counts); a URL that is not http(s) is refused', async () => {
    let n = 0;
    const server = await scriptedServer((req) => (req.url === '/streams/v1/queries' ? [{ status: 503 }, { status: 408 }, { status: 429 }, registered][n++]! : { status: 204 }));
    try {
      const handle = await Stream.from({ queueName: 's' }).run({ queryId: 'q', url: server.url, logger: quiet, maxWaitMillis: 50 });
      assert.equal(handle.metrics().serverQueryId, registered.body.query_id);
      await handle.stop();
      assert.equal(server.seen.filter((r) => r.url === '/streams/v1/queries').length, 4);
    } finally {
      await server.close();
    }
    await assert.rejects(Stream.from({ queueName: 's' }).run({ queryId: 'q', url: 'localhost:6632' }), /requires \{ url/);
    await assert.rejects(Stream.from({ queueName: 's' }).run({ queryId: '', url: server.url }), /run\(\{ queryId \}\) is required/);
  });
});

describe('error phases', () => {
  test('a success:false cycle is reported (phase cycle) as STREAMS_CYCLE_FAILED with the broker text; nothing is counted', async () => {
    const server = await scriptedServer(broker([{ status: 200, body: { success: false, error: 'Invalid or expired lease', state_ops_applied: 0 } }]));
    const seen: Array<[unknown, ErrorContext]> = [];
    try {
      const handle = await Stream.from({ queueName: 's' }).foreach(() => undefined).run({ queryId: 'q', url: server.url, logger: quiet, maxWaitMillis: 50, onError: (e, c) => void seen.push([e, c]) });
      await until('the error', () => seen.length > 0);
      await handle.stop();
      const [error, ctx] = seen[0]!;
      assert.ok(error instanceof StreamsError && error.code === 'STREAMS_CYCLE_FAILED' && error.message === 'Invalid or expired lease');
      assert.equal(ctx.phase, 'cycle');
      assert.equal(ctx.partition, message(1).partitionId);
      assert.deepEqual(ctx.messages?.map((m) => m.transactionId), ['t1', 't2']);
      assert.deepEqual([handle.metrics().cyclesTotal, handle.metrics().messagesTotal, handle.metrics().errorsTotal, handle.metrics().lastError], [0, 0, 1, 'Invalid or expired lease']);
    } finally {
      await server.close();
    }
  });

  test('pop failures are reported with phase pop and the loop goes on; flush failures with phase flush', async () => {
    let pops = 0;
    const server = await scriptedServer(
      broker([{ status: 200, body: { success: true } }], (req) => {
        if (req.url.startsWith('/api/v1/pop/') && pops++ === 0) return { status: 400, body: { error: 'Invalid consumerGroup' } };
        if (req.url.startsWith('/api/v1/pop/') && pops === 2) return { status: 200, body: { messages: [message(1)] } };
        if (req.url.startsWith('/api/v1/pop/')) return { status: 204 };
        if (req.url.startsWith('/streams/v1/state/get') && JSON.parse(req.body).key_prefix) return { status: 500, body: { error: 'Internal server error' } };
        return undefined;
      }),
    );
    const phases: string[] = [];
    try {
      const handle = await Stream.from({ queueName: 's' })
        .windowTumbling({ seconds: 1, idleFlushMs: 100 })
        .aggregate({ count: () => 1 })
        .run({ queryId: 'q', url: server.url, logger: quiet, maxWaitMillis: 50, onError: (_e, c) => void phases.push(c.phase) });
      await until('a flush failure', () => phases.includes('flush'), 15_000);
      await handle.stop();
      assert.equal(phases[0], 'pop');
      assert.equal(handle.metrics().cyclesTotal, 1, 'the loop went on after the failed pop');
    } finally {
      await server.close();
    }
  });

  test('abortSignal stops the stream', async () => {
    const server = await scriptedServer(broker([{ status: 200, body: { success: true } }]));
    try {
      const abort = new AbortController();
      const handle = await Stream.from({ queueName: 's' }).foreach(() => undefined).run({ queryId: 'q', url: server.url, logger: quiet, maxWaitMillis: 50, abortSignal: abort.signal });
      await until('a cycle', () => handle.metrics().cyclesTotal === 1);
      abort.abort();
      await handle.stop();
      const requests = server.seen.length;
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(server.seen.length, requests, 'no request after the abort');
    } finally {
      await server.close();
    }
  });
});
