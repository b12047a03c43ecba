/**
 * streams: source messages per second through the streams routes, driven by the official Queen JS `Stream`
 * (../shared/compat), in two modes over 100 partitions:
 *   map-sink  `.map(...).to(sink)`: every source message becomes one sink message;
 *   window    `.windowTumbling({seconds: 1}).aggregate({count, sum}).to(sink)`: one sink message per window.
 *
 * Design: pre-fill N = max(20 000, 5 000 x --duration) messages (the pre-fill is timed separately), then start
 * RUNNERS runners of one query (they share the stream group; leases spread the partitions) and measure from
 * their start until their committed cycles cover every message (the runners' `messagesTotal`). Cycle latency
 * is timed around each POST /streams/v1/cycle the runners send (this process's fetch). Checks: the sink holds
 * exactly N messages (map-sink) or windows whose counts and sums total exactly the input (window), and no
 * runner reported an error.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { routes } from '@queen/client/api';
import { loadOfficialClient, type OfficialHandle, type OfficialStream } from '../official/client.js';
import { Samples, perSecond, round } from '../stats.js';
import { describeError, freshQueueName, now, partitionNames, sleep, withQueue, type ScenarioContext, type ScenarioResult } from './common.js';
import { fmt } from './push.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const RUNNERS = 4;
const BATCH = 200;
const MAX_PARTITIONS = 4;
const PUSH_BATCH = 500;
const PUSHERS = 8;
const STALL_MS = 30_000;

type Mode = 'map-sink' | 'window';

/** Times every POST /streams/v1/cycle sent through this process's fetch while installed. */
class CycleTimer {
  readonly latency = new Samples();
  private readonly original = globalThis.fetch;

  install(): void {
    const original = this.original;
    const latency = this.latency;
    globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.endsWith(routes.cycle.path)) return original(input, init);
      const started = now();
      const res = await original(input, init);
      const body = await res.text();
      latency.add(now() - started);
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    };
  }

  uninstall(): void {
    globalThis.fetch = this.original;
  }
}

/** Pushes `total` messages {v} round-robin over the partitions; returns the sum of v. */
async function prefill(ctx: ScenarioContext, queue: string, total: number): Promise<number> {
  const partitions = partitionNames();
  let next = 0;
  let sum = 0;
  await Promise.all(Array.from({ length: PUSHERS }, async () => {
    while (next < total) {
      const start = next;
      const count = Math.min(PUSH_BATCH, total - start);
      next += count;
      const items = Array.from({ length: count }, (_, k) => {
        const i = start + k;
        return { queue, partition: partitions[i % partitions.length]!, payload: { v: i % 10 } };
      });
      for (const item of items) sum += item.payload.v;
      const res = await ctx.client.push(items);
      if (res.statusCode !== 201 || res.results.some((r) => r.status !== 'queued')) throw new Error(`pre-fill push: HTTP ${res.statusCode}`);
    }
  }));
  return sum;
}

/** The counts and sums of window emits, totalled. */
function windowTotals(out: unknown[]): { count: number; sum: number } {
  let count = 0;
  let sum = 0;
  for (const o of out) {
    const w = o as { count?: number; sum?: number };
    count += w.count ?? 0;
    sum += w.sum ?? 0;
  }
  return { count, sum };
}

/** Reads the sink to the end with autoAck pops; returns the payloads. */
async function readSink(ctx: ScenarioContext, sink: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (;;) {
    const res = await ctx.client.pop(sink, { batch: 1000, wait: false, timeoutMs: 1000, autoAck: true, partitions: 0 });
    if (res.statusCode === 204) return out;
    if (res.statusCode !== 200) throw new Error(`sink pop: HTTP ${res.statusCode}`);
    out.push(...res.messages.map((m) => m.data));
  }
}

