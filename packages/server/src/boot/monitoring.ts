/**
 * The monitoring and background steps of start-up: the in-memory metrics with the two services that write
 * them (heartbeat, stats flush), and the once-per-cluster removal jobs (retention, eviction). Each service
 * is handed the store (its own narrow view of it) and registers its stop as soon as it runs.
 */
import type { Config } from '../config.js';
import type { WakeBus } from '../core/wake-bus.js';
import type { Logger } from '../logger.js';
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
}

/** The started monitoring. */
export interface Monitoring {
  metrics: Metrics;
  /** This process's heartbeat and the cluster's health. */
  heartbeat: HeartbeatService;
  /** Counter flush and metrics cleanup; `runNow()` is `POST /api/v1/stats/refresh`. */
  stats: StatsService;
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
  return { metrics, heartbeat, stats };
}

/**
 * Starts sampling, the heartbeat (written once before this resolves: /health knows the cluster from here
 * on) and the stats flush. Their stop runs after the last request: the final flush holds every counter.
 */
export async function startMonitoring({ metrics, heartbeat, stats }: Monitoring, port: number, defer: Defer): Promise<void> {
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
