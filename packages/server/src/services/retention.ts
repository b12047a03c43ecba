/**
 * The retention and eviction services (docs/api.md 9.3), background services of the shared shape
 * (services/background.ts) that run once per interval per cluster (docs/api.md 9.2 rule 3):
 *
 * - retention, every RETENTION_INTERVAL: for queues with retentionEnabled, removes segments older than
 *   retentionSeconds and consumed segments older than completedRetentionSeconds, in chunks of about
 *   RETENTION_BATCH_SIZE messages (one short transaction each); then deletes partitions idle for
 *   PARTITION_CLEANUP_DAYS. The metrics cleanup of the same table row is the stats service's cleanup step
 *   (services/stats.ts), which also purges the retention history: it is not repeated here.
 * - eviction, every EVICTION_INTERVAL: for queues with maxWaitTimeSeconds, removes old segments some group
 *   has not consumed, at most EVICTION_BATCH_SIZE messages per cycle.
 *
 * A cycle takes its job's non-blocking advisory lock (store/cluster-lock.ts): a process that does not get it
 * skips the cycle. Under the lock, `queen.job_start` skips a cycle when another process started one less
 * than an interval ago, so N processes run the job once per interval, not N times. The rules themselves, the
 * locks and the history rows live in the SQL functions of sql/functions/ (retention_apply.sql, partitions_cleanup.sql).
 */
import { uuidv7 } from '../ids.js';
import type { Logger } from '../logger.js';
import { isConnectivityError } from '../store/database.js';
import type { Store } from '../store/index.js';
import type { RemovalJob } from '../store/retention.js';
import { PeriodicService } from './background.js';

/** The advisory lock of the retention job ("QueeRT"). */
export const RETENTION_LOCK_KEY = 0x51_75_65_65_52_54;
/** The advisory lock of the eviction job ("QueeEV"). */
export const EVICTION_LOCK_KEY = 0x51_75_65_65_45_56;
/** Statement timeout of one chunk (one transaction) of a cycle. */
const STATEMENT_TIMEOUT_MS = 30_000;
/** Partitions deleted per partition-cleanup transaction. */
const CLEANUP_BATCH = 100;
const DAY_MS = 24 * 3600 * 1000;

/** Settings of the retention and eviction services (docs/api.md 10). */
export interface RetentionSettings {
  intervalMs: number;
  batchSize: number;
  partitionCleanupDays: number;
  evictionIntervalMs: number;
  evictionBatchSize: number;
}

/** What one cycle did; `ran: false` when another process held the lock or ran the job within the interval. */
export interface RemovalCycle {
  ran: boolean;
  /** Messages removed. */
  messages: number;
  /** Partitions deleted by partition cleanup (retention only). */
  partitions: number;
}

/** What both services need. */
export interface RemovalDeps {
  /** `clusterLock` runs a cycle on a session of its own; the removal statements run on that session. */
  store: Pick<Store, 'clusterLock'>;
  /** Counts a database failure (metrics). */
  onDatabaseError(error: unknown): void;
}

const SKIPPED: RemovalCycle = { ran: false, messages: 0, partitions: 0 };

/** A once-per-cluster job that removes messages partition by partition. */
abstract class RemovalService extends PeriodicService<RemovalCycle> {
  /** Set by `stop()`: a cycle in progress ends after its current chunk instead of finishing its list. */
  private stopping = false;

  private readonly job: RemovalJob;
  private readonly lockKey: number;
  protected readonly deps: RemovalDeps;

  constructor(params: { job: RemovalJob; lockKey: number; intervalMs: number; log: Logger; deps: RemovalDeps }) {
    super({ name: params.job, intervalMs: params.intervalMs, runAtStart: false }, params.log);
    this.job = params.job;
    this.lockKey = params.lockKey;
    this.deps = params.deps;
  }

  /** Work after the messages are removed (partition cleanup); returns the partitions deleted. */
  protected async afterRemoval(_session: Store, _cycleId: string): Promise<number> {
    return 0;
  }

  /** The most messages this cycle may remove (eviction's cap), or Infinity. */
  protected abstract cycleBudget(): number;

  /** Messages per transaction. */
  protected abstract chunkSize(): number;

