/**
 * Our streaming SDK's windows against a real broker, docs/streams-sdk.md: tumbling with grace and idle
 * flush, per-partition state, aggregate, emit context, sliding, sessions, cron, event time with the watermark
 * across restarts, and a full pipeline; plus what we do better than upstream (emit dedup, state inspection).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useBroker } from '../../../server/test/support/harness.js';
import { Stream, type WindowContext } from '../../src/streams/index.js';
import { drainQueue, eventually, sleep, streamsKit, total } from './support.js';

const setup = useBroker();
const kit = streamsKit(setup);
const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);
const countSum = { count: () => 1, sum: (v: number) => v };

describe('tumbling windows', () => {
  test('7.6 a 2 s window fed 1 event/s emits ≥ 3 windows; counts and sums equal the input, the trailing one closed by the flush', async () => {
    const src = await kit.source({ Default: [] });
    const emits: Array<{ count: number; sum: number }> = [];
    const { handle, errors } = await kit.run(Stream.from(kit.queen().queue<number>(src)).windowTumbling({ seconds: 2, idleFlushMs: 1000 }).aggregate(countSum).foreach((a) => void emits.push(a)));
    for (const v of range(6)) {
      await kit.push(src, 'Default', [v]);
      await sleep(1000);
    }
    await eventually('all 6 counted', 10_000, () => total(emits, 'count') >= 6);
    await handle.stop();
    assert.ok(emits.length >= 3, `${emits.length} windows`);
    assert.deepEqual([total(emits, 'count'), total(emits, 'sum')], [6, 21]);
    assert.ok(handle.metrics().flushCyclesTotal >= 1);
    assert.deepEqual(errors, []);
  });

  test('7.7 with three partitions each partition’s emits sum to its own input (post map adds ctx.partition)', async () => {
    const input = { A: [1, 2, 3], B: [10, 20], C: [100, 200, 300, 400] };
    const src = await kit.source(input);
    const sink = kit.name('sink');
    const { handle } = await kit.run(
      Stream.from(kit.queen().queue<number>(src))
        .windowTumbling({ seconds: 1, idleFlushMs: 300 })
        .aggregate(countSum)
        .map((agg, ctx) => ({ partition: ctx.partition, ...agg }))
        .to(kit.queen().queue(sink)),
    );
    let out: Array<{ data: { partition: string; count: number; sum: number } }> = [];
    await eventually('9 counted', 10_000, async () => {
      out = await drainQueue(setup.api, sink);
      return total(out.map((m) => m.data), 'count') >= 9;
    });
    await handle.stop();
    for (const [p, values] of Object.entries(input)) {
      const mine = out.filter((m) => m.data.partition === p).map((m) => m.data);
      assert.deepEqual([total(mine, 'count'), total(mine, 'sum')], [values.length, values.reduce((a, b) => a + b, 0)], p);
    }
  });

  test('7.8 aggregate over 10, 5, 30, 2, 3 in one window: count 5, sum 50, min 2, max 30, avg 10', async () => {
    // Event time makes "one window" certain; the last event only moves the watermark past the window's end.
    const t = Date.parse('2026-01-01T10:00:05Z');
    const src = await kit.source({ Default: [...[10, 5, 30, 2, 3].map((v) => ({ t, v })), { t: t + 120_000, v: 0 }] });
    const emits: unknown[] = [];
    const { handle } = await kit.run(
      Stream.from(kit.queen().queue<{ t: number; v: number }>(src))
        .map((m) => m.data.v)
        .windowTumbling({ seconds: 60, eventTime: (m) => m.data.t })
        .aggregate({ count: () => 1, sum: (v) => v, min: (v) => v, max: (v) => v, avg: (v) => v })
        .foreach((a) => void emits.push(a)),
    );
    await eventually('the window closed', 10_000, () => emits.length >= 1);
    await handle.stop();
    assert.deepEqual(emits, [{ count: 5, sum: 50, min: 2, max: 30, avg: 10, __avg_sum: 50, __avg_count: 5 }]);
  });

  test('7.9 a 2 s window with a 4 s grace: nothing after 3 s; by about 7.5 s one emit, sum 6, count 3', async () => {
    const src = await kit.source({ Default: [] });
    const emits: Array<{ count: number; sum: number }> = [];
    const { handle } = await kit.run(Stream.from(kit.queen().queue<number>(src)).windowTumbling({ seconds: 2, gracePeriod: 4, idleFlushMs: 500 }).aggregate(countSum).foreach((a) => void emits.push(a)));
    await kit.push(src, 'Default', [1, 2, 3]);
    await sleep(3000);
    assert.deepEqual(emits, [], 'still within the grace period');
    await eventually('closed after the grace', 4500, () => emits.length >= 1);
    await handle.stop();
    assert.deepEqual(emits, [{ count: 3, sum: 6 }]);
  });

  test('7.10 on a quiet partition the flush closes a 1 s window (count 3, sum 21); flushCyclesTotal ≥ 1', async () => {
    const src = await kit.source({ Default: [6, 7, 8] });
    const emits: Array<{ count: number; sum: number }> = [];
    const { handle } = await kit.run(Stream.from(kit.queen().queue<number>(src)).windowTumbling({ seconds: 1, idleFlushMs: 500 }).aggregate(countSum).foreach((a) => void emits.push(a)));
    await eventually('flushed', 8000, () => emits.length >= 1);
    await handle.stop();
    assert.deepEqual(emits, [{ count: 3, sum: 21 }]);
    assert.ok(handle.metrics().flushCyclesTotal >= 1);
    const left = await setup.db.query(`SELECT key FROM queen_streams.state WHERE query_id = $1`, [handle.metrics().serverQueryId]);
    assert.deepEqual(left.rows, [], 'the flushed row is deleted');
  });

  test('7.11 after a window, foreach’s ctx has partition, partitionId, windowKey (ISO) and numeric windowStart/windowEnd', async () => {
    const src = await kit.source({ Orders: [1] });
    const contexts: WindowContext[] = [];
    const { handle } = await kit.run(Stream.from(kit.queen().queue<number>(src)).windowTumbling({ seconds: 1, idleFlushMs: 300 }).aggregate(countSum).foreach((_a, ctx) => void contexts.push(ctx)));
    await eventually('one emit', 8000, () => contexts.length >= 1);
    await handle.stop();
    const ctx = contexts[0]!;
    assert.equal(ctx.partition, 'Orders');
    assert.match(ctx.partitionId, /^[0-9a-f-]{36}$/);
    assert.equal(ctx.key, ctx.partitionId, 'the key defaults to the partition id');
    assert.equal(ctx.windowKey, new Date(ctx.windowStart).toISOString());
    assert.equal(ctx.windowEnd - ctx.windowStart, 1000);
  });

  test('a backlog worked through slowly is not cut into pieces by the idle flush (the flush clock follows the stream)', async () => {
    const src = await kit.source({ Default: range(120) });
    const emits: Array<{ start: number; count: number; sum: number }> = [];
    const { handle } = await kit.run(
      Stream.from(kit.queen().queue<number>(src))
        .map(async (m) => {
          await sleep(15); // 120 × 15 ms: the backlog outlives the 1 s window it was pushed in
          return m.data;
        })
        .windowTumbling({ seconds: 1, idleFlushMs: 100 })
        .aggregate(countSum)
        .foreach((a, ctx) => void emits.push({ start: ctx.windowStart, ...a })),
      { batchSize: 10, pipelineDepth: 1 },
    );
    await eventually('all 120 counted', 15_000, () => total(emits, 'count') >= 120);
    await handle.stop();
    assert.equal(new Set(emits.map((e) => e.start)).size, emits.length, `a window came out in pieces: ${JSON.stringify(emits)}`);
    assert.deepEqual([total(emits, 'count'), total(emits, 'sum')], [120, 7260]);
  });

  test('a very short flush interval under steady traffic emits each window once (flushes never race this runner’s cycles)', async () => {
    const src = await kit.source({ Default: [] });
    const sink = kit.name('sink');
    const { handle, errors } = await kit.run(
      Stream.from(kit.queen().queue<number>(src))
        // Flushes every 20 ms race the cycles; the 0.3 s grace keeps a message pushed just before a boundary,
        // but delivered after the flush clock passed it, in its own window (without grace it opens that window
        // again, a second emit by the rules of processing-time windows, not a race).
        .windowTumbling({ seconds: 0.5, gracePeriod: 0.3, idleFlushMs: 20 })
        .aggregate(countSum)
        .map((a, ctx) => ({ start: ctx.windowStart, ...a }))
        .to(kit.queen().queue(sink)),
      { maxWaitMillis: 100 },
    );
    for (const v of range(30)) {
      await kit.push(src, 'Default', [v]);
      await sleep(80);
    }
    let out: Array<{ start: number; count: number; sum: number }> = [];
    await eventually('all 30 counted', 10_000, async () => {
      out = (await drainQueue(setup.api, sink)).map((m) => m.data);
      return total(out, 'count') >= 30;
    });
    await sleep(500);
    await handle.stop();
    out = (await drainQueue(setup.api, sink)).map((m) => m.data);
    assert.equal(new Set(out.map((w) => w.start)).size, out.length, 'no window twice');
    assert.deepEqual([total(out, 'count'), total(out, 'sum')], [30, 465]);
    assert.deepEqual(errors, []);
  });

  test('window emits are pushed once even when a flush cycle is replayed or races a cycle (deterministic transactionIds)', async () => {
    const src = await kit.source({ Default: [1, 2, 3] });
    const sink = kit.name('sink');
    const { handle } = await kit.run(Stream.from(kit.queen().queue<number>(src)).windowTumbling({ seconds: 1, idleFlushMs: 300 }).aggregate(countSum).to(kit.queen().queue(sink)));
    const first = await eventually('one emit', 8000, async () => {
      const out = await drainQueue(setup.api, sink);
      return out.length > 0 ? out : undefined;
    });
    await handle.stop();
    assert.equal(first.length, 1);
    // Replay the flush cycle that produced it: same push, same transactionId, so the broker drops it.
    const replay = await setup.api.post('/streams/v1/cycle', {
      query_id: handle.metrics().serverQueryId,
      partition_id: (await setup.db.query<{ id: string }>(`SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1`, [src])).rows[0]!.id,
      consumer_group: `streams.${handle.metrics().queryId}`,
      push_items: [{ queue: sink, partition: 'Default', payload: first[0]!.data, transactionId: first[0]!.transactionId }],
    });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.json.push_results[0].status, 'duplicate');
    assert.match(first[0]!.transactionId, /^qs-[0-9a-f]{64}-0$/);
  });
});

describe('sliding, session and cron windows', () => {
  test('7.12 sliding windows reject size % slide ≠ 0; size 4 s / slide 2 s over 6 events: ≥ 4 closed windows, counts 8-12', async () => {
    assert.throws(() => Stream.from({ queueName: 'x' }).windowSliding({ size: 5, slide: 2 }), /must be an integer multiple/);
    const src = await kit.source({ Default: [] });
    const emits: Array<{ count: number }> = [];
    const { handle } = await kit.run(Stream.from(kit.queen().queue<number>(src)).windowSliding({ size: 4, slide: 2, idleFlushMs: 500 }).aggregate({ count: () => 1 }).foreach((a) => void emits.push(a)));
    for (const v of range(6)) {
      await kit.push(src, 'Default', [v]);
      await sleep(1000);
    }
    await eventually('every window closed', 10_000, () => total(emits, 'count') >= 12);
    await handle.stop();
    assert.ok(emits.length >= 4, `${emits.length} windows`);
    assert.ok(total(emits, 'count') >= 8 && total(emits, 'count') <= 12);
  });

  test('7.13 sessions (gap 2 s): two events 0.5 s apart, 4 s of silence, two more → (2, sum 3) then (2, sum 7)', async () => {
    const src = await kit.source({ Default: [] });
    const emits: Array<{ count: number; sum: number }> = [];
    const { handle } = await kit.run(Stream.from(kit.queen().queue<number>(src)).windowSession({ gap: 2 }).aggregate(countSum).foreach((a) => void emits.push(a)));
    await kit.push(src, 'Default', [1]);
    await sleep(500);
    await kit.push(src, 'Default', [2]);
    await sleep(4000);
    await kit.push(src, 'Default', [3]);
    await sleep(500);
    await kit.push(src, 'Default', [4]);
    await eventually('two sessions', 8000, () => emits.length >= 2);
    await sleep(500);
    await handle.stop();
    assert.deepEqual(emits, [{ count: 2, sum: 3 }, { count: 2, sum: 7 }]);
  });

  test('7.14 a quiet session (gap 1 s) is closed by the flush: one emit, count 3, sum 6', async () => {
    const src = await kit.source({ Default: [1, 2, 3] });
    const emits: Array<{ count: number; sum: number }> = [];
    const { handle } = await kit.run(Stream.from(kit.queen().queue<number>(src)).windowSession({ gap: 1 }).aggregate(countSum).foreach((a) => void emits.push(a)));
    await eventually('flushed', 8000, () => emits.length >= 1);
    await sleep(300);
    await handle.stop();
    assert.deepEqual(emits, [{ count: 3, sum: 6 }]);
    assert.ok(handle.metrics().flushCyclesTotal >= 1);
  });

  test('7.15 sessions keyed by a field are independent within one partition; the post ctx.key is the user key', async () => {
    const src = await kit.source({ Default: [{ user: 'ann', n: 1 }, { user: 'bob', n: 10 }, { user: 'ann', n: 2 }, { user: 'bob', n: 20 }, { user: 'cid', n: 100 }] });
    const emits: Array<{ user: string; count: number; sum: number }> = [];
    const { handle } = await kit.run(
      Stream.from(kit.queen().queue<{ user: string; n: number }>(src))
        .keyBy((m) => m.data.user)
        .map((m) => m.data.n)
        .windowSession({ gap: 1 })
        .aggregate(countSum)
        .map((agg, ctx) => ({ user: ctx.key, ...agg }))
        .foreach((v) => void emits.push(v)),
    );
    await eventually('three sessions', 8000, () => emits.length >= 3);
    await handle.stop();
    assert.deepEqual(emits.sort((a, b) => a.user.localeCompare(b.user)), [
      { user: 'ann', count: 2, sum: 3 },
      { user: 'bob', count: 2, sum: 30 },
      { user: 'cid', count: 1, sum: 100 },
    ]);
  });

  test('7.16 cron: an unknown every is rejected; every:second live emits ≥ 4 windows with numeric counts aligned to seconds', async () => {
    assert.throws(() => Stream.from({ queueName: 'x' }).windowCron({ every: 'fortnight' as 'week' }), /every must be/);
    const src = await kit.source({ Default: [] });
    const emits: Array<{ count: number; start: number }> = [];
    const { handle } = await kit.run(
      Stream.from(kit.queen().queue<number>(src))
        .windowCron({ every: 'second', idleFlushMs: 300 })
        .aggregate({ count: () => 1 })
        .foreach((a, ctx) => void emits.push({ count: a.count, start: ctx.windowStart })),
    );
    for (const v of range(16)) {
      await kit.push(src, 'Default', [v]);
      await sleep(300);
    }
    await eventually('all counted', 8000, () => total(emits, 'count') >= 16);
    await handle.stop();
    assert.ok(emits.length >= 4, `${emits.length} windows`);
    for (const e of emits) assert.ok(typeof e.count === 'number' && e.start % 1000 === 0);
  });

  test('7.16 cron week windows start on Monday 00:00 UTC (event time)', async () => {
    const times = ['2026-01-01T10:00:00Z', '2026-01-04T23:59:59Z', '2026-01-05T00:00:00Z', '2026-01-20T00:00:00Z'];
    const src = await kit.source({ Default: times.map((t, i) => ({ t, i })) });
    const emits: Array<[string, number]> = [];
    const { handle } = await kit.run(
      Stream.from(kit.queen().queue<{ t: string }>(src))
        .windowCron({ every: 'week', eventTime: (m) => m.data.t })
        .aggregate({ count: () => 1 })
        .foreach((a, ctx) => void emits.push([ctx.windowKey, a.count])),
    );
    await eventually('two closed weeks', 8000, () => emits.length >= 2);
    await handle.stop();
    assert.deepEqual(emits, [['2025-12-29T00:00:00.000Z', 2], ['2026-01-05T00:00:00.000Z', 1]]);
  });
});

describe('event time', () => {
  const at = (hms: string) => Date.parse(`2026-01-01T${hms}Z`);

  test('7.17 events at 10:00:01, 10:00:30, 10:01:05 in 60 s windows emit the 10:00 window (count 2, sum 3)', async () => {
    const src = await kit.source({ Default: [{ t: at('10:00:01'), v: 1 }, { t: at('10:00:30'), v: 2 }, { t: at('10:01:05'), v: 3 }] });
    const emits: Array<[string, { count: number; sum: number }]> = [];
    const { handle } = await kit.run(
      Stream.from(kit.queen().queue<{ t: number; v: number }>(src))
        .map((m) => m.data.v)
        .windowTumbling({ seconds: 60, eventTime: (m) => m.data.t })
        .aggregate(countSum)
        .foreach((a, ctx) => void emits.push([ctx.windowKey, a])),
    );
    await eventually('one window', 8000, () => emits.length >= 1);
    await sleep(300);
    await handle.stop();
    assert.deepEqual(emits, [['2026-01-01T10:00:00.000Z', { count: 2, sum: 3 }]]);
    const wm = await setup.db.query<{ value: { eventTimeMs: number } }>(`SELECT value FROM queen_streams.state WHERE query_id = $1 AND key = '__wm__'`, [handle.metrics().serverQueryId]);
    assert.equal(wm.rows[0]!.value.eventTimeMs, at('10:01:05'));
  });

  /** Runs an event-time window query twice (stop between), pushing `later` before the second run. */
  async function restarted(options: { allowedLateness?: number; onLate?: 'drop' | 'include' }, later: number) {
    const src = await kit.source({ Default: [{ t: at('10:05:00'), v: 1 }] });
    const queryId = kit.name('query');
    const emits: number[] = [];
    const chain = Stream.from(kit.queen().queue<{ t: number; v: number }>(src))
      .map((m) => m.data.v)
      .windowTumbling({ seconds: 60, eventTime: (m) => m.data.t, idleFlushMs: 0, ...options })
      .aggregate(countSum)
      .foreach((a) => void emits.push(a.count));
    const first = await kit.run(chain, { queryId });
    await eventually('first event', 8000, () => first.handle.metrics().messagesTotal >= 1);
    await first.handle.stop();
    await kit.push(src, 'Default', [{ t: later, v: 2 }]);
    const second = await kit.run(chain, { queryId });
    await eventually('second event', 8000, () => second.handle.metrics().messagesTotal >= 1);
    await second.handle.stop();
    return second.handle.metrics();
  }

  test('7.18 the watermark survives a restart: an event far below it is dropped (lateEventsTotal ≥ 1)', async () => {
    assert.equal((await restarted({}, at('09:00:00'))).lateEventsTotal, 1);
  });

  test('7.18 an event within allowedLateness is not late', async () => {
    assert.equal((await restarted({ allowedLateness: 60 }, at('10:04:30'))).lateEventsTotal, 0);
  });

  test('7.18 with onLate:include nothing is counted late', async () => {
    assert.equal((await restarted({ onLate: 'include' }, at('09:00:00'))).lateEventsTotal, 0);
  });

  test('an event without a readable time is reported (window-apply), skipped, and acked with its batch', async () => {
    const src = await kit.source({ Default: [{ t: at('10:00:01'), v: 1 }, { t: 'never', v: 2 }, { t: at('10:02:00'), v: 3 }] });
    const emits: Array<{ count: number; sum: number }> = [];
    const phases: string[] = [];
    const { handle } = await kit.run(
      Stream.from(kit.queen().queue<{ t: number | string; v: number }>(src))
        .map((m) => m.data.v)
        .windowTumbling({ seconds: 60, eventTime: (m) => m.data.t })
        .aggregate(countSum)
        .foreach((a) => void emits.push(a)),
      { onError: (_e, ctx) => void phases.push(ctx.phase) },
    );
    await eventually('one window', 8000, () => emits.length >= 1);
    await handle.stop();
    assert.deepEqual(emits, [{ count: 1, sum: 1 }]);
    assert.deepEqual(phases, ['window-apply']);
    assert.equal(handle.metrics().messagesTotal, 3);
  });
});

