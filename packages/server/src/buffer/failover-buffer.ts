/**
 * The durable local buffer of a broker process (docs/api.md 9.4, 9.5): where pushes go while push maintenance
 * is on, while PostgreSQL is unreachable, and while earlier buffered items are still waiting for replay
 * (so per-partition order is kept), and the replay that moves them into the log.
 *
 * Routing is decided synchronously: `active(items)` is true while any of the three holds (or an item's
 * partition is held by the failed set, see below), and `write()` counts its records as pending at once, so a
 * replay finishing then cannot let a later push overtake them. A push whose database work fails with a
 * connectivity error (not pool exhaustion) marks the database down and is buffered instead: its commit may
 * or may not have happened; replay is idempotent through (partition, transactionId) while the first copy is
 * still in the log.
 *
 * This module routes pushes and owns the files and their directories (ownership.ts: the directory of this
 * run, those of dead processes it adopts, the failed set retried every minute and at each start-up). The
 * two other jobs are beside it: replay scheduling (replay.ts) and the database's health, probed every
 * second while it is down (database-health.ts).
 *
 * FIFO per partition holds across the failed set too: while a failed file holds records of a (queue,
 * partition), new pushes to it are buffered (`active(items)`) and later files with records of it wait.
 *
 * On Citus (`perPartition`) a worker that is down fails only its partitions' calls, so the buffer routes per
 * partition: a push item is buffered only while its partition has records reserved, pending or failed here
 * (`heldItems`), the push writes the rest, and a replay batch meeting an unreachable node is retried without
 * marking the whole database down (docs/scale-out.md section 7).
 */
import path from 'node:path';
import fs from 'node:fs';
import type { Store } from '../store/index.js';
import type { AppendItem } from '../store/segments.js';
import { DatabaseHealth } from './database-health.js';
import { partitionKey, type BufferRecord } from './format.js';
import { BufferLog, type BufferLogOptions } from './log.js';
import { scanFiles } from './scan.js';
import { Replay, type ReplayDeps } from './replay.js';
import { ReplayOrder } from './replay-order.js';
import {
  OWNER_TOUCH_MS, acquireDirectory, claimOrphan, currentOwner, directoryName, findOrphans, listBufferFiles, pruneAdopted, readOwner,
  recordOwner, releaseDirectory, removeIfEmpty, setAside, takeDirectory, touchOwner, UNKNOWN_CLUSTER, type Owner,
} from './ownership.js';

/** Where and how the buffer works (FILE_BUFFER_*, the process's server id). */
export interface FailoverSettings {
  dir: string;
  flushMs: number;
  maxBatch: number;
  eventsPerFile: number;
  /** Bytes the files may take (FILE_BUFFER_MAX_BYTES); null: `FREE_SPACE_SHARE` of the volume's free space at start-up. */
  maxBytes?: number | null;
  serverId: string;
  /** Limits and hooks of the files (tests). */
  log?: BufferLogOptions;
}

/** What the buffer needs from the broker: replay's needs, and the probe (`ping`) of the database's health. */
export interface FailoverDeps extends Omit<ReplayDeps, 'onEmpty' | 'store'> {
  store: Pick<Store, 'segmentAppendReplay' | 'ping' | 'bufferHoldsPublish' | 'bufferHoldsEarlier' | 'serverAliveList'>;
}

/** `bufferStats` of `GET …/system/maintenance` (docs/api.md 7.9). */
export interface BufferStats {
  pendingCount: number;
  failedCount: number;
  dbHealthy: boolean;
  failedFiles: { count: number; totalBytes: number; totalMB: number; failoverCount: number; qos0Count: number };
}

/** Why the buffer takes no push now (docs/api.md 4.1a). */
export type BufferRefusal = 'buffer full' | 'buffer write failed';

/** What the buffer is doing, for /health and the metrics. */
export type BufferState = 'idle' | 'buffering' | 'replaying' | 'failed';

const FAILED_RETRY_MS = 60_000;
/** The share of the volume's free space (at start-up) the buffer may take when FILE_BUFFER_MAX_BYTES is not set. */
const FREE_SPACE_SHARE = 0.9;

/** The failover/maintenance buffer of this process and its replay. */
export class FailoverBuffer {
  private readonly own: string;
  private readonly log: BufferLog;
  private readonly health: DatabaseHealth;
  private readonly replay: Replay;
  /** The order of a partition's records across brokers' buffers (replay-order.ts). */
  private readonly order: ReplayOrder;
  private dirReady = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private touchTimer: NodeJS.Timeout | null = null;
  /** Directories of other runs were taken in: remove them once their files are replayed. */
  private adoptedDirectories = false;
  /** The database's cluster id as the owner record states it (known once the database answered, see `start`). */
  private clusterId = UNKNOWN_CLUSTER;
  /**
   * Started before the database answered (`hold`): every push is buffered, nothing is replayed (the schema may
   * not be migrated yet), and `leftovers` are the files of a previous run taken over meanwhile.
   */
  private held = false;
  private leftovers: { files: string[]; owner: Owner | null } = { files: [], owner: null };