  /** Starts the ticker. */
  override async start(): Promise<void> {
    this.stopping = false;
    await super.start();
  }

  /** Stops the ticker; a cycle in progress stops after its current chunk (each chunk is its own transaction). */
  override async stop(): Promise<void> {
    this.stopping = true;
    await super.stop();
  }

  protected async cycle(): Promise<RemovalCycle> {
    try {
      const outcome = await this.deps.store.clusterLock({ key: this.lockKey, statementTimeoutMs: STATEMENT_TIMEOUT_MS }, async (session) => {
        if (!(await session.jobStart({ job: this.job, intervalMs: this.config.intervalMs }))) return SKIPPED;
        const cycleId = uuidv7();
        this.log.debug({ job: this.job, cycleId }, `${this.job} cycle started`);
        const messages = await this.removeMessages(session, cycleId);
        const partitions = await this.afterRemoval(session, cycleId);
        if (messages > 0 || partitions > 0) this.log.debug({ job: this.job, cycleId, messages, partitions }, `${this.job} cycle done`);
        return { ran: true, messages, partitions };
      });
      return outcome.acquired ? outcome.value : SKIPPED;
    } catch (error) {
      this.deps.onDatabaseError(error);
      throw error;
    }
  }

  /** Removes what qualifies, partition by partition, one chunk per transaction, within the cycle's budget. */
  private async removeMessages(session: Store, cycleId: string): Promise<number> {
    let budget = this.cycleBudget();
    let total = 0;
    for (const partitionId of await session.removalCandidates({ job: this.job })) {
      if (budget <= 0 || this.stopping) break;
      let removed = 0;
      try {
        for (;;) {
          const chunk = Math.min(budget, this.chunkSize());
          // A cycle cap is strict once the cycle removed something; before that one oversized segment may go alone.
          const strict = this.cycleBudget() !== Infinity && total + removed > 0;
          const deleted = await session.removalApply({ cycleId, partitionId, job: this.job, budget: chunk, strict });
          if (deleted === 0) break;
          removed += deleted;
          budget -= deleted;
          if (budget <= 0 || this.stopping) break;
        }
      } catch (error) {
        // One partition's failure (a lock timeout behind a long transaction) does not stop the others.
        if (isConnectivityError(error)) throw error;
        this.deps.onDatabaseError(error);
        this.log.warn({ err: error, job: this.job, partitionId }, 'removal failed on a partition');
      }
      if (removed > 0) this.log.debug({ job: this.job, cycleId, partitionId, messages: removed }, 'messages removed');
      total += removed;
    }
    return total;
  }
}

/** Retention (retentionSeconds, completedRetentionSeconds) and partition cleanup, every RETENTION_INTERVAL. */
export class RetentionService extends RemovalService {
  constructor(private readonly settings: RetentionSettings, log: Logger, deps: RemovalDeps) {
    super({ job: 'retention', lockKey: RETENTION_LOCK_KEY, intervalMs: settings.intervalMs, log, deps });
  }

  protected cycleBudget(): number {
    return Infinity;
  }

  protected chunkSize(): number {
    return this.settings.batchSize;
  }

  protected override async afterRemoval(session: Store, cycleId: string): Promise<number> {
    const idleBefore = new Date(Date.now() - this.settings.partitionCleanupDays * DAY_MS);
    let deleted = 0;
    for (;;) {
      const batch = await session.partitionsCleanup({ cycleId, idleBefore, limit: CLEANUP_BATCH });
      deleted += batch;
      if (batch < CLEANUP_BATCH) break;
    }
    if (deleted > 0) this.log.debug({ cycleId, partitions: deleted }, 'idle partitions deleted');
    return deleted;
  }
}

/** Eviction (maxWaitTimeSeconds), every EVICTION_INTERVAL, at most EVICTION_BATCH_SIZE messages per cycle. */
export class EvictionService extends RemovalService {
  constructor(private readonly settings: RetentionSettings, log: Logger, deps: RemovalDeps) {
    super({ job: 'eviction', lockKey: EVICTION_LOCK_KEY, intervalMs: settings.evictionIntervalMs, log, deps });
  }

  protected cycleBudget(): number {
    return this.settings.evictionBatchSize;
  }

  protected chunkSize(): number {
    return this.settings.evictionBatchSize;
  }
}