test('7.22 a full pipeline (pre filter+map, window, aggregate, post map+filter, foreach): exact per-user sums over three partitions', async () => {
  const users = ['ann', 'bob', 'cid'];
  const partitions: Record<string, Array<{ type: string; amount: number }>> = {};
  for (const [i, u] of users.entries()) partitions[u] = range(20).map((n) => ({ type: n % 4 === 0 ? 'refund' : 'buy', amount: n * (i + 1) }));
  const src = await kit.source(partitions);
  const sums = new Map<string, number>();
  const { handle, errors } = await kit.run(
    Stream.from(kit.queen().queue<{ type: string; amount: number }>(src))
      .filter((m) => m.data.type === 'buy')
      .map((m) => ({ amount: m.data.amount }))
      .windowTumbling({ seconds: 1, idleFlushMs: 300 })
      .aggregate({ count: () => 1, sum: (v) => v.amount })
      .map((agg, ctx) => ({ user: ctx.partition, ...agg }))
      .filter((v) => v.count > 0)
      .foreach((v) => void sums.set(v.user, (sums.get(v.user) ?? 0) + v.sum)),
  );
  const expected = new Map(users.map((u) => [u, partitions[u]!.filter((e) => e.type === 'buy').reduce((s, e) => s + e.amount, 0)]));
  await eventually('every user complete', 10_000, () => users.every((u) => sums.get(u) === expected.get(u)));
  await sleep(500);
  await handle.stop();
  assert.deepEqual(sums, expected);
  assert.deepEqual(errors, []);
});
