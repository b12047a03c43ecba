/**
 * Client-side push buffering (docs/client.md). One in-memory buffer per `queue/partition`; a flush starts when a
 * buffer holds `messageCount` items or `timeMillis` after its oldest item arrived, and sends `messageCount`-sized
 * pushes. Items carry their client-minted transactionIds, so re-sending a chunk after an ambiguous failure
 * deduplicates on the broker: a failed chunk goes back to the front and is retried (250 ms, doubling, capped at
 * 5 s) for as long as the client is open. `maxSize` bounds memory: `add()` waits until flushes make room.
 *
 * Per buffer at most one flush runs at a time (`inflight`), which keeps chunks in order and therefore keeps
 * per-partition FIFO across buffered pushes.
 */
import { BUILDER_DEFAULTS } from './defaults.js';
import { errorMessage, QueenError } from './errors.js';
import type { Transport } from './http.js';
import type { SafeLogger } from './log.js';
import { dispatchResults, sendPush, type PushCallbacks } from './push-wire.js';
import type { BufferOptions, BufferStats, PushItem } from './types.js';

const RETRY_FIRST_MILLIS = 250;
const RETRY_MAX_MILLIS = 5000;

interface Entry {
  item: PushItem<unknown>;
  callbacks: PushCallbacks<unknown>;
  at: number;
}

interface PartitionBuffer {
  key: string;
  options: Required<BufferOptions>;
  entries: Entry[];
  timer: ReturnType<typeof setTimeout> | undefined;
  due: boolean;
  retryMillis: number;
  inflight: Promise<void> | undefined;
  waiters: Array<() => void>;
}

/** Resolves `.buffer()` options with the defaults (100 items, 1000 ms, maxSize 4 x messageCount). */
export function bufferOptions(options: BufferOptions = {}): Required<BufferOptions> {
  const messageCount = Math.max(1, Math.floor(options.messageCount ?? BUILDER_DEFAULTS.bufferMessageCount));
  const timeMillis = Math.max(0, options.timeMillis ?? BUILDER_DEFAULTS.bufferTimeMillis);
  const maxSize = Math.max(1, Math.floor(options.maxSize ?? 4 * messageCount));
  return { messageCount, timeMillis, maxSize };
}

/** The map key of a queue/partition buffer; collision-free even for names that contain `/`. */
function bufferKey(queue: string, partition: string): string {
  return JSON.stringify([queue, partition]);
}

/** Every client-side push buffer of one `Queen`. */
export class PushBuffers {
  private readonly buffers = new Map<string, PartitionBuffer>();
  private flushes = 0;
  private closed = false;

  constructor(
    private readonly transport: Transport,
    private readonly logger: SafeLogger,
  ) {}

  /** Appends items to the `queue/partition` buffer, first waiting for room when `maxSize` would be exceeded. */
  async add(queue: string, partition: string, options: Required<BufferOptions>, items: PushItem<unknown>[], callbacks: PushCallbacks<unknown>): Promise<void> {
    const key = bufferKey(queue, partition);
    let buffer = this.buffers.get(key);
    if (!buffer) {
      buffer = { key, options, entries: [], timer: undefined, due: false, retryMillis: 0, inflight: undefined, waiters: [] };
      this.buffers.set(key, buffer);
    }
    buffer.options = options;
    while (buffer.entries.length > 0 && buffer.entries.length + items.length > options.maxSize) {
      if (this.closed) break;
      buffer.due = true; // back-pressure: flush now rather than at the timer
      this.kick(buffer);
      await new Promise<void>((resolve) => buffer!.waiters.push(resolve));
    }
    if (this.closed) throw new QueenError('CLOSED', 'Client is closed');
    const now = Date.now();
    for (const item of items) buffer.entries.push({ item, callbacks, at: now });
    if (buffer.entries.length >= options.messageCount) this.kick(buffer);
    else this.arm(buffer);
  }

  /** Sends everything buffered for `queue/partition`; rejects if the broker keeps failing. */
  async flush(queue: string, partition: string): Promise<void> {
    const buffer = this.buffers.get(bufferKey(queue, partition));
    if (buffer) await this.drain(buffer);
  }

