/**
 * Monitoring in memory, wired together: the recorder the request paths call, the Prometheus families and
 * the system sampler. The background services that write them to the database (heartbeat, stats flush:
 * services/) are built beside it at start-up (boot/monitoring.ts).
 */
import os from 'node:os';
import type { Config } from '../config.js';
import type { WakeBus } from '../core/wake-bus.js';
import type { Logger } from '../logger.js';
import type { ProcessIdentity } from '../store/heartbeats.js';
import type { Store } from '../store/index.js';
import type { DatabaseGauges } from '../store/status.js';
import { PrometheusFamilies } from './prometheus.js';
import { Recorder } from './recorder.js';
import { SystemSampler } from './system.js';

/** The longest a snapshot of the database-derived gauges is reused across scrapes (STATS_INTERVAL_MS if shorter). */
const GAUGE_TTL_MS = 5000;

/** The body of `GET /metrics` (docs/api.md 7.11). */
export interface MetricsSummary {
  uptime: number;
  requests: { total: number; rate: number };
  messages: { total: number; rate: number };
  database: { poolSize: number; idleConnections: number; waitingRequests: number };
  memory: NodeJS.MemoryUsage;
  cpu: NodeJS.CpuUsage;
}

/** What monitoring needs from the broker. */
export interface MetricsDeps {
  config: Config;
  /** `metricsGauges` reads the database-derived gauges. */
  store: Pick<Store, 'metricsGauges'>;
  /** The pool's connections now: total, idle, and requests waiting for one. */
  pool: () => { total: number; idle: number; waiting: number };
  bus: WakeBus;
  log: Logger;
  /** Messages in this process's failover buffer, not yet replayed (failed set included). */
  bufferedMessages: () => number;
  /** What the failover buffer is doing (`idle`, `buffering`, `replaying`, `failed`). */
  bufferState: () => string;
  /** Bytes the buffer's files take, and their limit. */
  bufferBytes: () => { bytes: number; maxBytes: number };
  /** The maintenance flags (docs/api.md 9.4). */
  maintenance: () => { push: boolean; pop: boolean };
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/** Monitoring of one broker process. */
export class Metrics {
  /** What this process's rows and samples are stored under (its port is the one it listens on). */
  readonly identity: ProcessIdentity;
  /** Prometheus families of `GET /metrics/prometheus`. */
  readonly prometheus: PrometheusFamilies;
  /** Hooks for the request paths. */
  readonly recorder: Recorder;
  /** Samples of this process (CPU, memory, pool, event loop), drained by the stats service. */
  readonly sampler: SystemSampler;
  private gauges: { at: number; value: Promise<DatabaseGauges | null> } | null = null;
  private readonly gaugeTtlMs: number;

  constructor(private readonly deps: MetricsDeps) {
    const { config, pool, bus } = deps;
    this.gaugeTtlMs = Math.min(GAUGE_TTL_MS, config.stats.intervalMs);
    this.identity = { serverId: config.serverId, hostname: os.hostname(), pid: process.pid, port: config.port };
    this.prometheus = new PrometheusFamilies({
      database: () => this.databaseGauges(),
      parkedByQueue: () => bus.parkedByQueue(),
      pool,
      bufferedMessages: deps.bufferedMessages,
      bufferState: deps.bufferState,
      bufferBytes: deps.bufferBytes,
      maintenance: deps.maintenance,
    }, config.bounds.metricsMaxQueues);
    this.recorder = new Recorder(this.prometheus);
    this.sampler = new SystemSampler({ pool, parkedPops: () => bus.parked, inflightRequests: () => this.recorder.inflightRequests });
  }

  /** Starts sampling once listening on `port` (the stats service stops the sampler after its final flush). */
  start(port: number): void {
    this.identity.port = port;
    this.sampler.start();
  }

  /** The body of `GET /metrics`. */
  summary(): MetricsSummary {
    const pool = this.deps.pool();
    return {
      uptime: Math.floor(process.uptime()),
      requests: { total: this.recorder.requests.total, rate: round3(this.recorder.requests.rate()) },
      messages: { total: this.recorder.messages.total, rate: round3(this.recorder.messages.rate()) },
      database: { poolSize: pool.total, idleConnections: pool.idle, waitingRequests: pool.waiting },
      memory: process.memoryUsage(),
      cpu: process.cpuUsage(),
    };
  }

  /** The database-derived gauges, reused for a few seconds; null (logged, counted) when the read failed. */
  private databaseGauges(): Promise<DatabaseGauges | null> {
    const now = Date.now();
    if (this.gauges === null || now - this.gauges.at >= this.gaugeTtlMs) {
      const entry = {
        at: now,
        value: this.deps.store.metricsGauges().catch((error: unknown) => {
          this.recorder.failure(error);
          this.deps.log.warn({ err: error }, 'could not read the database gauges');
          if (this.gauges === entry) this.gauges = null; // retry on the next scrape
          return null;
        }),
      };
      this.gauges = entry;
    }
    return this.gauges.value;
  }
}
