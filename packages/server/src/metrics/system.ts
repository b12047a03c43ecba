/**
 * System samples of one broker process (docs/api.md 7.10 `analytics/system-metrics`): CPU since the previous
 * sample, memory, pool, event-loop lag, parked pops and in-flight requests.
 *
 * Event-loop lag is measured as timer drift: a 100 ms interval timer records how late each tick fires, and a
 * sample reports the worst delay since the previous sample (a stall is what an operator looks for; an
 * average would hide it). The timer is unref'd and costs ten callbacks a second.
 */
import { performance } from 'node:perf_hooks';
import type { SystemSample } from '../store/stats.js';

export type { SystemSample } from '../store/stats.js';

/** What a sample reads besides the process itself. */
export interface SampleSources {
  pool(): { total: number; idle: number; waiting: number };
  parkedPops(): number;
  inflightRequests(): number;
}

const LAG_RESOLUTION_MS = 100;

const round2 = (value: number): number => Math.round(value * 100) / 100;

/** Takes system samples; `start()` before the first one, `stop()` at shutdown. */
export class SystemSampler {
  private lastCpu = process.cpuUsage();
  private lastAt = performance.now();
  private worstLagMs = 0;
  private lagTimer: NodeJS.Timeout | null = null;

  constructor(private readonly sources: SampleSources) {}

  /** Starts the event-loop lag timer and the CPU baseline. */
  start(): void {
    this.lastCpu = process.cpuUsage();
    this.lastAt = performance.now();
    let expected = performance.now() + LAG_RESOLUTION_MS;
    this.lagTimer = setInterval(() => {
      const now = performance.now();
      this.worstLagMs = Math.max(this.worstLagMs, now - expected);
      expected = now + LAG_RESOLUTION_MS;
    }, LAG_RESOLUTION_MS);
    this.lagTimer.unref();
  }

  /** Stops the lag timer. */
  stop(): void {
    if (this.lagTimer !== null) clearInterval(this.lagTimer);
    this.lagTimer = null;
  }

  /** A sample covering the time since the previous one. */
  sample(): SystemSample {
    const now = performance.now();
    const cpu = process.cpuUsage(this.lastCpu);
    const elapsedMicros = Math.max(1, (now - this.lastAt) * 1000);
    this.lastCpu = process.cpuUsage();
    this.lastAt = now;
    const lag = this.worstLagMs;
    this.worstLagMs = 0;
    const memory = process.memoryUsage();
    const pool = this.sources.pool();
    return {
      cpuUserPercent: round2((cpu.user / elapsedMicros) * 100),
      cpuSystemPercent: round2((cpu.system / elapsedMicros) * 100),
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      poolSize: pool.total,
      poolIdle: pool.idle,
      poolActive: pool.total - pool.idle,
      poolWaiting: pool.waiting,
      eventLoopLagMs: round2(Math.max(0, lag)),
      parkedPops: this.sources.parkedPops(),
      inflightRequests: this.sources.inflightRequests(),
    };
  }
}
