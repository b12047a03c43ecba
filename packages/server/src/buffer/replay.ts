/**
 * The replay of the failover buffer (docs/api.md 9.5): moves buffered records into the log while the database is
 * up and push maintenance is off. The oldest file first, records in append order, one batch at a time (order
 * per partition), through the same sealing step as every push (so encryption at rest applies), with maxSize
 * not enforced (`segmentAppendReplay`). While records are pending the next batch follows at once, its size
 * adapted to the database (replay-pace.ts), so replay outruns the pushes that keep arriving meanwhile;
 * `flushMs` is the pause after a failure. Replayed messages wake parked pops.
 *
 * A connectivity error marks the database down (database-health.ts) and stops replay until the probe
 * succeeds (on Citus, where the buffer routes per partition, the batch is retried every second instead: a worker
 * that is down must not hold the other workers' partitions); a passing condition (`classifyFailure`) retries the
 * batch; any other failure counts against the file, and after three in a row the file moves to the failed set
 * (retried every minute by the buffer).
 * FIFO per partition holds across the failed set: a later file with records of a partition a failed file
 * holds waits. Across brokers, a file waits while another broker holds older records of one of its
 * partitions (replay-order.ts). A record the push rules refuse (`itemError`: a `.` or `..` name, written by an
 * older release or by hand) is not written: it counts as refused like a maxSize refusal, so its file stays on
 * disk, failing, with the reason in the log, and nothing is lost or created under a name a URL cannot carry.
 */
import { uuidv7 } from '../ids.js';
import type { Logger } from '../logger.js';
import type { Sealing } from '../core/payload-sealing.js';
import { itemError } from '../core/push.js';
import type { QueueSignal } from '../core/wake-bus.js';
import type { Store } from '../store/index.js';
import type { AppendItem, AppendResult } from '../store/segments.js';
import type { DatabaseHealth } from './database-health.js';
import type { BufferFile, BufferLog } from './log.js';
import type { ReplayOrder } from './replay-order.js';
import { REPLAY_MAX_BATCH, ReplayPace, type FailureKind } from './replay-pace.js';

const FAILURES_BEFORE_FAILED_SET = 3;
/** The pause before retrying a replay batch that met an unreachable node (per-partition routing, see `perPartition`). */
const UNREACHABLE_RETRY_MS = 1000;

/** What replay needs. */
export interface ReplayDeps {
  /** `segmentAppendReplay` writes a batch with maxSize not enforced. */
  store: Pick<Store, 'segmentAppendReplay'>;
  /** The sealing step of every push. */
  sealing: Sealing;
  /** Wakes parked pops of every process after a commit touched a queue. */
  wake(signal: QueueSignal): void;
  classify(error: unknown): FailureKind;
  /** True while push maintenance is on. */
  pushMaintenance(): boolean;
  /**
   * True on a Citus coordinator: a node that cannot be reached holds only its partitions' pushes, so a replay
   * batch that meets one (a worker that is down) is retried after UNREACHABLE_RETRY_MS instead of marking the
   * whole database down (which would buffer every push). A coordinator that is down fails the pushes themselves.
   */
  perPartition(): boolean;
  /** Replayed messages written to the log (not duplicates), per queue: the push counters of the stats. */
  replayed?(queue: string, count: number): void;
  /** Replay found no file left (adopted directories can go). */
  onEmpty(): void;
  log: Logger;
}

/** Schedules replay steps, one at a time, and runs them. */
export class Replay {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private wanted = false;
  private stopped = false;
  /** Records per replay batch now (adaptive, see the design note). */
  private readonly pace: ReplayPace;
  private readonly append: (items: AppendItem[]) => Promise<AppendResult[]>;

  constructor(
    private readonly log: BufferLog,
    private readonly health: DatabaseHealth,
    private readonly settings: { flushMs: number; maxBatch: number },
    private readonly deps: ReplayDeps,
    private readonly order: ReplayOrder,
  ) {
    this.pace = new ReplayPace(settings.maxBatch);
    const { store } = deps;
    this.append = deps.sealing.wrap((items) => store.segmentAppendReplay({ items }));
  }

  /** Replays soon (push maintenance turned off, new durable records, the database came back). */
  kick(): void {
    this.wanted = true;
    this.schedule(0);
  }

