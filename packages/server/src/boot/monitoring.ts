/**
 * The monitoring and background steps of start-up: the in-memory metrics with the two services that write
 * them (heartbeat, stats flush), and the once-per-cluster removal jobs (retention, eviction). Each service
 * is handed the store (its own narrow view of it) and registers its stop as soon as it runs.
 */
import type { Config } from '../config.js';
import type { WakeBus } from '../core/wake-bus.js';
import type { Logger } from '../logger.js';
import type { Tracing } from '../tracing.js';
import { Metrics, type MetricsDeps } from '../metrics/index.js';
import { HeartbeatService } from '../services/heartbeat.js';
import { EvictionService, RetentionService } from '../services/retention.js';
import { StatsService } from '../services/stats.js';
import type { Database } from './database.js';
import type { Defer } from './sequence.js';

/** What monitoring is made of. */
export interface MonitoringOptions extends Pick<MetricsDeps, 'bufferedMessages' | 'bufferState' | 'bufferBytes' | 'maintenance'> {
  config: Config;
  log: Logger;
  database: Database;
  bus: WakeBus;
  /** Span export over OTLP, started before anything is served (startTracing). */
  tracing: Tracing | null;
}

/** The started monitoring. */
export interface Monitoring {
  metrics: Metrics;
  /** This process's heartbeat and the cluster's health. */
  heartbeat: HeartbeatService;
  /** Counter flush and metrics cleanup; `runNow()` is `POST /api/v1/stats/refresh`. */
  stats: StatsService;
  /** Span export over OTLP (docs/monitoring.md "Tracing"), null when not configured. */
  tracing: Tracing | null;
}

/** Makes the metrics (in memory: served before the database answers) and the services that write them. */
export function buildMonitoring(options: MonitoringOptions): Monitoring {
  const { config, log, database: { pool, store }, bus } = options;
  const metrics = new Metrics({
    config, store, bus, log,
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    bufferedMessages: options.bufferedMessages,
    bufferState: options.bufferState,
    bufferBytes: options.bufferBytes,
    maintenance: options.maintenance,
  });
  const scoped = log.child({ component: 'metrics' });
  const heartbeat = new HeartbeatService({ intervalMs: config.stats.heartbeatIntervalMs }, scoped, {
    store, identity: metrics.identity, bus, onDatabaseError: (error) => metrics.recorder.failure(error),
  });
  const stats = new StatsService(config.stats, scoped, { store, identity: metrics.identity, recorder: metrics.recorder, sampler: metrics.sampler });
  return { metrics, heartbeat, stats, tracing: options.tracing };
}

/**
 * Starts sampling, the heartbeat (written once before this resolves: /health knows the cluster from here
 * on) and the stats flush. Their stop runs after the last request: the final flush holds every counter.
 */
export async function startMonitoring({ metrics, heartbeat, stats }: Pick<Monitoring, 'metrics' | 'heartbeat' | 'stats'>, port: number, defer: Defer): Promise<void> {
  metrics.start(port);
  await heartbeat.start();
  defer('heartbeat', () => heartbeat.stop()); // marks the row stopped, after the final flush below
  await stats.start();
  defer('stats', () => stats.stop()); // flushes what is left, stops the sampler
}

/** Starts retention and eviction; a cycle in progress at shutdown ends its current chunk's work. */
export async function startRemovalJobs(options: { config: Config; log: Logger; database: Database; metrics: Metrics }, defer: Defer): Promise<void> {
  const { config, log, database: { store }, metrics } = options;
  const deps = { store, onDatabaseError: (error: unknown) => metrics.recorder.failure(error) };
  for (const job of [
    new RetentionService(config.retention, log.child({ component: 'retention' }), deps),
    new EvictionService(config.retention, log.child({ component: 'eviction' }), deps),
  ]) {
    await job.start();
    defer(job.constructor.name, () => job.stop());
  }
}

/** Failed span exports are logged at most once a minute (a collector that is down fails every export). */
const EXPORT_ERROR_LOG_MS = 60_000;

/**
 * The OpenTelemetry SDK, imported only when tracing is configured: without OTEL_* variables the broker loads
 * none of it. A failed export costs the spans of that batch, never a request: it is a warning, at most once a
 * minute, with the count of failures since the last one. Its stop is registered before any route is served, so
 * it runs after the last request: the spans of every request are exported.
 */
export async function startTracing(config: Config, version: string, log: Logger, defer: Defer): Promise<Tracing | null> {
  if (config.tracing === null) return null;
  const { startTracing: startExport } = await import('../metrics/otel-tracing.js');
  log.info({ protocol: config.tracing.protocol, sampler: config.tracing.sampler.kind }, 'tracing: exporting spans over OTLP');
  let lastLogged = 0;
  let failures = 0;
  const tracing = startExport(config.tracing, { version, serverId: config.serverId }, (error) => {
    failures += 1;
    if (Date.now() - lastLogged < EXPORT_ERROR_LOG_MS) return;
    lastLogged = Date.now();
    log.warn({ err: error, failures }, 'tracing: span export failed (spans of the failed batches are dropped)');
    failures = 0;
  });
  defer('tracing', () => tracing.shutdown());
  return tracing;
}
