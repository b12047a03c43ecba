/**
 * Sealing on the write path (docs/api.md 9.6): the one step every append goes through (push, transactions, and
 * whatever else is handed the wrapped append function, such as the failover replay).
 *
 * The broker must know a queue's `encryptionEnabled` before it sends a payload, so that plaintext never
 * travels to the database for an encrypted queue. It keeps a per-process view of that flag
 * (`QueueEncryptionView`): entries are read from `queen.queues` on first use, dropped when a configure or
 * delete of the queue is announced (by this process, or by another one over LISTEN/NOTIFY), and re-read at
 * least every 60 s (docs/api.md 9.2), so a lost notification heals.
 *
 * A view can still be stale for a moment. Correctness does not depend on it: `queen.push_messages` refuses
 * plaintext items for an encrypted queue when the calling session holds the key (status `unsealed`, nothing
 * written). The wrapped append then drops the view of those queues, reads it again and re-submits exactly
 * the refused items, sealed. A stale view the other way (queue no longer encrypted) only seals a few
 * messages that did not need it, which is harmless: every message carries its own flag.
 */
import type { Store } from '../store/index.js';
import type { QueueEncryptionFlags } from '../store/queues.js';
import type { AppendItem, AppendResult } from '../store/segments.js';
import { isSealed, type PayloadCipher } from './payload-cipher.js';

/** How long a queue's flag is trusted without a notification (docs/api.md 9.2: at least every 60 s). */
const VIEW_TTL_MS = 60_000;
/** Queues remembered at most; the oldest entry goes first. */
const VIEW_MAX_ENTRIES = 10_000;
/** Appends of items the database refused as unsealed (a view that was stale each time) before giving up. */
const SEAL_ATTEMPTS = 3;
/** The per-item error when the queue's flag kept changing under the push. */
export const SEAL_RETRY_ERROR = 'Queue encryption setting changed during the push; retry';

/** An append function: items in, one result per item out, in item order. */
export type AppendFunction = (items: AppendItem[]) => Promise<AppendResult[]>;

/**
 * The sealing step every append goes through (push, transactions, streams sinks, the failover replay): a
 * `PayloadSealer`, or `NO_SEALING` when no QUEEN_ENCRYPTION_KEY is configured.
 */
export interface Sealing {
  /** The append function with the sealing step around it. */
  wrap(append: AppendFunction): AppendFunction;
}

/** The sealing step without a key: appends go through unchanged. */
export const NO_SEALING: Sealing = { wrap: (append) => append };

/**
 * This process's view of the queues' encryption flags: `encryptionEnabled` now (the write path seals by it) and
 * whether the queue ever had it (a pop may then meet sealed payloads, core/pop-payloads.ts).
 */
export class QueueEncryptionView {
  private readonly entries = new Map<string, QueueEncryptionFlags & { readAt: number }>();
  private hitCount = 0;
  private missCount = 0;

  /** `queueEncryptionFlags` reads the flags of the named queues; a queue it does not return does not exist (never encrypted). */
  constructor(
    private readonly store: Pick<Store, 'queueEncryptionFlags'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The queues among `names` that have encryption enabled. */
  async encryptedAmong(names: Iterable<string>): Promise<Set<string>> {
    const flags = await this.flagsOf(names);
    return new Set([...flags].filter(([, f]) => f.enabled).map(([name]) => name));
  }

  /** Whether the queue may hold sealed payloads (it had encryption enabled at some point). */
  async mayHoldSealed(name: string): Promise<boolean> {
    return (await this.flagsOf([name])).get(name)!.used;
  }

  /** Drops what is known of a queue (it was configured or deleted): the next use reads it again. */
  forget(name: string): void {
    this.entries.delete(name);
  }

  /** Size and hit counts, for monitoring. */
  stats(): { size: number; hits: number; misses: number } {
    return { size: this.entries.size, hits: this.hitCount, misses: this.missCount };
  }

  private async flagsOf(names: Iterable<string>): Promise<Map<string, QueueEncryptionFlags>> {
    const flags = new Map<string, QueueEncryptionFlags>();
    const missing: string[] = [];
    const now = this.now();
    for (const name of new Set(names)) {
      const entry = this.entries.get(name);
      if (entry !== undefined && now - entry.readAt < VIEW_TTL_MS) {
        this.hitCount += 1;
        flags.set(name, entry);
      } else {
        this.missCount += 1;
        missing.push(name);
      }
    }
    if (missing.length === 0) return flags;
    const loaded = await this.store.queueEncryptionFlags({ names: missing });
    for (const name of missing) {
      const read = loaded.get(name) ?? { enabled: false, used: false };
      this.remember(name, read, now);
      flags.set(name, read);
    }
    return flags;
  }

  private remember(name: string, flags: QueueEncryptionFlags, readAt: number): void {
    this.entries.delete(name); // re-insert: Map order is the eviction order
    if (this.entries.size >= VIEW_MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(name, { enabled: flags.enabled, used: flags.used, readAt });
  }
}

/** Seals the payloads of items bound for encrypted queues, before they are sent to the database. */
export class PayloadSealer implements Sealing {
  constructor(
    private readonly cipher: PayloadCipher,
    readonly view: QueueEncryptionView,
  ) {}

  /** The items with the payload of every item bound for an encrypted queue sealed (others unchanged). */
  async seal(items: AppendItem[]): Promise<AppendItem[]> {
    if (items.length === 0) return items;
    const encrypted = await this.view.encryptedAmong(items.map((item) => item.queue));
    if (encrypted.size === 0) return items;
    return items.map((item) =>
      encrypted.has(item.queue) && !isSealed(item.payload) ? { ...item, payload: this.cipher.seal(item.payload) } : item);
  }

  /**
   * Wraps an append function: seal, append, and re-submit (sealed, after re-reading the view) the items the
   * database refused as plaintext for an encrypted queue. Nothing was written for a refused item, and every
   * item of one queue in one call is refused together, so a re-submission keeps each partition's items
   * consecutive and in order. The result never carries the internal `unsealed` status.
   */
  wrap(append: AppendFunction): AppendFunction {
    return async (items) => {
      const results = await append(await this.seal(items));
      let refused = indicesOf(results);
      for (let attempt = 1; refused.length > 0 && attempt < SEAL_ATTEMPTS; attempt++) {
        for (const i of refused) this.view.forget(items[i]!.queue);
        const retried = await append(await this.seal(refused.map((i) => items[i]!)));
        refused.forEach((i, k) => (results[i] = retried[k]!));
        refused = indicesOf(results);
      }
      for (const i of refused) results[i] = { ...results[i]!, status: 'failed', messageId: null, error: SEAL_RETRY_ERROR };
      return results;
    };
  }
}

function indicesOf(results: AppendResult[]): number[] {
  const indices: number[] = [];
  results.forEach((result, i) => {
    if (result.status === 'unsealed') indices.push(i);
  });
  return indices;
}
