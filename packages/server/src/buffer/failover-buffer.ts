/**
 * The durable local buffer of a broker process (API.md 9.4, 9.5): where pushes go while push maintenance
 * is on, while PostgreSQL is unreachable, and while earlier buffered items are still waiting for replay
 * (so per-partition order is kept), and the replay that moves them into the log.
 *
 * Routing is decided synchronously: `active(items)` is true while any of the three holds (or an item's
 * partition is held by the failed set, see below), and `write()` counts its records as pending at once, so a
 * replay finishing then cannot let a later push overtake them. A push whose database work fails with a
 * connectivity error (not pool exhaustion) marks the database down and is buffered instead: its commit may
 * or may not have happened; replay is idempotent through (partition, transactionId) while the first copy is
 * still in the log. While the database is down a probe runs every second.
 *
 * Replay runs while the database is up and push maintenance is off: the oldest file first, records in
 * append order, one batch at a time (order per partition), through the same append function as every push
 * (so encryption at rest applies), with maxSize not enforced. While records are pending the next batch
 * follows at once, its size adapted to the database (replay-pace.ts), so replay outruns the pushes that
 * keep arriving meanwhile; `flushMs` is the pause after a failure. Replayed messages wake parked pops. A
 * connectivity error stops replay until the probe succeeds; a passing condition (`classifyFailure`) retries
 * the batch; any other failure counts against the file, and after three in a row the file moves to the
 * failed set, which is retried every minute (and at each start-up).
 *
 * FIFO per partition holds across the failed set too: while a failed file holds records of a (queue,
 * partition), new pushes to it are buffered (`active(items)`) and later files with records of it wait.
 */
import path from 'node:path';
import fs from 'node:fs';
import { uuidv7 } from '../ids.js';
import type { Logger } from '../logger.js';
import type { QueueSignal } from '../core/wake-bus.js';
import type { AppendItem, AppendOptions, AppendResult } from '../store/segments.js';
import { partitionKey, type BufferRecord } from './format.js';
import { REPLAY_MAX_BATCH, ReplayPace, type FailureKind } from './replay-pace.js';
import { BufferLog, scanFiles, type BufferFile, type BufferLogOptions } from './log.js';
import {
  OWNER_TOUCH_MS, acquireDirectory, claimOrphan, currentOwner, directoryName, findOrphans, listBufferFiles, pruneAdopted,
  releaseDirectory, removeIfEmpty, takeDirectory, touchOwner,
} from './ownership.js';

/** Where and how the buffer works (FILE_BUFFER_*, the process's server id, the database's cluster id). */
export interface FailoverSettings {
  dir: string;
  flushMs: number;
  maxBatch: number;
  eventsPerFile: number;
  serverId: string;
  clusterId: string;
  /** Limits and hooks of the files (tests). */
  log?: BufferLogOptions;
}

/** What the buffer needs from the broker. */
export interface FailoverDeps {
  /** The push append function (the one PushService uses). */
  append(items: AppendItem[], options?: AppendOptions): Promise<AppendResult[]>;
  /** Wakes parked pops of every process after a commit touched a queue. */
  wake(signal: QueueSignal): void;
  /** Resolves when the database answers a trivial query. */
  probe(): Promise<void>;
  classify(error: unknown): FailureKind;
  /** True while push maintenance is on. */
  pushMaintenance(): boolean;
  /** Replayed messages written to the log (not duplicates), per queue: the push counters of the stats. */
  replayed?(queue: string, count: number): void;
  log: Logger;
}

/** `bufferStats` of `GET /api/v1/system/maintenance` (API.md 7.9). */
export interface BufferStats {
  pendingCount: number;
  failedCount: number;
  dbHealthy: boolean;
  failedFiles: { count: number; totalBytes: number; totalMB: number; failoverCount: number; qos0Count: number };
}

/** What the buffer is doing, for /health and the metrics. */
export type BufferState = 'idle' | 'buffering' | 'replaying' | 'failed';

const FAILURES_BEFORE_FAILED_SET = 3;
const FAILED_RETRY_MS = 60_000;
const PROBE_MS = 1000;

/** The failover/maintenance buffer of this process and its replay. */
export class FailoverBuffer {
  private readonly own: string;
  private readonly log: BufferLog;
  private dirReady = false;
  private down = false;
  private stopped = false;
  private replayTimer: NodeJS.Timeout | null = null;
  private replaying: Promise<void> | null = null;
  private wanted = false;
  private probeTimer: NodeJS.Timeout | null = null;
  private probing = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private touchTimer: NodeJS.Timeout | null = null;
  /** Directories of other runs were taken in: remove them once their files are replayed. */
  private adoptedDirectories = false;
  /** Records per replay batch now (adaptive, see the design note). */
  private readonly pace: ReplayPace;

