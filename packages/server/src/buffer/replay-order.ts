/**
 * A partition's order across the brokers' buffers at replay (issue 41; docs/decisions.md "Replay keeps a
 * partition's order across brokers").
 *
 * Each buffer keeps FIFO per partition on its own. But during an outage a producer can move from one broker to
 * another (a broker rolled, restarted or lost behind a load balancer): the partition's older records are then in
 * the first broker's buffer and the newer ones in the second's, and two independent replays would interleave
 * them. So each broker publishes its holds (`queen.buffer_holds`): per partition, when the oldest record still
 * pending in its buffer was buffered (the time this process wrote the partition's first record into a file,
 * or the file's creation time for a file found on disk, which is never later). Before replaying a file, a
 * broker asks whether another broker's fresh hold has one of the file's partitions from earlier than this
 * file has it; if so it waits (re-checking every RECHECK_MS) until that broker has replayed them.
 *
 * After an outage every broker waits GRACE_MS before its first batch, so that the others, which notice the
 * database's return within a second or two, have published what they hold; a broker that finds no other
 * broker process of the last day in the heartbeats (a single broker) does not wait. Holds are refreshed every
 * REFRESH_MS while any is held; rows not refreshed for FRESH_S (a broker gone with its disk, or stopped with
 * files left for its successor) are ignored. A file held back for MAX_WAIT_MS replays anyway (two brokers
 * each holding the other's older records of different partitions would otherwise wait for each other):
 * order is then only per broker, as before, and a warning says so. Wall clocks of different hosts must agree
 * to within the time a moved producer takes to reach its new broker.
 */
import type { Logger } from '../logger.js';
import type { BufferHold } from '../store/buffer-holds.js';
import type { Store } from '../store/index.js';
import type { BufferFile } from './log.js';

const GRACE_MS = 2500;
const REFRESH_MS = 5000;
const FRESH_S = 30;
const RECHECK_MS = 200;
const MAX_WAIT_MS = 10_000;
/** How far back a heartbeat counts as another broker that may hold records (an outage stops every heartbeat). */
const OTHERS_WITHIN_S = 86_400;

/** What the ordering needs. */
export interface ReplayOrderDeps {
  store: Pick<Store, 'bufferHoldsPublish' | 'bufferHoldsEarlier' | 'serverAliveList'>;
  serverId: string;
  log: Logger;
}

/** The creation time (ms) in a buffer file's name (`<15-digit ms>-<sequence>.qbuf`). */
function createdAt(file: BufferFile): number {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  const millis = Number(name.slice(0, 15));
  return Number.isSafeInteger(millis) ? millis : 0;
}

/** Per partition of `files`, when its oldest record in them was buffered. */
export function holdsOf(files: readonly BufferFile[]): BufferHold[] {
  const oldest = new Map<string, number>();
  for (const file of files) {
    const created = createdAt(file);
    for (const key of file.partitions) {
      const at = file.firstAt.get(key) ?? created;
      const known = oldest.get(key);
      if (known === undefined || at < known) oldest.set(key, at);
    }
  }
  return [...oldest].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([key, at]) => {
    const cut = key.indexOf('\u0000');
    return { queue: key.slice(0, cut), partition: key.slice(cut + 1), oldestAt: new Date(at) };
  });
}

/** Publishes this buffer's holds and holds a file back while another broker has its partitions from earlier. */
export class ReplayOrder {
  private published: string | null = null;
  private publishedAt = 0;
  private graceUntil = 0;
  /** Whether the heartbeats were asked for other brokers since the last outage. */
  private othersAsked = true;
  private waiting: { file: BufferFile; since: number } | null = null;
  /** A file that waited MAX_WAIT_MS: it replays to its end without asking again. */
  private released: BufferFile | null = null;

  constructor(private readonly deps: ReplayOrderDeps) {}

  /** The database answers again after an outage: the first batch waits for the other brokers' holds. */
  afterOutage(): void {
    this.graceUntil = Date.now() + GRACE_MS;
    this.othersAsked = false;
  }

  /** Before a batch of `file`: 0 to replay it now, else the ms to wait. Publishes `files`' holds when they changed. */
  async wait(files: readonly BufferFile[], file: BufferFile): Promise<number> {
    await this.publish(files);
    if (!this.othersAsked) {
      const servers = await this.deps.store.serverAliveList({ aliveSeconds: OTHERS_WITHIN_S });
      this.othersAsked = true;
      if (servers.every((s) => s.serverId === this.deps.serverId)) this.graceUntil = 0;
    }
    const now = Date.now();
    if (now < this.graceUntil) return this.graceUntil - now;
    if (this.released === file) return 0;
    const earlier = await this.deps.store.bufferHoldsEarlier({ serverId: this.deps.serverId, holds: holdsOf([file]), freshSeconds: FRESH_S });
    if (!earlier) {
      this.waiting = null;
      return 0;
    }
    if (this.waiting?.file !== file) this.waiting = { file, since: now };
    if (now - this.waiting.since < MAX_WAIT_MS) return RECHECK_MS;
    this.deps.log.warn({ file: file.path, waitedMs: MAX_WAIT_MS }, 'another broker still holds older records of partitions of this buffer file: replaying it anyway (order kept per broker only)');
    this.released = file;
    this.waiting = null;
    return 0;
  }

  /** Publishes the holds of the pending records of `files` when they changed or are due for a refresh. */
  async publish(files: readonly BufferFile[]): Promise<void> {
    const holds = holdsOf(files.filter((f) => f.replayed < f.records));
    const text = JSON.stringify(holds);
    if (text === this.published && (holds.length === 0 || Date.now() - this.publishedAt < REFRESH_MS)) return;
    await this.deps.store.bufferHoldsPublish({ serverId: this.deps.serverId, holds });
    this.published = text;
    this.publishedAt = Date.now();
  }
}