  /** Stops scheduling; resolves after the batch in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(delay: number): void {
    if (this.stopped || this.timer !== null || this.running !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wanted = false;
      this.running = this.step()
        .catch((error: unknown) => {
          this.deps.log.error({ err: error }, 'buffer replay failed');
          return this.settings.flushMs;
        })
        .then((next) => {
          this.running = null;
          if (next !== null) this.schedule(next);
          else if (this.wanted) this.schedule(0);
        });
    }, delay);
  }

  /** One replay step; returns the delay before the next one, or null when there is nothing to do now. */
  private async step(): Promise<number | null> {
    if (this.stopped || this.health.isDown || this.deps.pushMaintenance()) return null;
    // Partitions of failed files seen so far: a later file holding records of one waits (FIFO per partition).
    const blocked = new Set<string>();
    for (const file of [...this.log.files]) {
      if (file.failed) {
        for (const key of file.partitions) blocked.add(key);
        continue;
      }
      if (file.replayed >= file.records) {
        // retired, or the file being written with nothing durable left in it (the next write kicks replay)
        await this.log.retireIfDone(file);
        continue;
      }
      if (blocked.size > 0 && [...file.partitions].some((key) => blocked.has(key))) continue;
      const wait = await this.ordered(file);
      return wait > 0 ? wait : this.batch(file);
    }
    if (this.log.files.length === 0) {
      await this.order.publish([]).catch((error: unknown) => this.deps.log.warn({ err: error }, 'could not clear the buffer holds'));
      this.deps.onEmpty();
    }
    return null;
  }

  /** The ms `file` must wait for other brokers' older records of its partitions (0: replay it now). */
  private async ordered(file: BufferFile): Promise<number> {
    try {
      return await this.order.wait(this.log.files, file);
    } catch (error) {
      if (this.deps.classify(error) === 'down') this.health.markDown(error);
      else this.deps.log.warn({ err: error }, 'buffer holds could not be read or written: retrying');
      return this.settings.flushMs;
    }
  }

  private async batch(file: BufferFile): Promise<number> {
    let read: Awaited<ReturnType<BufferLog['read']>>;
    try {
      read = await this.log.read(file, this.pace.batch);
    } catch (error) {
      return this.fileFailed(file, error);
    }
    const records: AppendItem[] = read.records.map((r) => ({ ...r, messageId: uuidv7() }));
    const refusals = records.map((r) => itemError(r)).filter((e): e is string => e !== null);
    const items = refusals.length === 0 ? records : records.filter((r) => itemError(r) === null);
    let results: AppendResult[];
    const started = Date.now();
    this.log.prefetch(file, read.next, Math.min(this.pace.batch * 2, REPLAY_MAX_BATCH)); // used if this batch commits
    try {
      results = items.length === 0 ? [] : await this.append(items);
    } catch (error) {
      const kind = this.deps.classify(error);
      this.pace.failed();
      if (kind === 'down' && this.deps.perPartition()) {
        this.deps.log.warn({ err: error }, 'buffer replay batch met an unreachable node: retrying');
        return UNREACHABLE_RETRY_MS;
      }
      if (kind === 'down') {
        this.health.markDown(error);
        return this.settings.flushMs; // a step returns at once while down; the probe kicks replay again
      }
      if (kind === 'transient') {
        this.deps.log.warn({ err: error, batch: this.pace.batch }, 'buffer replay batch will be retried');
        return this.settings.flushMs;
      }
      return this.fileFailed(file, error);
    }
    this.pace.committed(Date.now() - started, items.length);
    this.deps.log.debug({ records: items.length, elapsedMs: Date.now() - started, next: this.pace.batch }, 'buffer replay batch committed');
    const signals = new Map<string, QueueSignal>();
    const written = new Map<string, number>();
    results.forEach((result, i) => {
      if (result.status !== 'queued') return;
      const queue = items[i]!.queue;
      signals.set(queue, { queue, namespace: result.namespace, task: result.task });
      written.set(queue, (written.get(queue) ?? 0) + 1);
    });
    for (const signal of signals.values()) this.deps.wake(signal);
    for (const [queue, count] of written) this.deps.replayed?.(queue, count);
    refusals.push(...results.filter((r) => r.status === 'failed').map((r) => r.error ?? 'failed'));
    if (refusals.length > 0) return this.fileFailed(file, new Error(`replay refused ${refusals.length} item(s): ${refusals[0]!}`));
    file.failures = 0;
    await this.log.replayed(file, read.records.length, read.next);
    if (this.log.pendingCount === 0 && this.log.files.every((f) => !f.failed)) this.deps.log.info('failover buffer drained');
    return 0; // as fast as the database accepts: a step finds nothing to do once the buffer is empty
  }

  private fileFailed(file: BufferFile, error: unknown): number {
    file.failures += 1;
    if (file.failures >= FAILURES_BEFORE_FAILED_SET) {
      file.failed = true;
      this.deps.log.error({ err: error, file: file.path }, 'buffer file keeps failing: moved to the failed set (retried every minute)');
    } else {
      this.deps.log.warn({ err: error, file: file.path, failures: file.failures }, 'buffer replay batch failed');
    }
    return this.settings.flushMs;
  }
}