  /** Sends every buffer; rejects with the first failure once every buffer was tried. */
  async flushAll(): Promise<void> {
    const outcomes = await Promise.allSettled([...this.buffers.values()].map((b) => this.drain(b)));
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failure) throw failure.reason;
  }

  /** Drains every buffer, then refuses new items; timers are cleared. */
  async close(): Promise<void> {
    try {
      await this.flushAll();
    } finally {
      this.closed = true;
      for (const buffer of this.buffers.values()) {
        clearTimeout(buffer.timer);
        buffer.waiters.splice(0).forEach((wake) => wake());
      }
    }
  }

  /** Counts for `getBufferStats()`. */
  stats(): BufferStats {
    let active = 0;
    let total = 0;
    let oldest = Infinity;
    for (const buffer of this.buffers.values()) {
      if (buffer.entries.length === 0) continue;
      active += 1;
      total += buffer.entries.length;
      oldest = Math.min(oldest, buffer.entries[0]!.at);
    }
    return { activeBuffers: active, totalBufferedMessages: total, oldestBufferAge: total === 0 ? 0 : Date.now() - oldest, flushesPerformed: this.flushes };
  }

  /** Starts the time trigger for the oldest item, unless one is pending. */
  private arm(buffer: PartitionBuffer): void {
    if (buffer.timer !== undefined || buffer.entries.length === 0 || this.closed) return;
    const wait = Math.max(0, buffer.options.timeMillis - (Date.now() - buffer.entries[0]!.at));
    buffer.timer = setTimeout(() => {
      buffer.timer = undefined;
      buffer.due = true;
      this.kick(buffer);
    }, wait);
  }

  /** Starts a background flush unless one runs; failures are logged and retried, never thrown. */
  private kick(buffer: PartitionBuffer): void {
    if (buffer.inflight || this.closed) return;
    buffer.inflight = this.background(buffer).finally(() => {
      buffer.inflight = undefined;
    });
  }

  private async background(buffer: PartitionBuffer): Promise<void> {
    while (buffer.entries.length > 0 && (buffer.due || buffer.entries.length >= buffer.options.messageCount)) {
      try {
        await this.sendChunk(buffer);
        buffer.retryMillis = 0;
      } catch (error) {
        buffer.retryMillis = buffer.retryMillis === 0 ? RETRY_FIRST_MILLIS : Math.min(buffer.retryMillis * 2, RETRY_MAX_MILLIS);
        this.logger.error('buffer flush failed, will retry', { buffer: buffer.key, retryInMillis: buffer.retryMillis, error: errorMessage(error) });
        clearTimeout(buffer.timer);
        buffer.due = true;
        buffer.timer = setTimeout(() => {
          buffer.timer = undefined;
          this.kick(buffer);
        }, buffer.retryMillis);
        return;
      }
    }
    if (buffer.entries.length === 0) buffer.due = false;
    else this.arm(buffer);
  }

  private async drain(buffer: PartitionBuffer): Promise<void> {
    while (buffer.inflight) await buffer.inflight;
    clearTimeout(buffer.timer);
    buffer.timer = undefined;
    const run = (async () => {
      while (buffer.entries.length > 0) await this.sendChunk(buffer);
      buffer.due = false;
      buffer.retryMillis = 0;
    })();
    buffer.inflight = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      await run;
    } finally {
      buffer.inflight = undefined;
      if (buffer.entries.length > 0) this.arm(buffer);
    }
  }

  /** Sends the first `messageCount` items; on failure they go back to the front. */
  private async sendChunk(buffer: PartitionBuffer): Promise<void> {
    const chunk = buffer.entries.splice(0, buffer.options.messageCount);
    let results;
    try {
      results = await sendPush(this.transport, chunk.map((e) => e.item));
    } catch (error) {
      buffer.entries.unshift(...chunk);
      throw error;
    }
    this.flushes += 1;
    buffer.waiters.splice(0).forEach((wake) => wake());
    // Each push's callbacks get their own items, in order.
    const groups = new Map<PushCallbacks<unknown>, number[]>();
    chunk.forEach((entry, i) => {
      const list = groups.get(entry.callbacks) ?? [];
      list.push(i);
      groups.set(entry.callbacks, list);
    });
    for (const [callbacks, positions] of groups) {
      try {
        const failed = await dispatchResults(
          positions.map((i) => chunk[i]!.item),
          positions.map((i) => results[i]!),
          callbacks,
        );
        if (failed.length > 0 && !callbacks.onError) this.logger.error('buffered push items failed', { buffer: buffer.key, failed: failed.length, error: failed[0]!.error });
      } catch (error) {
        this.logger.error('push callback threw', { buffer: buffer.key, error: errorMessage(error) });
      }
    }
  }
}
