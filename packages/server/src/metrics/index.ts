/**
 * Monitoring, wired together: the recorder the request paths call, the Prometheus families, the system
 * sampler, and the two background services (heartbeat, stats). The broker creates one `Metrics`, starts it
 * before it listens (so the first `/health` already knows the cluster) and stops it after the last request
 * (so the final flush holds every counter).
 */
import os from 'node:os';
import type pg from 'pg';
import type { Config } from '../config.js';
import type { WakeBus } from '../core/wake-bus.js';
import type { Logger } from '../logger.js';
import { HeartbeatService } from '../services/heartbeat.js';
import { StatsService } from '../services/stats.js';
import type { ProcessIdentity } from '../store/heartbeats.js';
import { metricsGauges, type DatabaseGauges } from '../store/status.js';
import { PrometheusFamilies } from './prometheus.js';
import { Recorder } from './recorder.js';
import { SystemSampler } from './system.js';

/** The longest a snapshot of the database-derived gauges is reused across scrapes (STATS_INTERVAL_MS if shorter). */
const GAUGE_TTL_MS = 5000;

/** The body of `GET /metrics` (API.md 7.11). */
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
  db: pg.Pool;
  bus: WakeBus;
  log: Logger;
  /** Messages in this process's failover buffer, not yet replayed (failed set included). */
  bufferedMessages: () => number;
  /** What the failover buffer is doing (`idle`, `buffering`, `replaying`, `failed`). */
  bufferState: () => string;
  /** The maintenance flags (API.md 9.4). */
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
  /** This process's heartbeat and the cluster's health. */
  readonly heartbeat: HeartbeatService;
  /** Counter flush and metrics cleanup; `runNow()` is `POST /api/v1/stats/refresh`. */
  readonly stats: StatsService;
  private readonly sampler: SystemSampler;
  private gauges: { at: number; value: Promise<DatabaseGauges | null> } | null = null;
  private readonly gaugeTtlMs: number;

  constructor(private readonly deps: MetricsDeps) {
    const { config, db, bus, log } = deps;
    this.gaugeTtlMs = Math.min(GAUGE_TTL_MS, config.stats.intervalMs);
    this.identity = { serverId: config.serverId, hostname: os.hostname(), pid: process.pid, port: config.port };
    const pool = (): { total: number; idle: number; waiting: number } => ({ total: db.totalCount, idle: db.idleCount, waiting: db.waitingCount });
    this.prometheus = new PrometheusFamilies({
      database: () => this.databaseGauges(),
      parkedByQueue: () => bus.parkedByQueue(),
      pool,
      bufferedMessages: deps.bufferedMessages,
      bufferState: deps.bufferState,
      maintenance: deps.maintenance,
    }, config.bounds.metricsMaxQueues);
    this.recorder = new Recorder(this.prometheus);
    this.sampler = new SystemSampler({ pool, parkedPops: () => bus.parked, inflightRequests: () => this.recorder.inflightRequests });
    const scoped = log.child({ component: 'metrics' });
    this.heartbeat = new HeartbeatService({ intervalMs: config.stats.heartbeatIntervalMs }, scoped, {
      db, identity: this.identity, bus, onDatabaseError: (error) => this.recorder.failure(error),
    });
    this.stats = new StatsService(config.stats, scoped, { db, identity: this.identity, recorder: this.recorder, sampler: this.sampler });
  }

  /** Starts sampling and both services once listening on `port` (the first heartbeat is written before this resolves). */
  async start(port: number): Promise<void> {
    this.identity.port = port;
    this.sampler.start();
    await this.heartbeat.start();
    await this.stats.start();
  }

  /** Stops both services: the stats service flushes what is left, the heartbeat row is marked stopped. */
  async stop(): Promise<void> {
    await this.stats.stop();
    await this.heartbeat.stop();
  }

  /** The body of `GET /metrics`. */
  summary(): MetricsSummary {
    const { db } = this.deps;
    return {
      uptime: Math.floor(process.uptime()),
      requests: { total: this.recorder.requests.total, rate: round3(this.recorder.requests.rate()) },
      messages: { total: this.recorder.messages.total, rate: round3(this.recorder.messages.rate()) },
      database: { poolSize: db.totalCount, idleConnections: db.idleCount, waitingRequests: db.waitingCount },
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
        value: metricsGauges(this.deps.db).catch((error: unknown) => {
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
