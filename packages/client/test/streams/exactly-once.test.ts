/**
 * Exactly-once per source message where the worker is involved (docs/streams.md, issue 15 item 5): a worker
 * SIGKILLed after computing a cycle but before committing it, one SIGKILLed after the broker committed but
 * before it heard back, two workers racing for the same partitions, and a lease that expires while a worker
 * is still computing. After each, every window's count and sum equal the input exactly and no window is
 * emitted twice.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { useBroker } from '../../../server/test/support/harness.js';
import { Stream } from '../../src/streams/index.js';
import { EVENT_BASE, windowedCounts, workerOptions, type Event, type WindowTotal } from '../fixtures/stream-worker.js';
import { drainQueue, eventually, sleep, streamsKit } from './support.js';

const setup = useBroker();
const kit = streamsKit(setup);
const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'stream-worker.ts');
const PARTITIONS = ['p0', 'p1', 'p2', 'p3'];
const PER_PARTITION = 100;

type Totals = Map<string, { count: number; sum: number }>;

/**
 * 100 events per partition 10 ms apart in event time (five 200 ms windows of 20), then one far later event per
 * partition that moves the watermark past them all. Returns the exact windows the sink must receive.
 */
async function filledSource(): Promise<{ src: string; expected: Totals }> {
  const input: Record<string, Event[]> = {};
  const expected: Totals = new Map();
  for (const [i, p] of PARTITIONS.entries()) {
    input[p] = Array.from({ length: PER_PARTITION }, (_, k) => ({ k, v: i * 1000 + k }));
    for (const { k, v } of input[p]!) {
      const id = `${p}@${EVENT_BASE + Math.floor(k / 20) * 200}`;
      const t = expected.get(id) ?? { count: 0, sum: 0 };
      expected.set(id, { count: t.count + 1, sum: t.sum + v });
    }
    input[p]!.push({ k: 100_000, v: 0 });
  }
  // A short lease, so what a dead worker held comes back quickly.
  return { src: await kit.source(input, { leaseTime: 2, retryLimit: 100 }), expected };
}

/** Waits until the sink holds every expected window, then checks that it holds exactly those, once each. */
async function assertExactlyOnce(sink: string, expected: Totals): Promise<void> {
  let windows: WindowTotal[] = [];
  await eventually(`the sink holds ${expected.size} windows`, 30_000, async () => {
    windows = (await drainQueue(setup.api, sink)).map((m) => m.data as WindowTotal);
    return windows.length >= expected.size;
  });
  await sleep(1500); // anything duplicated would arrive now
  windows = (await drainQueue(setup.api, sink)).map((m) => m.data as WindowTotal);
  const ids = windows.map((w) => `${w.partition}@${w.windowStart}`);
  assert.equal(new Set(ids).size, ids.length, `a window was emitted twice: ${ids.sort().join(', ')}`);
  assert.deepEqual(new Map(windows.map((w) => [`${w.partition}@${w.windowStart}`, { count: w.count, sum: w.sum }])), expected);
}

