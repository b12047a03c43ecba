/**
 * The gate and the rate limiters as pure code: token-bucket and sliding-window arithmetic (checked against the
 * official helpers on random traffic), gate evaluation (deny discards, flatMap units), and what a gate cycle
 * commits (partial ack of whole messages, release_lease false, nothing for a first-message deny).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evaluateGate, gateAllows } from '../../src/streams/gate.js';
import { planCycle } from '../../src/streams/partition-cycle.js';
import { compile, type OpNode } from '../../src/streams/pipeline.js';
import { slidingWindowGate, tokenBucketGate, type GateContext } from '../../src/streams/index.js';
import { deliver } from '../../src/streams/emit.js';
import type { SourceMessage } from '../../src/streams/types.js';
import { officialModule } from './official.js';

function ctx<S extends object>(state: Partial<S>, now: number): GateContext<S> {
  return { state, streamTimeMs: now, partitionId: 'pid', partition: 'P', key: 'pid' };
}

describe('tokenBucketGate', () => {
  test('burst of capacity, then refill per second, capped at capacity; costs; zero cost', () => {
    const gate = tokenBucketGate<{ w?: number }>({ capacity: 3, refillPerSec: 2, costFn: (v) => v.w ?? 1 });
    const state = {};
    const at = (ms: number, v = {}) => gate(v, ctx(state, ms));
    assert.deepEqual([at(0), at(0), at(0), at(0)], [true, true, true, false]);
    assert.equal(at(499), false, '0.998 tokens');
    assert.equal(at(500), true, 'one token after 0.5 s');
    assert.equal(at(10_000, { w: 3 }), true, 'refill is capped at capacity (3), not 19');
    assert.equal(at(10_000), false);
    assert.equal(at(10_000, { w: 0 }), true, 'cost 0 passes without a token');
    assert.equal(at(10_000, { w: Number.NaN }), false, 'a bad cost counts as 1');
    assert.deepEqual(state, { tokens: 0, lastRefillAt: 10_000, allowedTotal: 5, consumedTotal: 7 });
    assert.equal(tokenBucketGate({ capacity: 1, refillPerSec: 1, costFn: () => 0, allowZeroCost: false })({}, ctx({}, 0)), false);
    assert.throws(() => tokenBucketGate({ capacity: 0, refillPerSec: 1 }), /capacity must be a positive number/);
    assert.throws(() => tokenBucketGate({ capacity: 1, refillPerSec: -1 }), /refillPerSec must be a positive number/);
  });

  test('slidingWindowGate: previous·(1 − elapsed) + current + cost ≤ limit', () => {
    const gate = slidingWindowGate({ limit: 10, windowSec: 10 });
    const state = {};
    let allowed = 0;
    for (let i = 0; i < 15; i++) if (gate({}, ctx(state, 1000))) allowed++;
    assert.equal(allowed, 10, 'ten in the first window');
    // At 15 s (half-way into the next window) the previous 10 count for 5: five more pass.
    allowed = 0;
    for (let i = 0; i < 15; i++) if (gate({}, ctx(state, 15_000))) allowed++;
    assert.equal(allowed, 5);
    assert.equal(gate({}, ctx(state, 35_000)), true, 'two windows later nothing is remembered');
    assert.deepEqual(state, { window: 3, currentCount: 1, previousCount: 0 });
    assert.throws(() => slidingWindowGate({ limit: 1, windowSec: 0 }), /windowSec must be a positive number/);
  });

  test('both agree with the official helpers on random traffic', async () => {
    const official = await officialModule('streams/helpers/rateLimiter.js');
    const pairs = [
      [tokenBucketGate<{ w: number }>({ capacity: 5, refillPerSec: 3, costFn: (v) => v.w }), official.tokenBucketGate({ capacity: 5, refillPerSec: 3, costFn: (v: any) => v.w })],
      [slidingWindowGate<{ w: number }>({ limit: 7, windowSec: 2, costFn: (v) => v.w }), official.slidingWindowGate({ limit: 7, windowSec: 2, costFn: (v: any) => v.w })],
    ] as const;
    for (const [ours, theirs] of pairs) {
      const a = {};
      const b = {};
      let now = 0;
      for (let i = 0; i < 500; i++) {
        now += Math.floor(Math.random() * 400);
        const v = { w: Math.floor(Math.random() * 3) };
        assert.equal(ours(v, ctx(a, now)), theirs(v, { state: b, streamTimeMs: now }), `step ${i}`);
        assert.deepEqual(a, b);
      }
    }
  });
});

describe('gate evaluation', () => {
  const counter = (limit: number) => (_v: unknown, c: { state: Record<string, unknown> }) => {
    const n = (c.state.n as number | undefined) ?? 0;
    c.state.n = n + 1;
    c.state.touched = true;
    return n < limit;
  };

  test('evaluation stops at the first deny; a deny’s state changes are discarded even for an allowed key', async () => {
    const items = [0, 1, 2, 3].map((unit) => ({ key: 'k', value: unit, unit }));
    const out = await evaluateGate({ items, rows: new Map([['k', { n: 1 }]]), fn: counter(3), streamTimeMs: 0, partitionId: 'p', partition: 'P' });
    assert.deepEqual(out, { allowed: 2, deniedUnit: 2, stateOps: [{ type: 'upsert', key: 'k', value: { n: 3, touched: true } }] });
  });

  test('the envelopes of one message pass or fail together', async () => {
    const items = [
      { key: 'a', value: 1, unit: 0 },
      { key: 'b', value: 2, unit: 1 },
      { key: 'a', value: 3, unit: 1 },
    ];
    const out = await evaluateGate({ items, rows: new Map(), fn: (v) => v !== 3, streamTimeMs: 0, partitionId: 'p', partition: 'P' });
    assert.equal(out.allowed, 1);
    assert.equal(out.deniedUnit, 1);
    assert.deepEqual(out.stateOps.map((o) => o.key), ['a'], 'the allowed half of the denied message commits nothing');
  });

  test('answers other than a boolean or {allow} throw', () => {
    assert.equal(gateAllows({ allow: false }), false);
    assert.throws(() => gateAllows('yes'), /must return boolean or \{ allow: boolean \}/);
  });
});

describe('a gate cycle plan', () => {
  const msg = (i: number): SourceMessage => ({ id: `01-${i}`, transactionId: `t${i}`, traceId: null, data: i, producerSub: null, createdAt: new Date(1000 + i).toISOString(), partitionId: 'pid', partition: 'P', leaseId: 'L', consumerGroup: 'g' });
  const env = { partitionId: 'pid', partition: 'P', cachedWatermark: undefined, loadState: async () => new Map<string, unknown>(), report: () => undefined };
  const gated = (fn: (v: unknown) => boolean, extra: OpNode[] = []) => compile('q', [...extra, { kind: 'gate', fn: fn as never }]);

  test('K allowed before a deny: ack of the K-th message, count K, the lease kept', async () => {
    const plan = await planCycle(gated((v) => (v as number) < 3), [msg(4), msg(1), msg(3), msg(2), msg(0)], env);
    assert.deepEqual(plan.ack && { tx: plan.ack.message.transactionId, count: plan.ack.count }, { tx: 't2', count: 3 });
    assert.equal(plan.releaseLease, false);
    assert.deepEqual(plan.emits.map((e) => e.value), [0, 1, 2]);
    assert.deepEqual([plan.gateAllows, plan.gateDenials], [3, 2]);
  });

  test('a deny of the first message commits nothing; no deny is an ordinary cycle of the whole batch', async () => {
    assert.equal((await planCycle(gated(() => false), [msg(0), msg(1)], env)).ack, null);
    const all = await planCycle(gated(() => true, [{ kind: 'filter', fn: (m) => (m as SourceMessage<number>).data < 1 }]), [msg(0), msg(1), msg(2)], env);
    assert.deepEqual([all.ack?.message.transactionId, all.ack?.count, all.releaseLease], ['t2', 3, true], 'filtered-out messages at the end are acked too');
  });

  test('a throwing gate aborts the plan with the error for gate-eval', async () => {
    const plan = await planCycle(gated(() => { throw new Error('boom'); }), [msg(0)], env);
    assert.equal(plan.ack, null);
    assert.match(String((plan.gateFailure?.error as Error).message), /boom/);
  });

  test('sink push items: window emits get deterministic ids (same identity, same id), others none', async () => {
    const sink = { kind: 'sink', queue: 's', partition: undefined } as const;
    const source = { partition: 'P', partitionId: 'pid', queryId: 'qid' };
    const a = await deliver(sink, [{ key: 'k', value: 1, identity: 'row' }, { key: 'k', value: 2, identity: 'row' }, { key: 'k', value: { x: 1 } }], source);
    const b = await deliver(sink, [{ key: 'k', value: 1, identity: 'row' }], source);
    assert.match(a[0]!.transactionId!, /^qs-[0-9a-f]{64}-0$/);
    assert.equal(a[1]!.transactionId, a[0]!.transactionId!.replace(/-0$/, '-1'));
    assert.equal(b[0]!.transactionId, a[0]!.transactionId);
    assert.equal(a[2]!.transactionId, undefined);
    assert.deepEqual(a.map((i) => [i.queue, i.partition, i.payload]), [['s', 'P', { value: 1 }], ['s', 'P', { value: 2 }], ['s', 'P', { x: 1 }]]);
    const other = await deliver(sink, [{ key: 'k', value: 1, identity: 'row' }], { ...source, partitionId: 'pid2' });
    assert.notEqual(other[0]!.transactionId, a[0]!.transactionId);
  });

  test('a pass-through sink item carries its source message\'s W3C trace context; a message without one gives none', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const traced = { ...msg(1), traceparent, tracestate: 'k=v' };
    const mapped = compile('q', [{ kind: 'map', fn: (m) => (m as SourceMessage<number>).data * 10 }, { kind: 'sink', queue: 's' } as never]);
    const plan = await planCycle(mapped, [msg(0), traced], env);
    const items = await deliver(mapped.terminal, plan.emits, { partition: 'P', partitionId: 'pid', queryId: 'qid' });
    assert.deepEqual(items, [{ queue: 's', partition: 'P', payload: { value: 0 } }, { queue: 's', partition: 'P', payload: { value: 10 }, traceparent, tracestate: 'k=v' }]);
  });
});
