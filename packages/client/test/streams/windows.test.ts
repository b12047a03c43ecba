/**
 * The pure window machinery: assignment (tumbling, sliding, cron with UTC and Monday weeks), option errors,
 * the watermark, the close rule over stored and new windows, session merging, aggregate arithmetic; window
 * assignment and the reducer are also cross-checked against the official client's operators.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { aggregateReducer, foldReducer } from '../../src/streams/aggregate.js';
import { reduceSessions } from '../../src/streams/session.js';
import { reduceWindows, type StateOp } from '../../src/streams/window-reduce.js';
import { advanceWatermark, cronWindow, eventTimeOf, isLate, sessionWindow, slidingWindow, tumblingWindow, windowStateKey } from '../../src/streams/windows.js';
import { Stream } from '../../src/streams/index.js';
import { compile, type OpNode } from '../../src/streams/pipeline.js';
import { officialModule } from './official.js';

const T = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const sum = foldReducer((acc, v) => ({ count: (acc as { count: number }).count + 1, sum: (acc as { sum: number }).sum + (v as number) }), { count: 0, sum: 0 });

describe('window assignment', () => {
  test('tumbling: epoch-aligned [floor(t/size)·size, +size)', () => {
    const w = tumblingWindow({ seconds: 60 });
    assert.equal(w.tag, 'tumb:60');
    assert.deepEqual(w.assign(T('2026-01-01T10:00:59.999Z')), [{ windowStart: T('2026-01-01T10:00:00Z'), windowEnd: T('2026-01-01T10:01:00Z') }]);
    assert.deepEqual(w.assign(T('2026-01-01T10:01:00Z')), [{ windowStart: T('2026-01-01T10:01:00Z'), windowEnd: T('2026-01-01T10:02:00Z') }]);
    assert.deepEqual(tumblingWindow({ seconds: 7 }).assign(20_000), [{ windowStart: 14_000, windowEnd: 21_000 }]);
  });

  test('sliding: size/slide windows per event, oldest first; size must be a multiple of slide', () => {
    const w = slidingWindow({ size: 4, slide: 2 });
    assert.equal(w.tag, 'slide:4:2');
    assert.deepEqual(w.assign(5_500), [
      { windowStart: 2000, windowEnd: 6000 },
      { windowStart: 4000, windowEnd: 8000 },
    ]);
    assert.equal(slidingWindow({ size: 60, slide: 10 }).assign(123_456).length, 6);
    assert.throws(() => slidingWindow({ size: 5, slide: 2 }), /must be an integer multiple/);
    assert.throws(() => slidingWindow({ size: 0, slide: 2 }), /windowSliding requires \{ size/);
  });

  test('cron: UTC boundaries; a day starts 00:00 UTC, a week on Monday 00:00 UTC', () => {
    const t = T('2026-01-01T10:17:42.123Z'); // a Thursday
    assert.equal(iso(cronWindow({ every: 'second' }).assign(t)[0]!.windowStart), '2026-01-01T10:17:42.000Z');
    assert.equal(iso(cronWindow({ every: 'minute' }).assign(t)[0]!.windowStart), '2026-01-01T10:17:00.000Z');
    assert.equal(iso(cronWindow({ every: 'hour' }).assign(t)[0]!.windowStart), '2026-01-01T10:00:00.000Z');
    assert.equal(iso(cronWindow({ every: 'day' }).assign(t)[0]!.windowStart), '2026-01-01T00:00:00.000Z');
    const week = cronWindow({ every: 'week' }).assign(t)[0]!;
    assert.equal(iso(week.windowStart), '2025-12-29T00:00:00.000Z');
    assert.equal(new Date(week.windowStart).getUTCDay(), 1, 'Monday');
    assert.equal(iso(week.windowEnd), '2026-01-05T00:00:00.000Z');
    assert.equal(iso(cronWindow({ every: 'week' }).assign(T('2026-01-05T00:00:00Z'))[0]!.windowStart), '2026-01-05T00:00:00.000Z', 'Monday midnight opens the next week');
    assert.equal(iso(cronWindow({ every: 'week' }).assign(T('2026-01-04T23:59:59.999Z'))[0]!.windowStart), '2025-12-29T00:00:00.000Z', 'Sunday night is still the old week');
    assert.throws(() => cronWindow({ every: 'fortnight' as 'week' }), /windowCron: every must be one of second\|minute\|hour\|day\|week/);
  });

  test('options: default idle flush per kind, onLate validated, positive sizes', () => {
    assert.equal(tumblingWindow({ seconds: 1 }).idleFlushMs, 5000);
    assert.equal(slidingWindow({ size: 2, slide: 1 }).idleFlushMs, 5000);
    assert.equal(cronWindow({ every: 'minute' }).idleFlushMs, 30_000);
    assert.equal(sessionWindow({ gap: 1 }).idleFlushMs, 1000);
    assert.equal(tumblingWindow({ seconds: 1, idleFlushMs: 0 }).idleFlushMs, 0);
    assert.throws(() => tumblingWindow({ seconds: 1, onLate: 'queue' as 'drop' }), /onLate must be 'drop' or 'include'/);
    assert.throws(() => tumblingWindow({ seconds: -1 }), /windowTumbling requires \{ seconds/);
    assert.throws(() => sessionWindow({ gap: 0 }), /windowSession requires \{ gap/);
  });

  test('event time: number, Date or ISO string; createdAt without an extractor; null when unreadable', () => {
    const m = { createdAt: '2026-01-01T00:00:01.500Z' };
    assert.equal(eventTimeOf(m, undefined), T(m.createdAt));
    assert.equal(eventTimeOf(m, () => 42), 42);
    assert.equal(eventTimeOf(m, () => new Date(7)), 7);
    assert.equal(eventTimeOf(m, () => '2026-01-01T10:00:00Z'), T('2026-01-01T10:00:00Z'));
    assert.equal(eventTimeOf(m, () => 'soon'), null);
    assert.equal(eventTimeOf(m, () => undefined), null);
    assert.throws(() => eventTimeOf(m, () => { throw new Error('bad'); }), /eventTime extractor threw: bad/);
  });

  test('watermark: max(previous, maxEventTime − lateness), never back; late = below the watermark before the batch', () => {
    assert.equal(advanceWatermark(undefined, 10_000, 2000), 8000);
    assert.equal(advanceWatermark(8000, 9000, 2000), 8000, 'never moves back');
    assert.equal(advanceWatermark(8000, 20_000, 0), 20_000);
    assert.equal(advanceWatermark(8000, undefined, 0), 8000);
    assert.equal(advanceWatermark(undefined, undefined, 0), undefined);
    assert.equal(isLate(7999, 8000), true);
    assert.equal(isLate(8000, 8000), false);
    assert.equal(isLate(0, undefined), false);
  });

  test('assignment equals the official operators for random timestamps', async () => {
    const ops = await officialModule('streams/operators/index.js');
    const pairs: Array<[ReturnType<typeof tumblingWindow>, any]> = [
      [tumblingWindow({ seconds: 3 }), new ops.WindowTumblingOperator({ seconds: 3 })],
      [slidingWindow({ size: 6, slide: 2 }), new ops.WindowSlidingOperator({ size: 6, slide: 2 })],
      [cronWindow({ every: 'week' }), new ops.WindowCronOperator({ every: 'week' })],
      [cronWindow({ every: 'hour' }), new ops.WindowCronOperator({ every: 'hour' })],
    ];
    for (let i = 0; i < 200; i++) {
      const ts = Math.floor(Math.random() * 4e12);
      for (const [ours, theirs] of pairs) {
        const expected = (await theirs.apply({ msg: { createdAt: iso(ts) }, key: 'k', value: 1 })).map((a: any) => ({ windowStart: a.windowStart, windowEnd: a.windowEnd }));
        expected.sort((a: any, b: any) => a.windowStart - b.windowStart);
        assert.deepEqual(ours.assign(ts), expected, `${ours.tag} at ${iso(ts)}`);
        assert.equal(theirs.operatorTag, ours.tag);
      }
    }
  });
});

describe('window close rule', () => {
  const tag = 'tumb:2';
  const slot = (start: number) => ({ windowStart: start, windowEnd: start + 2000 });

  test('a window opened and closed in one batch is emitted and never stored; open ones are upserted', async () => {
    const { stateOps, emits } = await reduceWindows({
      rows: new Map(),
      tag,
      graceMs: 0,
      clock: 4500,
      reducer: sum,
      events: [
        { key: 'p', slot: slot(0), value: 1, origin: 'a' },
        { key: 'p', slot: slot(0), value: 2, origin: 'b' },
        { key: 'p', slot: slot(4000), value: 5, origin: 'c' },
      ],
    });
    assert.deepEqual(emits.map((e) => [e.windowKey, e.value]), [[iso(0), { count: 2, sum: 3 }]]);
    assert.deepEqual(stateOps, [{ type: 'upsert', key: windowStateKey(tag, 4000, 'p'), value: { acc: { count: 1, sum: 5 }, windowStart: 4000, windowEnd: 6000, origin: 'c' } }]);
  });

  test('stored windows close without new events, with the grace period; their rows are deleted', async () => {
    const rows = new Map<string, unknown>([
      [windowStateKey(tag, 0, 'p'), { acc: { count: 3, sum: 6 }, windowStart: 0, windowEnd: 2000, origin: 'x' }],
      [windowStateKey(tag, 2000, 'p'), { acc: { count: 1, sum: 1 }, windowStart: 2000, windowEnd: 4000 }],
      [windowStateKey('tumb:9', 0, 'p'), { acc: 1, windowStart: 0, windowEnd: 9000 }],
      ['__wm__', { eventTimeMs: 1 }],
    ]);
    const early = await reduceWindows({ rows, tag, graceMs: 4000, clock: 5999, reducer: sum, events: [] });
    assert.deepEqual(early, { stateOps: [], emits: [] }, 'end + grace > clock: still open, untouched');
    const later = await reduceWindows({ rows, tag, graceMs: 4000, clock: 6000, reducer: sum, events: [] });
    assert.deepEqual(later.emits.map((e) => e.value), [{ count: 3, sum: 6 }]);
    assert.deepEqual(later.stateOps, [{ type: 'delete', key: windowStateKey(tag, 0, 'p') }] satisfies StateOp[]);
    assert.notEqual(later.emits[0]!.identity, (await reduceWindows({ rows: new Map(), tag, graceMs: 0, clock: 9999, reducer: sum, events: [{ key: 'p', slot: slot(0), value: 1, origin: 'y' }] })).emits[0]!.identity, 'a re-created row has another identity');
  });

  test('the reducer equals the official ReduceOperator on random batches', async () => {
    const { ReduceOperator } = await officialModule('streams/operators/index.js');
    const fold = (acc: number[], v: number) => [...acc, v];
    for (let round = 0; round < 50; round++) {
      const rows = new Map<string, unknown>();
      for (let i = 0; i < 3; i++) {
        const start = Math.floor(Math.random() * 10) * 2000;
        rows.set(windowStateKey(tag, start, `k${i % 2}`), { acc: [i], windowStart: start, windowEnd: start + 2000 });
      }
      const events = Array.from({ length: 8 }, (_, i) => ({ key: `k${i % 2}`, slot: slot(Math.floor(Math.random() * 12) * 2000), value: i, origin: `o${i}` }));
      const clock = Math.floor(Math.random() * 26_000);
      const ours = await reduceWindows({ rows, events, tag, graceMs: 1000, clock, reducer: foldReducer(fold as never, []) });
      const theirs = await new ReduceOperator(fold, []).run({
        envelopes: events.map((e) => ({ key: e.key, windowStart: e.slot.windowStart, windowEnd: e.slot.windowEnd, windowKey: iso(e.slot.windowStart), value: e.value })),
        loadedState: rows,
        streamTimeMs: clock,
        operatorTag: tag,
        gracePeriodMs: 1000,
      });
      const norm = (ops: any[]) => ops.map((o) => (o.type === 'upsert' ? { ...o, value: { acc: o.value.acc, windowStart: o.value.windowStart, windowEnd: o.value.windowEnd } } : o)).sort((a, b) => (a.key < b.key ? -1 : 1));
      assert.deepEqual(norm(ours.stateOps), norm(theirs.stateOps));
      const emit = (e: any) => [e.key, e.windowKey, e.windowStart, e.windowEnd, e.value];
      assert.deepEqual(ours.emits.map(emit).sort(), theirs.emits.map(emit).sort());
    }
  });
});

describe('sessions', () => {
  const tag = 'sess:2';
  const agg = aggregateReducer({ count: () => 1, sum: (v: unknown) => v });

  test('two events 0.5 s apart, 4 s of silence, two more: two sessions (2, sum 3) and (2, sum 7)', async () => {
    const ev = (ts: number, value: number) => ({ key: 'u', ts, value, origin: `o${ts}` });
    const first = await reduceSessions({ rows: new Map(), tag, gapMs: 2000, graceMs: 0, clock: 10_500, reducer: agg, events: [ev(10_000, 1), ev(10_500, 2)] });
    assert.deepEqual(first.emits, []);
    assert.equal(first.stateOps.length, 1);
    const stored = new Map(first.stateOps.map((op) => [op.key, (op as { value: unknown }).value]));
    assert.deepEqual(stored.get('sess:2\u001fopen\u001fu'), { acc: { count: 2, sum: 3 }, sessionStart: 10_000, lastEventTime: 10_500, origin: 'o10000' });
    const second = await reduceSessions({ rows: stored, tag, gapMs: 2000, graceMs: 0, clock: 15_000, reducer: agg, events: [ev(14_500, 3), ev(15_000, 4)] });
    assert.deepEqual(second.emits.map((e) => [e.value, e.windowStart, e.windowEnd, e.windowKey]), [[{ count: 2, sum: 3 }, 10_000, 12_500, iso(10_000)]]);
    const flushed = await reduceSessions({ rows: new Map(second.stateOps.map((op) => [op.key, (op as { value: unknown }).value])), tag, gapMs: 2000, graceMs: 0, clock: 17_000, reducer: agg, events: [] });
    assert.deepEqual(flushed.emits.map((e) => e.value), [{ count: 2, sum: 7 }]);
    assert.deepEqual(flushed.stateOps, [{ type: 'delete', key: 'sess:2\u001fopen\u001fu' }]);
  });

  test('keys are independent; an out-of-order event extends without moving lastEventTime back', async () => {
    const { emits, stateOps } = await reduceSessions({
      rows: new Map(),
      tag,
      gapMs: 2000,
      graceMs: 0,
      clock: 5000,
      reducer: agg,
      events: [
        { key: 'a', ts: 1000, value: 1, origin: '1' },
        { key: 'b', ts: 1500, value: 10, origin: '2' },
        { key: 'a', ts: 2500, value: 2, origin: '3' },
        { key: 'a', ts: 2000, value: 3, origin: '4' },
        { key: 'b', ts: 4800, value: 20, origin: '5' },
      ],
    });
    assert.deepEqual(emits.map((e) => [e.key, e.value, e.windowEnd]), [
      ['b', { count: 1, sum: 10 }, 3500],
      ['a', { count: 3, sum: 6 }, 4500],
    ]);
    assert.deepEqual(stateOps.map((o) => o.key), ['sess:2\u001fopen\u001fb']);
  });

  test('a stored session replaced by one that also closes is deleted, not left behind', async () => {
    const key = 'sess:2\u001fopen\u001fu';
    const rows = new Map<string, unknown>([[key, { acc: { count: 1, sum: 1 }, sessionStart: 0, lastEventTime: 0 }]]);
    const { emits, stateOps } = await reduceSessions({ rows, tag, gapMs: 2000, graceMs: 0, clock: 20_000, reducer: agg, events: [{ key: 'u', ts: 10_000, value: 5, origin: 'z' }] });
    assert.deepEqual(emits.map((e) => e.value), [{ count: 1, sum: 1 }, { count: 1, sum: 5 }]);
    assert.deepEqual(stateOps, [{ type: 'delete', key }]);
  });
});

describe('aggregate', () => {
  test('10, 5, 30, 2, 3: count 5, sum 50, min 2, max 30, avg 10', async () => {
    const r = aggregateReducer({ count: () => 1, sum: (v: unknown) => v, min: (v: unknown) => v, max: (v: unknown) => v, avg: (v: unknown) => v });
    let acc = r.initial();
    for (const v of [10, 5, 30, 2, 3]) acc = await r.fold(acc, v);
    assert.deepEqual(acc, { count: 5, sum: 50, min: 2, max: 30, avg: 10, __avg_sum: 50, __avg_count: 5 });
    assert.deepEqual(r.initial(), { count: 0, sum: 0, min: null, max: null, avg: 0, __avg_sum: 0, __avg_count: 0 });
  });

  test('count adds numbers (1 otherwise), min/max/avg ignore non-numbers, other names are totals', async () => {
    const r = aggregateReducer({ count: (v: unknown) => (v === 'x' ? 'one' : 2), min: (v: unknown) => v, weight: (v: unknown) => (typeof v === 'number' ? v * 2 : null) });
    let acc = r.initial();
    for (const v of ['x', 4, 'y']) acc = await r.fold(acc, v);
    assert.deepEqual(acc, { count: 5, min: 4, weight: 8 });
    assert.throws(() => aggregateReducer({}), /at least one extractor/);
    assert.throws(() => aggregateReducer({ sum: 3 }), /aggregate.sum must be a function/);
  });

  test('matches the official AggregateOperator', async () => {
    const { AggregateOperator } = await officialModule('streams/operators/index.js');
    const spec = { count: () => 1, sum: (v: any) => v.n, min: (v: any) => v.n, max: (v: any) => v.n, avg: (v: any) => v.n, other: (v: any) => v.n / 2 };
    const theirs = new AggregateOperator(spec);
    const ours = aggregateReducer(spec);
    let a = ours.initial();
    let b = theirs._initial();
    for (let i = 0; i < 30; i++) {
      const v = { n: Math.round(Math.random() * 100) - 50 };
      a = await ours.fold(a, v);
      b = await theirs.fn(b, v);
    }
    assert.deepEqual(a, b);
  });
});

describe('compile rules (docs/streams-sdk.md), for chains built without the types', () => {
  const f = () => 1;
  const win = { kind: 'window', window: tumblingWindow({ seconds: 1 }) } as const;
  const agg = { kind: 'aggregate', spec: { count: f } } as const;
  const gate = { kind: 'gate', fn: f } as const;
  const keyBy = { kind: 'keyBy', fn: f } as const;
  const map = { kind: 'map', fn: f } as const;
  const sink = { kind: 'sink', queue: 's', partition: undefined } as const;
  const cases: Array<[OpNode[], RegExp]> = [
    [[sink, map], /sink operators \(.to \/ .foreach\) must be the last in the chain; found sink at position 0 of 2/],
    [[keyBy, keyBy], /only one .keyBy\(\) per stream/],
    [[win, agg, keyBy], /.keyBy\(\) must come before window\/reduce\/gate/],
    [[gate, keyBy], /.keyBy\(\) must come before window\/reduce\/gate/],
    [[win, win], /only one window operator per stream/],
    [[win, agg, agg], /only one reduce\/aggregate per stream/],
    [[agg], /reduce\/aggregate requires a preceding window operator/],
    [[win, gate], /.gate\(\) is incompatible with windowing\/reduce in the same stream/],
    [[gate, gate], /only one .gate\(\) per stream/],
    [[gate, win], /window\+reduce is incompatible with .gate\(\)/],
  ];
  test('each malformed chain throws upstream\'s text', () => {
    for (const [ops, message] of cases) assert.throws(() => compile('q', ops), message);
  });
  test('stages: stateless before the reducer (also between window and reducer) are pre, after it post', () => {
    const p = compile('q', [map, win, { kind: 'filter', fn: f }, keyBy, agg, map, { kind: 'flatMap', fn: f }, sink]);
    assert.deepEqual(p.pre.map((o) => o.kind), ['map', 'filter']);
    assert.deepEqual(p.post.map((o) => o.kind), ['map', 'flatMap']);
    assert.ok(p.keyBy && p.window && p.reducer && !p.gate);
    assert.equal(p.terminal?.kind, 'sink');
    const g = compile('q', [map, gate, map]);
    assert.deepEqual([g.pre.length, g.post.length, g.window], [1, 1, undefined]);
  });
  test('typed builders are immutable', async () => {
    const base = Stream.from({ queueName: 'q' });
    const a = base.map(() => 1);
    assert.deepEqual(base.describe(), []);
    assert.deepEqual(a.describe(), ['map']);
    assert.deepEqual(a.windowTumbling({ seconds: 1 }).aggregate({ count: () => 1 }).to({ queueName: 's' }).describe(), ['map', 'window', 'aggregate', 'sink']);
    assert.throws(() => Stream.from({} as never), /Could not extract queue name from stream source/);
  });
});