function startWorker(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    output: () => out,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('a worker SIGKILLed mid-cycle', () => {
  for (const mode of ['hang-before-commit', 'hang-after-commit'] as const) {
    test(`${mode}: the next worker of the query finishes the input; every window exact, none twice`, async () => {
      const { src, expected } = await filledSource();
      const sink = kit.name('sink');
      const queryId = kit.name('query');
      const worker = startWorker([setup.broker.url, src, sink, queryId, mode, '3']);
      try {
        await eventually('the worker froze on its third cycle', 20_000, () => worker.output().includes('HANG'));
      } finally {
        await worker.kill();
      }
      const committed = await setup.db.query<{ n: string }>(`SELECT count(*) AS n FROM queen_streams.state s JOIN queen_streams.queries q ON q.id = s.query_id WHERE q.name = $1`, [queryId]);
      assert.ok(Number(committed.rows[0]!.n) > 0, 'the killed worker had committed state');
      const { handle, errors } = await kit.run(windowedCounts(src, sink), workerOptions(setup.broker.url, queryId));
      await assertExactlyOnce(sink, expected);
      await handle.stop();
      assert.deepEqual(errors, []);
    });
  }
});

test('two workers racing for the same partitions: every window exact, none twice', async () => {
  const { src, expected } = await filledSource();
  const sink = kit.name('sink');
  const queryId = kit.name('query');
  const a = await kit.run(windowedCounts(src, sink), workerOptions(setup.broker.url, queryId));
  const b = await kit.run(windowedCounts(src, sink), workerOptions(setup.broker.url, queryId));
  await assertExactlyOnce(sink, expected);
  await Promise.all([a.handle.stop(), b.handle.stop()]);
  const ma = a.handle.metrics();
  const mb = b.handle.metrics();
  assert.equal(ma.messagesTotal + mb.messagesTotal, PARTITIONS.length * (PER_PARTITION + 1), 'each message committed by exactly one worker');
  assert.ok(ma.messagesTotal > 0 && mb.messagesTotal > 0, `both worked: ${ma.messagesTotal} / ${mb.messagesTotal}`);
});

test('a lease that expires while a worker computes: its late commit is refused, the other worker’s counts stand', async () => {
  const src = await kit.source({ Default: [1, 2, 3, 4, 5] }, { leaseTime: 1, retryLimit: 100 });
  const sink = kit.name('sink');
  const queryId = kit.name('query');
  let slowOnce = true;
  const chain = (slow: boolean) =>
    Stream.from<number>({ queueName: src })
      .map(async (m) => {
        if (slow && slowOnce) {
          slowOnce = false;
          await sleep(2500); // longer than the 1 s lease
        }
        return m.data;
      })
      .to({ queueName: sink });
  const slowRun = await kit.run(chain(true), { queryId, batchSize: 10 });
  await sleep(1500);
  const fast = await kit.run(chain(false), { queryId, batchSize: 10 });
  // Whoever holds the lease when the batch comes back moves it (the slow runner may pop it again too).
  await eventually('all five moved', 15_000, () => slowRun.handle.metrics().messagesTotal + fast.handle.metrics().messagesTotal >= 5);
  await sleep(1500);
  await Promise.all([slowRun.handle.stop(), fast.handle.stop()]);
  const out = await drainQueue(setup.api, sink);
  assert.deepEqual(out.map((m) => m.data.value).sort(), [1, 2, 3, 4, 5], 'each message once');
  assert.equal(slowRun.handle.metrics().messagesTotal + fast.handle.metrics().messagesTotal, 5);
  assert.ok(slowRun.errors.some((e) => /lease/i.test(String((e as Error).message))), `the slow worker's late cycle failed on its lease: ${slowRun.errors.map(String).join('; ')}`);
});

test('processing time under a live load, two workers and a fast idle flush: each (partition, window) emitted once, totals exact', async () => {
  // Windows of 0.5 s, flushed every 50 ms, cycles slowed to 30-120 ms: a worker whose flush clock passes a
  // window's end while the other worker still holds messages of that window must not close it.
  const src = await kit.source({}, { leaseTime: 5, retryLimit: 100 });
  const sink = kit.name('sink');
  const queryId = kit.name('query');
  const chain = () =>
    Stream.from<{ v: number }>({ queueName: src })
      .map(async (m) => {
        await sleep(Math.floor(Math.random() * 4)); // per message: a cycle of 25 takes tens of ms
        return m.data.v;
      })
      .windowTumbling({ seconds: 0.5, idleFlushMs: 50 })
      .aggregate({ count: () => 1, sum: (v) => v })
      .map((agg, ctx) => ({ partition: ctx.partition, windowStart: ctx.windowStart, count: agg.count, sum: agg.sum }))
      .to({ queueName: sink });
  const options = { queryId, batchSize: 25, maxPartitions: 1, maxWaitMillis: 100 };
  const a = await kit.run(chain(), options);
  const b = await kit.run(chain(), options);
  let sent = 0;
  let sum = 0;
  const until = Date.now() + 6000;
  for (let n = 1; Date.now() < until; n++) {
    await Promise.all(PARTITIONS.map((p) => kit.push(src, p, Array.from({ length: 3 }, (_, i) => ({ v: n * 10 + i })))));
    sent += 3 * PARTITIONS.length;
    sum += PARTITIONS.length * (30 * n + 3);
    await sleep(20);
  }
  let windows: WindowTotal[] = [];
  await eventually(`the sink holds all ${sent} messages`, 30_000, async () => {
    windows = (await drainQueue(setup.api, sink)).map((m) => m.data as WindowTotal);
    return windows.reduce((s, w) => s + w.count, 0) >= sent;
  });
  await sleep(1000);
  windows = (await drainQueue(setup.api, sink)).map((m) => m.data as WindowTotal);
  await Promise.all([a.handle.stop(), b.handle.stop()]);
  assert.deepEqual([windows.reduce((s, w) => s + w.count, 0), windows.reduce((s, w) => s + w.sum, 0)], [sent, sum], 'totals exact');
  const ids = windows.map((w) => `${w.partition}@${w.windowStart}`);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  assert.deepEqual(twice, [], `windows emitted in more than one part (of ${ids.length})`);
  assert.deepEqual([...a.errors, ...b.errors], []);
});
