/**
 * Our streaming SDK against a real broker, docs/streams-sdk.md (stateless pipelines, registration, resume, scale,
 * several queries) and the gate: the same scenarios the server suite runs through the official `Stream`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useBroker } from '../../../server/test/support/harness.js';
import { Stream, tokenBucketGate, StreamsError } from '../../src/streams/index.js';
import { drainAtLeast, drainQueue, eventually, sleep, streamsKit, total } from './support.js';

const setup = useBroker();
const kit = streamsKit(setup);
const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);

describe('stateless pipelines', () => {
  test('7.1 map + filter into a sink: exactly the passing messages, transformed, including ones pushed before run()', async () => {
    const src = await kit.source({ Default: range(10).map((n) => ({ n })) });
    const sink = kit.name('sink');
    const { handle, errors } = await kit.run(
      Stream.from(kit.queen().queue<{ n: number }>(src))
        .filter((m) => m.data.n % 2 === 0)
        .map((m) => ({ doubled: m.data.n * 2 }))
        .to(kit.queen().queue(sink)),
    );
    const out = await drainAtLeast(setup.api, sink, 5, 10_000);
    await handle.stop();
    assert.deepEqual(out.map((m) => m.data.doubled).sort((a, b) => a - b), [4, 8, 12, 16, 20]);
    assert.deepEqual(out.map((m) => m.partition), Array(5).fill('Default'), 'the sink partition defaults to the source partition');
    assert.deepEqual(errors, []);
    assert.equal(handle.metrics().messagesTotal, 10);
  });

  test('7.2 flatMap yields one sink message per element (5 × 4 = 20); scalars are wrapped as {value}', async () => {
    const src = await kit.source({ Default: range(5) });
    const sink = kit.name('sink');
    const { handle, errors } = await kit.run(Stream.from(kit.queen().queue<number>(src)).flatMap((m) => [1, 2, 3, 4].map((k) => m.data * 10 + k)).to(kit.queen().queue(sink)));
    const out = await drainAtLeast(setup.api, sink, 20, 10_000);
    await handle.stop();
    assert.deepEqual(out.map((m) => m.data.value).sort((a, b) => a - b), range(5).flatMap((n) => [1, 2, 3, 4].map((k) => n * 10 + k)));
    assert.deepEqual(errors, []);
  });

  test('7.3 without a map, foreach receives message.data for every message, in partition order', async () => {
    const src = await kit.source({ Default: range(8).map((n) => ({ n })) });
    const seen: Array<{ n: number }> = [];
    const { handle } = await kit.run(Stream.from(kit.queen().queue<{ n: number }>(src)).foreach((v) => void seen.push(v)));
    await eventually('8 values', 10_000, () => seen.length >= 8);
    await handle.stop();
    assert.deepEqual(seen, range(8).map((n) => ({ n })));
  });

  test('7.4 keyBy then map into a sink delivers every message once', async () => {
    const src = await kit.source({ A: range(6).map((n) => ({ user: `u${n % 3}`, n })), B: range(6, 7).map((n) => ({ user: `u${n % 3}`, n })) });
    const sink = kit.name('sink');
    const { handle, errors } = await kit.run(Stream.from(kit.queen().queue<{ user: string; n: number }>(src)).keyBy((m) => m.data.user).map((m) => ({ n: m.data.n })).to(kit.queen().queue(sink)));
    const out = await drainAtLeast(setup.api, sink, 12, 10_000);
    await handle.stop();
    assert.deepEqual(out.map((m) => m.data.n).sort((a, b) => a - b), range(12));
    assert.deepEqual(errors, []);
  });

  test('7.5 an async map is awaited: every output carries its enrichment', async () => {
    const src = await kit.source({ Default: range(6).map((id) => ({ id })) });
    const sink = kit.name('sink');
    const { handle } = await kit.run(
      Stream.from(kit.queen().queue<{ id: number }>(src))
        .map(async (m) => {
          await sleep(5);
          return { id: m.data.id, enriched: `user-${m.data.id}` };
        })
        .to(kit.queen().queue(sink)),
    );
    const out = await drainAtLeast(setup.api, sink, 6, 10_000);
    await handle.stop();
    assert.deepEqual(out.map((m) => m.data).sort((a, b) => a.id - b.id), range(6).map((id) => ({ id, enriched: `user-${id}` })));
  });

  test('to() with a partition function routes each value; with a constant, all go to it', async () => {
    const src = await kit.source({ Default: range(4).map((n) => ({ n })) });
    const byParity = kit.name('sink');
    const fixed = kit.name('sink');
    const a = await kit.run(Stream.from(kit.queen().queue<{ n: number }>(src)).map((m) => m.data).to(kit.queen().queue(byParity), { partition: (v) => (v.n % 2 ? 'odd' : 'even') }));
    const b = await kit.run(Stream.from(kit.queen().queue<{ n: number }>(src)).to(kit.queen().queue(fixed), { partition: 'all' }));
    const routed = await drainAtLeast(setup.api, byParity, 4, 10_000);
    const constant = await drainAtLeast(setup.api, fixed, 4, 10_000);
    await Promise.all([a.handle.stop(), b.handle.stop()]);
    assert.deepEqual(routed.map((m) => [m.data.n, m.partition]).sort(), [[1, 'odd'], [2, 'even'], [3, 'odd'], [4, 'even']]);
    assert.deepEqual(new Set(constant.map((m) => m.partition)), new Set(['all']));
  });
});

describe('registration and resume', () => {
  test('7.19 a changed chain under the same queryId fails with config_hash mismatch; reset:true succeeds', async () => {
    const src = await kit.source({ Default: [] });
    const queryId = kit.name('query');
    const first = await kit.run(Stream.from(kit.queen().queue(src)).map((m) => m.data).to(kit.queen().queue(kit.name('sink'))), { queryId });
    await first.handle.stop();
    const changed = Stream.from(kit.queen().queue(src)).filter(() => true).to(kit.queen().queue(kit.name('sink')));
    await assert.rejects(kit.run(changed, { queryId }), (error: unknown) => {
      assert.ok(error instanceof StreamsError);
      assert.equal(error.code, 'STREAMS_CONFIG_HASH_MISMATCH');
      assert.match(error.message, /config_hash mismatch/i);
      assert.match(error.message, /reset: true/);
      return true;
    });
    const again = await kit.run(changed, { queryId, reset: true });
    assert.equal(typeof again.handle.metrics().serverQueryId, 'string');
    assert.equal(again.handle.metrics().serverQueryId, first.handle.metrics().serverQueryId, 'the same query row');
    await again.handle.stop();
  });

  test('7.20 stop and restart resume from the group cursor: the second run gets the 5 new messages only', async () => {
    const src = await kit.source({ Default: range(5).map((n) => ({ n })) });
    const sink = kit.name('sink');
    const queryId = kit.name('query');
    const chain = Stream.from(kit.queen().queue<{ n: number }>(src)).map((m) => m.data).to(kit.queen().queue(sink));
    const first = await kit.run(chain, { queryId });
    await eventually('first 5', 10_000, () => first.handle.metrics().messagesTotal >= 5);
    await first.handle.stop();
    await kit.push(src, 'Default', range(5, 6).map((n) => ({ n })));
    const second = await kit.run(chain, { queryId });
    await eventually('next 5', 10_000, () => second.handle.metrics().messagesTotal >= 5);
    await sleep(500);
    await second.handle.stop();
    assert.equal(second.handle.metrics().messagesTotal, 5);
    const out = await drainQueue(setup.api, sink);
    assert.deepEqual(out.map((m) => m.data.n).sort((a, b) => a - b), range(10), 'each message once');
  });

  test('a batch popped while stop() waits is processed, not left leased', async () => {
    const src = await kit.source({ Default: [] });
    const seen: number[] = [];
    const { handle } = await kit.run(Stream.from(kit.queen().queue<number>(src)).foreach((v) => void seen.push(v)), { maxWaitMillis: 2000 });
    await sleep(300); // the loop is parked in its long poll
    const stopping = handle.stop();
    await kit.push(src, 'Default', [1, 2, 3]);
    await stopping;
    assert.deepEqual(seen, [1, 2, 3]);
    assert.equal(handle.metrics().messagesTotal, 3);
  });
});

describe('scale and several queries', () => {
  test('7.21 5 000 messages over 20 partitions (batch 200, maxPartitions 8): exact count and sum per partition, no errors', async () => {
    const partitions: Record<string, number[]> = {};
    for (let p = 0; p < 20; p++) partitions[`p${p}`] = range(250, p * 1000);
    const src = await kit.source(partitions);
    const sums = new Map<string, { count: number; sum: number }>();
    const { handle, errors } = await kit.run(
      Stream.from(kit.queen().queue<number>(src))
        .windowTumbling({ seconds: 1, idleFlushMs: 500 })
        .aggregate({ count: () => 1, sum: (v) => v })
        .foreach((agg, ctx) => {
          const s = sums.get(ctx.partition) ?? { count: 0, sum: 0 };
          sums.set(ctx.partition, { count: s.count + agg.count, sum: s.sum + agg.sum });
        }),
      { batchSize: 200, maxPartitions: 8 },
    );
    await eventually('every partition complete', 30_000, () => [...sums.values()].reduce((s, v) => s + v.count, 0) >= 5000);
    await handle.stop();
    assert.deepEqual(errors, []);
    for (let p = 0; p < 20; p++) assert.deepEqual(sums.get(`p${p}`), { count: 250, sum: total(range(250, p * 1000).map((v) => ({ v })), 'v') }, `p${p}`);
  });

  test('7.21 200 messages in one partition over 1 s windows: exact totals', async () => {
    const src = await kit.source({ Default: range(200) });
    const emits: Array<{ count: number; sum: number }> = [];
    const { handle } = await kit.run(Stream.from(kit.queen().queue<number>(src)).windowTumbling({ seconds: 1, idleFlushMs: 300 }).aggregate({ count: () => 1, sum: (v) => v }).foreach((a) => void emits.push(a)));
    await eventually('200 counted', 15_000, () => total(emits, 'count') >= 200);
    await handle.stop();
    assert.deepEqual([total(emits, 'count'), total(emits, 'sum')], [200, 20_100]);
  });

  test('7.23 two queries on one source each see every message (sum 78, count 12)', async () => {
    const src = await kit.source({ Default: range(12) });
    const a: number[] = [];
    const b: number[] = [];
    const one = await kit.run(Stream.from(kit.queen().queue<number>(src)).foreach((v) => void a.push(v)));
    const two = await kit.run(Stream.from(kit.queen().queue<number>(src)).foreach((v) => void b.push(v)));
    await eventually('both complete', 10_000, () => a.length >= 12 && b.length >= 12);
    await Promise.all([one.handle.stop(), two.handle.stop()]);
    for (const seen of [a, b]) assert.deepEqual([seen.length, seen.reduce((s, v) => s + v, 0)], [12, 78]);
  });
});

describe('gate', () => {
  test('a token bucket lets the burst through, then paces the rest; every message once, in order', async () => {
    const src = await kit.source({ Default: range(12) }, { leaseTime: 1, retryLimit: 100 });
    const seen: number[] = [];
    const started = Date.now();
    const { handle, errors } = await kit.run(
      Stream.from(kit.queen().queue<number>(src))
        .gate(tokenBucketGate<number>({ capacity: 4, refillPerSec: 4 }))
        .foreach((v) => void seen.push(v)),
    );
    await eventually('all 12 through the gate', 20_000, () => seen.length >= 12);
    const took = Date.now() - started;
    await sleep(300);
    await handle.stop();
    assert.deepEqual(seen, range(12), 'in order, none twice');
    const m = handle.metrics();
    assert.ok(m.gateDenialsTotal >= 1, `denials ${m.gateDenialsTotal}`);
    assert.equal(m.gateAllowsTotal, 12);
    assert.ok(took >= 1000, `12 messages through a 4-token bucket took ${took} ms`);
    assert.deepEqual(errors, []);
    const rows = await setup.db.query<{ value: { allowedTotal: number; consumedTotal: number } }>(
      `SELECT s.value FROM queen_streams.state s JOIN queen_streams.queries q ON q.id = s.query_id WHERE q.id = $1`,
      [m.serverQueryId],
    );
    assert.deepEqual(rows.rows.map((r) => [r.value.allowedTotal, r.value.consumedTotal]), [[12, 12]], 'the bucket state counts exactly the allowed messages');
  });

  test('a throwing gate aborts its cycle (phase gate-eval) and the batch comes back after the lease', async () => {
    const src = await kit.source({ Default: [1, 2, 3] }, { leaseTime: 1, retryLimit: 100 });
    let calls = 0;
    const seen: number[] = [];
    const phases: string[] = [];
    const { handle } = await kit.run(
      Stream.from(kit.queen().queue<number>(src))
        .gate(() => {
          if (++calls === 1) throw new Error('gate exploded');
          return true;
        })
        .foreach((v) => void seen.push(v)),
      { onError: (_e, ctx) => void phases.push(ctx.phase) },
    );
    await eventually('redelivered and passed', 10_000, () => seen.length >= 3);
    await handle.stop();
    assert.deepEqual(seen, [1, 2, 3]);
    assert.deepEqual(phases, ['gate-eval']);
    assert.equal(handle.metrics().errorsTotal, 1);
  });
});