  constructor(
    private readonly settings: FailoverSettings,
    private readonly deps: FailoverDeps,
  ) {
    this.own = path.join(settings.dir, directoryName(settings.serverId));
    this.log = new BufferLog({
      dir: this.own, eventsPerFile: settings.eventsPerFile, prepare: () => this.prepareDirectory(), onDurable: () => this.kick(),
      ...(settings.log !== undefined ? { options: settings.log } : {}),
    });
    this.health = new DatabaseHealth({
      store: deps.store,
      log: deps.log,
      onUp: () => {
        deps.log.warn({ pending: this.log.pendingCount }, 'database reachable again: replaying the failover buffer');
        this.order.afterOutage();
        this.kick();
      },
    });
    this.order = new ReplayOrder({ store: deps.store, serverId: settings.serverId, log: deps.log });
    this.replay = new Replay(this.log, this.health, settings, { ...deps, onEmpty: () => this.pruneAdopted() }, this.order);
  }

  /** This process's buffer directory. */
  get directory(): string {
    return this.own;
  }

  /** True while a push failed on a lost database and the probe has not reached it since (or it was never reached). */
  get databaseDown(): boolean {
    return this.held || this.health.isDown;
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
    if (this.databaseDown || this.deps.pushMaintenance()) return 'buffering';
    if (this.log.pendingCount > 0) return 'replaying';
    return this.bufferedCount > 0 ? 'failed' : 'idle';
  }

  /** False after a write to the buffer failed, until one succeeds. */
  get healthy(): boolean {
    return this.log.writeHealthy;
  }

  /**
   * Why a push that must be buffered now would not be accepted (the readiness of `GET /ready`), or null
   * when the buffer takes writes.
   */
  get refusal(): BufferRefusal | null {
    if (this.log.full) return 'buffer full';
    return this.log.writeHealthy ? null : 'buffer write failed';
  }

  /** Bytes the buffer's files take (and the appends in progress will add). */
  get bytes(): number {
    return this.log.bytes;
  }

  /** The limit of `bytes` (FILE_BUFFER_MAX_BYTES, or derived from the free space at start-up). */
  get maxBytes(): number {
    return this.log.maxBytes;
  }

  /**
   * True when a new push must go to the buffer: push maintenance, database down, items still pending, or
   * one of `items` goes to a partition that a file in the failed set holds records of. Per partition
   * (`perPartition`, Citus): only when one of `items`' partitions has records buffered and not replayed yet,
   * so the partitions of a worker that is down are buffered while the others' pushes commit.
   */
  active(items: ReadonlyArray<{ queue: string; partition: string }> = []): boolean {
    if (this.databaseDown || this.deps.pushMaintenance()) return true;
    if (this.deps.perPartition()) return this.log.holdsAny(items.map(partitionKey));
    if (this.log.pendingCount > 0) return true;
    const failed = this.log.files.filter((f) => f.failed);
    if (failed.length === 0) return false;
    const keys = items.map(partitionKey);
    return failed.some((f) => keys.some((key) => f.partitions.has(key)));
  }

  /**
   * Which of `items` must be buffered when `active(items)` is true: null (all of them) unless the buffer routes
   * per partition and only partitions it holds are the reason, then true for the items of those partitions.
   */
  heldItems(items: ReadonlyArray<{ queue: string; partition: string }>): boolean[] | null {
    if (this.databaseDown || this.deps.pushMaintenance() || !this.deps.perPartition()) return null;
    return items.map((item) => this.log.holdsAny([partitionKey(item)]));
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
    this.health.markDown(error);
    return true;
  }

  /** Replays soon (push maintenance turned off, new durable records, the database came back); never while held. */
  kick(): void {
    if (!this.held) this.replay.kick();
  }

  /** The stats of the maintenance route. */
  stats(): BufferStats {
    const failed = this.log.files.filter((f) => f.failed);
    const totalBytes = failed.reduce((sum, f) => sum + f.bytes, 0);
    return {
      pendingCount: this.log.pendingCount,
      failedCount: failed.reduce((sum, f) => sum + f.records - f.replayed, 0),
      dbHealthy: !this.databaseDown,
      failedFiles: { count: failed.length, totalBytes, totalMB: Math.round((totalBytes / 1_048_576) * 100) / 100, failoverCount: failed.length, qos0Count: 0 },
    };
  }

