/**
 * The shape of background services (src/services/background.ts): cycles never overlap, runNow() gets a cycle
 * that starts after the call, a failing tick does not stop the ticker, stop() waits for the cycle in progress
 * and then runs onStop() once; and the status-body helpers whose rules are not visible over HTTP alone.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { consumedSince, ratio } from '../../src/core/status.js';
import { PeriodicService } from '../../src/services/background.js';
import type { PartitionFacts } from '../../src/store/queues.js';

const log = pino({ level: 'silent' });

/** A service whose cycles are controlled by the test: each cycle waits for `release()`. */
class Probe extends PeriodicService<number> {
  cycles = 0;
  active = 0;
  maxRunning = 0;
  stops = 0;
  failNext = false;
  private gate: (() => void) | null = null;
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(intervalMs: number, private readonly gated: boolean) {
    super({ name: 'probe', intervalMs, runAtStart: false }, log);
  }

  release(): void {
    this.gate?.();
  }

  /** Resolves once `count` cycles have completed. */
  completed(count: number): Promise<void> {
    return new Promise((resolve) => (this.cycles >= count ? resolve() : this.waiters.push({ count, resolve })));
  }

  protected async cycle(): Promise<number> {
    this.active += 1;
    this.maxRunning = Math.max(this.maxRunning, this.active);
    if (this.gated) await new Promise<void>((resolve) => (this.gate = resolve));
    this.active -= 1;
    this.cycles += 1;
    for (const w of this.waiters.filter((w) => this.cycles >= w.count)) w.resolve();
    if (this.failNext) {
      this.failNext = false;
      throw new Error('cycle failed');
    }
    return this.cycles;
  }

  protected override async onStop(): Promise<void> {
    this.stops += 1;
  }
}

describe('PeriodicService', () => {
  test('runNow() calls queue behind the cycle in progress: never two at once, each gets its own cycle', async () => {
    const probe = new Probe(60_000, true);
    const first = probe.runNow();
    const second = probe.runNow();
    await new Promise((r) => setImmediate(r));
    assert.equal(probe.active, 1);
    probe.release();
    assert.equal(await first, 1);
    await new Promise((r) => setImmediate(r));
    probe.release();
    assert.equal(await second, 2);
    assert.equal(probe.maxRunning, 1);
  });

  test('the ticker carries on after a failing cycle; runNow() hands a failure to its caller', async () => {
    const probe = new Probe(5, false);
    probe.failNext = true;
    await assert.rejects(probe.runNow(), /cycle failed/);
    probe.failNext = true;
    const keepAlive = setInterval(() => undefined, 1000); // the service's own timers are unref'd
    try {
      await probe.start();
      await probe.completed(4);
      await probe.stop();
    } finally {
      clearInterval(keepAlive);
    }
    assert.ok(probe.cycles >= 4);
  });

  test('stop() waits for the cycle in progress, then runs onStop() once; no tick after it', async () => {
    const probe = new Probe(60_000, true);
    await probe.start();
    const inProgress = probe.runNow();
    let stopped = false;
    const stopping = probe.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(stopped, false, 'still waiting for the cycle');
    probe.release();
    await inProgress;
    await stopping;
    await probe.stop();
    assert.deepEqual([probe.cycles, probe.stops], [1, 1]);
  });
});

describe('status helpers', () => {
  const facts = (tail: number, cursors: PartitionFacts['cursors']): PartitionFacts => ({
    id: 'p', name: 'Default', createdAt: '', tail: String(tail), firstRetained: '1', total: String(tail),
    oldestMessage: null, newestMessage: null, deadLetters: '0', cursors,
  });
  const cursor = (group: string, committed: number) => ({ group, committed, spanEnd: null, live: false, retryCount: 0, contacted: true });

  test('consumedSince: messages from the first recent offset up to the reference cursor', () => {
    assert.equal(consumedSince(facts(10, [cursor('__QUEUE_MODE__', 7)]), 5), 3); // 5, 6, 7
    assert.equal(consumedSince(facts(10, [cursor('__QUEUE_MODE__', 3)]), 5), 0);
    assert.equal(consumedSince(facts(10, [cursor('a', 9), cursor('b', 6)]), 1), 6); // the lowest named group
    assert.equal(consumedSince(facts(10, []), 1), 0);
    assert.equal(consumedSince(facts(10, [cursor('__QUEUE_MODE__', 10)]), null), 0);
  });

  test('ratio: two decimals, 0 when nothing happened', () => {
    assert.deepEqual([ratio(5, 3), ratio(6, 2), ratio(1, 0)], [1.67, 3, 0]);
  });
});