  constructor(
    private readonly settings: FailoverSettings,
    private readonly deps: FailoverDeps,
  ) {
    this.own = path.join(settings.dir, directoryName(settings.serverId));
    this.pace = new ReplayPace(settings.maxBatch);
    this.log = new BufferLog({
      dir: this.own, eventsPerFile: settings.eventsPerFile, prepare: () => this.prepareDirectory(), onDurable: () => this.kick(),
      ...(settings.log !== undefined ? { options: settings.log } : {}),
    });
  }

  /** This process's buffer directory. */
  get directory(): string {
    return this.own;
  }

  /** True while a push failed on a lost database and the probe has not reached it since. */
  get databaseDown(): boolean {
    return this.down;
  }

  /** Buffered items not replayed yet (outside the failed set). */
  get pendingCount(): number {
    return this.log.pendingCount;
  }

  /**
   * Every buffered message not in the database yet: pending plus the failed set. The one definition of
   * `bufferedMessages` (maintenance route, metrics gauge).
   */
  get bufferedCount(): number {
    let count = this.log.pendingCount;
    for (const f of this.log.files) if (f.failed) count += f.records - f.replayed;
    return count;
  }

  /**
   * What the buffer is doing: `buffering` (the database is unreachable or push maintenance is on: pushes
   * are kept here), `replaying` (buffered messages are being written to the database), `failed` (only
   * the failed set is left, retried every minute) or `idle`.
   */
  get state(): BufferState {
    if (this.down || this.deps.pushMaintenance()) return 'buffering';
    if (this.log.pendingCount > 0) return 'replaying';
    return this.bufferedCount > 0 ? 'failed' : 'idle';
  }

  /** False after a write to the buffer failed, until one succeeds. */
  get healthy(): boolean {
    return this.log.writeHealthy;
  }

  /**
   * True when a new push must go to the buffer: push maintenance, database down, items still pending, or
   * one of `items` goes to a partition that a file in the failed set holds records of.
   */
  active(items: ReadonlyArray<{ queue: string; partition: string }> = []): boolean {
    if (this.deps.pushMaintenance() || this.down || this.log.pendingCount > 0) return true;
    const failed = this.log.files.filter((f) => f.failed);
    if (failed.length === 0) return false;
    const keys = items.map(partitionKey);
    return failed.some((f) => keys.some((key) => f.partitions.has(key)));
  }

  /** Buffers accepted push items; resolves once they are fsync'd, rejects when the buffer cannot be written. */
  async write(items: AppendItem[]): Promise<void> {
    try {
      await this.log.append(items.map(({ messageId: _minted, ...record }): BufferRecord => record));
    } catch (error) {
      this.deps.log.error({ err: error, items: items.length }, 'failover buffer write failed');
      throw error;
    }
  }

  /** A push's database work failed: true (and the database is marked down) when it is an outage to buffer through. */
  divert(error: unknown): boolean {
    if (this.stopped || this.deps.classify(error) !== 'down') return false;
    this.markDown(error);
    return true;
  }

  /** Replays soon (push maintenance turned off, new durable records, the database came back). */
  kick(): void {
    this.wanted = true;
    this.schedule(0);
  }

  /** The stats of the maintenance route. */
  stats(): BufferStats {
    const failed = this.log.files.filter((f) => f.failed);
    const totalBytes = failed.reduce((sum, f) => sum + f.bytes, 0);
    return {
      pendingCount: this.log.pendingCount,
      failedCount: failed.reduce((sum, f) => sum + f.records - f.replayed, 0),
      dbHealthy: !this.down,
      failedFiles: { count: failed.length, totalBytes, totalMB: Math.round((totalBytes / 1_048_576) * 100) / 100, failoverCount: failed.length, qos0Count: 0 },
    };
  }

  /** Takes over files left by a previous run under this server id, adopts orphans, starts replaying. */
  async start(): Promise<void> {
    if (fs.existsSync(this.own)) {
      const hadFiles = await acquireDirectory(this.settings.dir, this.own, currentOwner(this.settings.serverId, this.settings.clusterId),
        (waitMs) => this.deps.log.warn({ directory: this.own, waitMs }, 'buffer directory owned by a recent process of another pid namespace: waiting until its owner record is stale'));
      this.dirReady = true;
      if (hadFiles) {
        this.adoptedDirectories = true;
        await this.load(listBufferFiles(this.own), 'left by a previous run');
      }
    }
    await this.adopt();
    this.retryTimer = setInterval(() => void this.retryFailed(), FAILED_RETRY_MS);
    this.retryTimer.unref();
    this.touchTimer = setInterval(() => {
      if (this.dirReady) touchOwner(this.own);
    }, OWNER_TOUCH_MS);
    this.touchTimer.unref();
    this.kick();
  }