  /**
   * Starts before the database answered (docs/api.md 9.8 rule 3): takes over this server id's directory and
   * its leftover files as `start` does, under the cluster id its owner record names (this broker's database
   * the last time it ran), then buffers every push and replays nothing until `start`.
   */
  async hold(): Promise<void> {
    this.held = true;
    const owner = readOwner(this.own);
    this.clusterId = owner?.clusterId ?? UNKNOWN_CLUSTER;
    this.leftovers = { files: await this.takeOwnDirectory(), owner };
    this.startTimers();
    this.limitSize();
  }

  /**
   * Takes over files left by a previous run under this server id, adopts orphans of the same database,
   * starts replaying. After `hold`: the owner record gets the database's cluster id; leftovers recorded for
   * another database are set aside for it (as `takeDirectory` does), and replay starts.
   */
  async start(clusterId: string): Promise<void> {
    if (this.held) {
      if (this.clusterId !== clusterId) this.rehome(clusterId);
      this.held = false;
      this.order.afterOutage();
    } else {
      this.clusterId = clusterId;
      await this.takeOwnDirectory();
      this.startTimers();
      this.limitSize();
    }
    await this.adopt();
    this.retryTimer = setInterval(() => void this.retryFailed(), FAILED_RETRY_MS);
    this.retryTimer.unref();
    this.kick();
  }

  /** Takes over this server id's directory if it exists; returns the leftover files it queued. */
  private async takeOwnDirectory(): Promise<string[]> {
    if (!fs.existsSync(this.own)) return [];
    const hadFiles = await acquireDirectory(this.settings.dir, this.own, currentOwner(this.settings.serverId, this.clusterId),
      (waitMs) => this.deps.log.warn({ directory: this.own, waitMs }, 'buffer directory owned by a recent process of another pid namespace: waiting until its owner record is stale'));
    this.dirReady = true;
    if (!hadFiles) return [];
    this.adoptedDirectories = true;
    const files = listBufferFiles(this.own);
    await this.load(files, 'left by a previous run');
    return files;
  }

  /** Sets the size limit: FILE_BUFFER_MAX_BYTES, else what the files take now plus a share of the free space. */
  private limitSize(): void {
    const configured = this.settings.maxBytes ?? null;
    this.log.maxBytes = configured ?? this.log.bytes + Math.floor(FREE_SPACE_SHARE * freeBytes(this.settings.dir));
    this.deps.log.debug({ maxBytes: this.log.maxBytes, derived: configured === null }, 'failover buffer size limit');
  }

  private startTimers(): void {
    this.touchTimer = setInterval(() => {
      if (this.dirReady) touchOwner(this.own);
    }, OWNER_TOUCH_MS);
    this.touchTimer.unref();
  }

  /**
   * The database reached after `hold` is not the one the owner record named: the leftovers of the previous
   * run belong to that one and move aside (an adoptable directory of their own); what was buffered while held
   * stays, for this database. The owner record then names this database.
   */
  private rehome(clusterId: string): void {
    const previous = this.clusterId;
    this.clusterId = clusterId;
    if (!this.dirReady) return;
    const { files, owner } = this.leftovers;
    if (previous !== UNKNOWN_CLUSTER && files.length > 0) {
      const aside = setAside(this.own, files, owner);
      this.log.forget(files);
      this.deps.log.warn({ directory: aside, files: files.length }, 'buffer files of a previous run were recorded for another database: set aside for it');
    }
    recordOwner(this.own, currentOwner(this.settings.serverId, clusterId));
  }

  /** Stops replaying (after the batch in progress), waits for the writes in progress, closes the file (once). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.health.stop();
    if (this.retryTimer !== null) clearInterval(this.retryTimer);
    if (this.touchTimer !== null) clearInterval(this.touchTimer);
    await this.replay.stop();
    await this.log.close();
    if (this.dirReady && this.log.files.length === 0 && this.log.pendingCount === 0) removeIfEmpty(this.own);
    // What is left is taken over at once by the next process with this SERVER_ID (a restarted container).
    if (this.dirReady) releaseDirectory(this.own);
  }

  private prepareDirectory(): void {
    if (this.dirReady) return;
    takeDirectory(this.settings.dir, this.own, currentOwner(this.settings.serverId, this.clusterId));
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
    for (const name of findOrphans(this.settings.dir, this.own, this.clusterId)) {
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

  /** Replay found no file left: the directories taken in from other runs can go. */
  private pruneAdopted(): void {
    if (!this.adoptedDirectories) return;
    this.adoptedDirectories = false;
    pruneAdopted(this.own);
  }
}

/**
 * The bytes an unprivileged process may still write on the volume of `dir` (or of its nearest existing parent);
 * Infinity when the file system cannot tell (a write that fails then fails as any write does).
 */
function freeBytes(dir: string): number {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      const stats = fs.statfsSync(at);
      return stats.bavail * stats.bsize;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || path.dirname(at) === at) return Number.POSITIVE_INFINITY;
    }
  }
}