async function runMode(ctx: ScenarioContext, mode: Mode, total: number): Promise<ScenarioResult> {
  const { Queen, Stream } = await loadOfficialClient(REPO_ROOT);
  const source = freshQueueName(`streams-${mode}`);
  const sink = `${source}-out`;
  return withQueue(ctx, source, { leaseTime: 30 }, () => withQueue(ctx, sink, {}, async () => {
    const prefillStart = now();
    const inputSum = await prefill(ctx, source, total);
    const prefillMs = now() - prefillStart;
    ctx.log(`streams ${mode}: pre-filled ${fmt(total)} messages in ${(prefillMs / 1000).toFixed(1)} s`);

    const queen = new Queen({ url: ctx.client.baseUrl });
    const chain = (): OfficialStream => {
      const from = Stream.from(queen.queue(source));
      const shaped = mode === 'map-sink'
        ? from.map((m: { data: { v: number }; partition: string }) => ({ v: m.data.v, partition: m.partition }))
        : from.windowTumbling({ seconds: 1 }).aggregate({ count: () => 1, sum: (v: { v: number }) => v.v });
      return shaped.to(queen.queue(sink));
    };
    const timer = new CycleTimer();
    timer.install();
    const handles: OfficialHandle[] = [];
    const silent = { info() {}, warn() {}, error() {} };
    const queryId = `bench-${source}`;
    let elapsedMs = 0;
    let out: unknown[] = [];
    try {
      const start = now();
      for (let i = 0; i < RUNNERS; i++) {
        handles.push(await chain().run({ queryId, url: ctx.client.baseUrl, batchSize: BATCH, maxPartitions: MAX_PARTITIONS, maxWaitMillis: 500, logger: silent }));
      }
      const committed = (): number => handles.reduce((n, h) => n + h.metrics().messagesTotal, 0);
      let last = 0;
      let lastProgress = now();
      while (committed() < total && now() - lastProgress < STALL_MS) {
        await sleep(20);
        const c = committed();
        if (c > last) [last, lastProgress] = [c, now()];
      }
      elapsedMs = now() - start;
      if (mode === 'window') {
        // The idle flush (every 5 s) closes the trailing windows.
        const deadline = now() + 15_000;
        while (windowTotals(out = [...out, ...(await readSink(ctx, sink))]).count < total && now() < deadline) await sleep(200);
      }
    } finally {
      for (const h of handles) await h.stop().catch(() => undefined);
      timer.uninstall();
      await queen.close().catch(() => undefined);
    }

    const metrics = handles.map((h) => h.metrics());
    const messages = metrics.reduce((n, m) => n + m.messagesTotal, 0);
    const cycles = metrics.reduce((n, m) => n + m.cyclesTotal, 0);
    const errors = metrics.reduce((n, m) => n + m.errorsTotal, 0);
    const lastError = metrics.find((m) => m.lastError !== null)?.lastError ?? null;
    out = [...out, ...(await readSink(ctx, sink))];
    const windows = windowTotals(out);
    const exact = mode === 'map-sink' ? out.length === total : windows.count === total && windows.sum === inputSum;
    const p = timer.latency;
    const figures = {
      msgsPerSec: perSecond(Math.min(messages, total), elapsedMs),
      cyclesPerSec: perSecond(cycles, elapsedMs),
      cycleP50Ms: round(p.percentile(50)),
      cycleP99Ms: round(p.percentile(99)),
      avgMessagesPerCycle: cycles > 0 ? round(messages / cycles, 1) : 0,
      messages: total,
      sinkMessages: out.length,
      ...(mode === 'window' ? { windowCountTotal: windows.count } : {}),
      runners: RUNNERS,
      errors,
      prefillMsgsPerSec: perSecond(total, prefillMs),
    };
    const summary = `streams ${mode}: ${fmt(figures.msgsPerSec)} msgs/s, ${fmt(figures.cyclesPerSec)} cycles/s ` +
      `(${figures.avgMessagesPerCycle} msgs/cycle, ${RUNNERS} runners), cycle p50 ${figures.cycleP50Ms} ms p99 ${figures.cycleP99Ms} ms; ` +
      `sink ${fmt(out.length)} messages${mode === 'window' ? ` (window counts total ${fmt(windows.count)} of ${fmt(total)})` : ''}, exact: ${exact ? 'yes' : 'NO'}, errors ${errors}${lastError !== null ? ` (last: ${lastError})` : ''}`;
    return { scenario: 'streams', mode, queue: source, figures, checks: { exact, noErrors: errors === 0 }, summary };
  }));
}

/** The streams scenario: both modes, one result each. */
export async function streamsScenario(ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const total = Math.max(20_000, 5_000 * ctx.durationS);
  const results: ScenarioResult[] = [];
  for (const mode of ['map-sink', 'window'] as const) {
    try {
      results.push(await runMode(ctx, mode, total));
    } catch (error) {
      results.push({ scenario: 'streams', mode, queue: '', figures: {}, skipped: describeError(error), summary: `streams ${mode}: failed: ${describeError(error)}` });
    }
  }
  return results;
}
