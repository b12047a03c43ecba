/**
 * Peek (docs/client.md "Peek"): reads a queue's messages without claiming them, like `kcat -C -o -N`. The newest
 * `last` messages come first (oldest first), then with `follow` every message pushed after them, found by
 * polling the message listing from the newest one seen (messages of one push share a millisecond, so the poll
 * starts a millisecond before it and skips what was already yielded). Each message's payload comes from its
 * detail; no consumer group, no lease: nothing shows as processing, and a message deleted meanwhile is skipped.
 */
import { getMessage, listMessages, type MessageDetail, type MessageListQuery, type MessageListRow } from './api/messages.js';
import type { ApiRequester, CallOptions } from './api/route.js';
import { QueenError } from './errors.js';
import { sleep } from './retry.js';

/** The most messages one look asks for (the listing's maximum). */
const PAGE = 1000;

/** Options of `peek()`. */
export interface PeekOptions {
  /** How many of the newest messages to yield first (default 10, at most 1000). */
  last?: number;
  /** Keep yielding the messages pushed afterwards (default false: stop after the newest). */
  follow?: boolean;
  /** With `follow`: stop after this long without a new message (0, the default: never). */
  idleMillis?: number;
  /** With `follow`: how often the listing is polled (default 500 ms). */
  intervalMillis?: number;
  /** Aborting it ends the iteration (no error). */
  signal?: AbortSignal;
}

/** One peeked message: its listing row (status, partition, trace) and its detail (payload, per-group state). */
export interface PeekedMessage {
  row: MessageListRow;
  detail: MessageDetail;
}

/** The messages of `queue` (one `partition` when given) as {@link PeekOptions} says, without claiming any. */
export async function* peek(http: ApiRequester, where: { queue: string; partition?: string | undefined }, options: PeekOptions = {}): AsyncGenerator<PeekedMessage> {
  const { last = 10, follow = false, idleMillis = 0, intervalMillis = 500, signal } = options;
  const call: CallOptions = signal === undefined ? {} : { signal };
  const aborted = (): boolean => signal?.aborted === true;
  const base: MessageListQuery = { queue: where.queue, ...(where.partition === undefined ? {} : { partition: where.partition }) };
  const yielded = new Map<string, number>(); // id -> createdAt (ms), pruned below the cursor
  let cursor = 0; // createdAt (ms) of the newest message seen
  const seen = (row: MessageListRow): void => {
    const at = Date.parse(row.createdAt);
    yielded.set(row.id, at);
    cursor = Math.max(cursor, at);
  };
  // An abort ends the iteration quietly; any other failure is the caller's to see.
  const list = (from: number): Promise<MessageListRow[] | null> =>
    listMessages(http, { ...base, from: new Date(from).toISOString(), limit: PAGE }, call).then((page) => page.messages, (error: unknown) => {
      if (aborted() && error instanceof QueenError && error.code === 'ABORTED') return null;
      throw error;
    });
  async function* details(rows: MessageListRow[]): AsyncGenerator<PeekedMessage> {
    for (const row of rows) {
      if (aborted()) return;
      const detail = await getMessage(http, row.partitionId, row.transactionId, call).catch(() => null);
      if (detail === null || 'error' in detail) continue; // deleted or evicted meanwhile
      seen(row);
      yield { row, detail };
    }
  }

  const newest = await list(0);
  if (newest === null) return;
  yield* details(newest.slice(0, Math.min(Math.max(0, last), PAGE)).reverse());
  newest.forEach(seen); // the follow starts after all of them
  let lastMessageAt = Date.now();
  while (follow && !aborted()) {
    if (idleMillis > 0 && Date.now() - lastMessageAt >= idleMillis) return;
    await sleep(intervalMillis, signal).catch(() => undefined);
    const rows = aborted() ? null : await list(Math.max(cursor - 1, 0));
    if (rows === null) return;
    const fresh = rows.filter((row) => !yielded.has(row.id)).reverse();
    if (fresh.length === 0) continue;
    yield* details(fresh);
    lastMessageAt = Date.now();
    for (const [id, at] of yielded) if (at < cursor - 1) yielded.delete(id);
  }
}
