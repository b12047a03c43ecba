/**
 * The stats service (docs/api.md 7.8, 7.10, 9.2 rule 3, 9.3 "metrics cleanup"). Every STATS_INTERVAL_MS:
 *
 * 1. system (this process): drain the per-minute counters and take a system sample, and write both with
 *    one statement. A failed write puts the counters back for the next cycle.
 * 2. cleanup (once per cluster): under the stats advisory lock, delete counters, samples, process rows and
 *    retention history older than METRICS_RETENTION_DAYS in batches, with a statement timeout (this is the
 *    metrics cleanup of docs/api.md 9.3; the retention job does not repeat it). A process that does not get
 *    the lock skips this step, and the cycle reports `{skipped: true, reason: "another_instance_running"}`.
 *    The lock holder also samples the installation's pending messages once a minute (queen.pending_history:
 *    the Net flow of the dashboard is its change over a range).
 *
 * Message counts are computed on demand from the queue tables (no snapshot), so the partition, queue,
 * namespace and task steps of a refresh have nothing to recompute and report `{ok: true, durationMs: 0}`.
 * `POST …/stats/refresh` runs a cycle at once; a clean shutdown flushes what is left.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger.js';
import type { Recorder } from '../metrics/recorder.js';
import type { SystemSample, SystemSampler } from '../metrics/system.js';
import type { ProcessIdentity } from '../store/heartbeats.js';
import type { Store } from '../store/index.js';
import { PeriodicService } from './background.js';
import { isConnectivityError, isDataException } from '../store/database.js';
import { partitionCounts, sumCounts } from '../core/queue-stats.js';

/** The advisory lock of the cluster-wide stats step ("QueeST"). */
export const STATS_LOCK_KEY = 0x51_75_65_65_53_54;
/** Statement timeout of the cleanup step. */
const CLEANUP_STATEMENT_TIMEOUT_MS = 30_000;
/** Rows deleted per cleanup statement. */
const CLEANUP_BATCH_SIZE = 5000;
const DAY_MS = 24 * 3600 * 1000;

/** The outcome of one step of a refresh. */
export interface RefreshStep {
  ok: boolean;
  durationMs: number;
}

/** The body of `POST …/stats/refresh` (docs/api.md 7.8). */
export type RefreshResult =
  | { partition: RefreshStep; queue: RefreshStep; namespace: RefreshStep; task: RefreshStep; system: RefreshStep; cleanup: RefreshStep }
  | { skipped: true; reason: 'another_instance_running' };

/** Settings of the stats service. */
export interface StatsSettings {
  intervalMs: number;
  metricsRetentionDays: number;
}

const NOTHING_TO_RECOMPUTE: RefreshStep = { ok: true, durationMs: 0 };

/** Flushes this process's counters and samples, and purges old metrics once per cluster. */
export class StatsService extends PeriodicService<RefreshResult> {
  private dropped = 0;

  constructor(
    private readonly settings: StatsSettings,
    log: Logger,
    private readonly deps: { store: Pick<Store, 'statsFlush' | 'clusterLock'>; identity: ProcessIdentity; recorder: Recorder; sampler: SystemSampler },
  ) {
    super({ name: 'stats', intervalMs: settings.intervalMs, runAtStart: false }, log);
  }

  protected async cycle(): Promise<RefreshResult> {
    const system = await this.step('system', () => this.flush());
    let acquired = true;
    const cleanup = await this.step('cleanup', async () => {
      const before = new Date(Date.now() - this.settings.metricsRetentionDays * DAY_MS);
      const outcome = await this.deps.store.clusterLock({ key: STATS_LOCK_KEY, statementTimeoutMs: CLEANUP_STATEMENT_TIMEOUT_MS },
        async (session) => {
          const deleted = await session.statsPurge({ before, batchSize: CLEANUP_BATCH_SIZE });
          await samplePending(session);
          return deleted;
        });
      acquired = outcome.acquired;
      if (outcome.acquired && outcome.value > 0) this.log.debug({ deleted: outcome.value }, 'old metrics purged');
    });
    if (!acquired) return { skipped: true, reason: 'another_instance_running' };
    return { partition: NOTHING_TO_RECOMPUTE, queue: NOTHING_TO_RECOMPUTE, namespace: NOTHING_TO_RECOMPUTE, task: NOTHING_TO_RECOMPUTE, system, cleanup };
  }

  /** Final flush: nothing counted before the shutdown is lost. */
  protected override async onStop(): Promise<void> {
    // At shutdown the database may already be going away (a terminal's Ctrl-C reaches it too): that is no news.
    await this.flush().catch((error: unknown) => this.log[isConnectivityError(error) ? 'debug' : 'warn']({ err: error }, 'final stats flush failed'));
    this.deps.sampler.stop();
  }

  /** Counter rows the database refused and that were dropped (see flush); also counted as dbErrors. */
  get droppedRows(): number {
    return this.dropped;
  }

  /**
   * Writes the counters accumulated since the last flush and a system sample, in one statement. When the
   * database refuses the data itself (SQLSTATE class 22: a value it cannot store), one bad row must not
   * hold back every other counter: the rows are written one statement each and the refused ones dropped,
   * counted and logged (the first time only). Any other failure puts the rows back for the next cycle.
   */
  private async flush(): Promise<void> {
    const { store, identity, recorder, sampler } = this.deps;
    const rows = recorder.ops.drain();
    const target = { serverId: identity.serverId, hostname: identity.hostname, port: identity.port };
    let sample: SystemSample | null = sampler.sample();
    try {
      await store.statsFlush({ ...target, rows, sample });
      return;
    } catch (error) {
      if (!isDataException(error)) {
        recorder.ops.restore(rows);
        throw error;
      }
    }
    for (const [i, row] of rows.entries()) {
      try {
        await store.statsFlush({ ...target, rows: [row], sample });
        sample = null;
      } catch (error) {
        if (!isDataException(error)) {
          recorder.ops.restore(rows.slice(i));
          throw error;
        }
        this.dropped += 1;
        recorder.failure(error);
        if (this.dropped === 1) this.log.warn({ err: error, queue: JSON.stringify(row.queue), bucket: row.bucket }, 'stats counter row refused by the database: dropped (later ones are only counted)');
      }
    }
  }

  /** Runs one step, timing it; a failure is logged, counted and reported as `ok: false`. */
  private async step(name: string, work: () => Promise<void>): Promise<RefreshStep> {
    const started = performance.now();
    try {
      await work();
      return { ok: true, durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      this.deps.recorder.failure(error);
      this.log.warn({ err: error, step: name }, 'stats step failed');
      return { ok: false, durationMs: Math.round(performance.now() - started) };
    }
  }
}

/** Records the installation's pending and total messages unless this minute already has a sample. */
async function samplePending(session: Store): Promise<void> {
  if (await session.pendingSampled()) return;
  const queues = await session.queueList({ namespace: null, task: null, limit: null, offset: 0 });
  const facts = await session.partitionFactsList({ queueIds: queues.map((q) => q.id), partitionIds: [] });
  const counts = sumCounts(facts.map(partitionCounts));
  await session.pendingRecord({ pending: counts.pending, total: counts.total });
}