  /** Stops replaying (after the batch in progress), waits for the writes in progress, closes the file. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of [this.replayTimer, this.probeTimer]) if (timer !== null) clearTimeout(timer);
    if (this.retryTimer !== null) clearInterval(this.retryTimer);
    if (this.touchTimer !== null) clearInterval(this.touchTimer);
    this.replayTimer = null;
    await this.replaying;
    await this.log.close();
    if (this.dirReady && this.log.files.length === 0 && this.log.pendingCount === 0) removeIfEmpty(this.own);
    // What is left is taken over at once by the next process with this SERVER_ID (a restarted container).
    if (this.dirReady) releaseDirectory(this.own);
  }

  private prepareDirectory(): void {
    if (this.dirReady) return;
    takeDirectory(this.settings.dir, this.own, currentOwner(this.settings.serverId, this.settings.clusterId));
    this.dirReady = true;
  }

  private async load(files: string[], origin: string): Promise<void> {
    const found = await scanFiles(files, (file, validBytes, size) =>
      this.deps.log.warn({ file, validBytes, size }, 'buffer file has unreadable data after its valid records: they are kept as .corrupt after replay'));
    if (found.length > 0) {
      this.log.add(found);
      this.deps.log.info({ files: found.length, records: found.reduce((s, f) => s + f.records, 0), origin }, 'buffer files to replay');
    }
  }

  /** Moves the directories of dead processes (this host, this database) into ours and queues their files. */
  private async adopt(): Promise<void> {
    for (const name of findOrphans(this.settings.dir, this.own, this.settings.clusterId)) {
      try {
        this.prepareDirectory();
        const claimed = claimOrphan(this.settings.dir, name, this.own);
        if (claimed !== null) {
          this.adoptedDirectories = true;
          await this.load(listBufferFiles(claimed), `adopted from ${name}`);
        }
      } catch (error) {
        this.deps.log.warn({ err: error, directory: name }, 'could not adopt a leftover buffer directory');
      }
    }
  }

  private async retryFailed(): Promise<void> {
    for (const f of this.log.files) {
      f.failed = false;
      f.failures = 0;
    }
    await this.adopt().catch(() => undefined);
    this.kick();
  }

  private markDown(error: unknown): void {
    if (this.down) return;
    this.down = true;
    this.deps.log.warn({ err: error }, 'database unreachable: pushes go to the failover buffer until it answers again');
    this.probeTimer = setInterval(() => void this.probe(), PROBE_MS);
    this.probeTimer.unref();
  }

  private async probe(): Promise<void> {
    if (this.probing || this.stopped) return;
    this.probing = true;
    try {
      await this.deps.probe();
      if (this.probeTimer !== null) clearInterval(this.probeTimer);
      this.probeTimer = null;
      this.down = false;
      this.deps.log.warn({ pending: this.log.pendingCount }, 'database reachable again: replaying the failover buffer');
      this.kick();
    } catch {
      // still down: the next probe in a second
    } finally {
      this.probing = false;
    }
  }

  private schedule(delay: number): void {
    if (this.stopped || this.replayTimer !== null || this.replaying !== null) return;
    this.replayTimer = setTimeout(() => {
      this.replayTimer = null;
      this.wanted = false;
      this.replaying = this.replayOnce()
        .catch((error: unknown) => {
          this.deps.log.error({ err: error }, 'buffer replay failed');
          return this.settings.flushMs;
        })
        .then((next) => {
          this.replaying = null;
          if (next !== null) this.schedule(next);
          else if (this.wanted) this.schedule(0);
        });
    }, delay);
  }

  /** One replay step; returns the delay before the next one, or null when there is nothing to do now. */
  private async replayOnce(): Promise<number | null> {
    if (this.stopped || this.down || this.deps.pushMaintenance()) return null;
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
      return this.replayBatch(file);
    }
    if (this.adoptedDirectories && this.log.files.length === 0) {
      this.adoptedDirectories = false;
      pruneAdopted(this.own);
    }
    return null;
  }

  private async replayBatch(file: BufferFile): Promise<number> {
    let read: Awaited<ReturnType<BufferLog['read']>>;
    try {
      read = await this.log.read(file, this.pace.batch);
    } catch (error) {
      return this.fileFailed(file, error);
    }
    const items: AppendItem[] = read.records.map((r) => ({ ...r, messageId: uuidv7() }));
    let results: AppendResult[];
    const started = Date.now();
    this.log.prefetch(file, read.next, Math.min(this.pace.batch * 2, REPLAY_MAX_BATCH)); // used if this batch commits
    try {
      results = await this.deps.append(items, { replay: true });
    } catch (error) {
      const kind = this.deps.classify(error);
      this.pace.failed();
      if (kind === 'down') {
        this.markDown(error);
        return this.settings.flushMs; // replayOnce returns at once while down; the probe kicks it again
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
    const refused = results.filter((r) => r.status === 'failed');
    if (refused.length > 0) return this.fileFailed(file, new Error(`replay refused ${refused.length} item(s): ${refused[0]!.error ?? 'failed'}`));
    file.failures = 0;
    await this.log.replayed(file, read.records.length, read.next);
    if (this.log.pendingCount === 0 && this.log.files.every((f) => !f.failed)) this.deps.log.info('failover buffer drained');
    return 0; // as fast as the database accepts: replayOnce finds nothing to do once the buffer is empty
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
