/**
 * The message views (docs/api.md 7.4): the listing with its status filter, and the detail with per-group state.
 *
 * Status is derived per message from the cursors of its partition (core/message-status.ts), so a status
 * filter cannot be pushed into the page query: the listing then reads pages in order from one snapshot,
 * keeps the matching messages, skips the first `offset` matches and stops at `limit`, or after examining
 * MESSAGE_SCAN_MAX messages; the answer's cursor continues where it stopped. Without a status filter, offset
 * and limit go straight to the query.
 */
import { isUuid } from '../ids.js';
import { isStorableText } from './names.js';
import type { CursorFacts, DeadLetterFacts, ListedMessage, MessageFacts } from '../store/messages.js';
import {
  consumptionMode,
  groupView,
  isMessageStatus,
  leaseExpiry,
  messageStatus,
  retryCount,
  type ConsumptionMode,
  type GroupView,
  type StatusView,
} from './message-status.js';

/** How a message is named in a path: its partition id (lowercase UUID) and its transactionId. */
export interface MessageKey {
  partitionId: string;
  transactionId: string;
}

/**
 * The key of the message a path names, or null when it can name none: a partition id that is not a UUID, or
 * a transactionId PostgreSQL cannot store (NUL, unpaired surrogate). Look-ups of such keys miss instead of
 * failing (docs/api.md 1.9).
 */
export function messageKey(partitionId: string, transactionId: string): MessageKey | null {
  if (!isUuid(partitionId) || !isStorableText(transactionId)) return null;
  return { partitionId: partitionId.toLowerCase(), transactionId };
}

/**
 * The flags of a value a listing left out because its page's byte budget (LISTING_MAX_BYTES) was spent:
 * `<field>Omitted: true`, `<field>Bytes` (its stored size) and, when a route serves it in full, `<field>Url`.
 * `snake` writes `<field>_omitted` ... (the trace routes' keys).
 */
export function omittedFlags(field: string, bytes: number | null, url: string | null, snake = false): Record<string, unknown> {
  const key = (suffix: string): string => (snake ? `${field}_${suffix.toLowerCase()}` : `${field}${suffix}`);
  return { [key('Omitted')]: true, [key('Bytes')]: bytes, ...(url === null ? {} : { [key('Url')]: url }) };
}

/** A listed message with its derived state. */
export interface MessageSummary extends ListedMessage, StatusView {
  leaseExpiresAt: string | null;
}

/** Where a listing stopped: the last message it examined (newest-first order) and the matches still to skip. */
export interface ListPosition {
  /** The segment time as PostgreSQL renders it (microseconds), compared exactly. */
  at: string;
  partitionId: string;
  offset: number;
  /** Matches of the `offset` parameter not skipped yet when the scan stopped. */
  skip: number;
}

/** The reads a listing needs, all from one snapshot. */
export interface MessageListReader {
  /** A page of messages matching the filters other than status, newest first, after `after` when given. */
  page(params: { limit: number; offset: number; after: ListPosition | null }): Promise<ListedMessage[]>;
  /** The contacted groups of each partition. */
  cursors(partitionIds: string[]): Promise<Map<string, CursorFacts[]>>;
}

/** Messages read per page while filtering by status. */
const SCAN_PAGE = 1000;

/**
 * Messages one status-filtered listing examines at most (MESSAGE_SCAN_MAX in docs/configuration.md): past
 * it the answer holds the matches found so far and the cursor to continue from, so a rare status or a deep
 * offset costs bounded work per request.
 */
export const MESSAGE_SCAN_MAX = 20_000;

/** A page of the listing and where the next page starts (null: the listing is complete). */
export interface MessagePage {
  messages: MessageSummary[];
  next: ListPosition | null;
}

/**
 * Lists messages newest first; `status` (when given) keeps only messages in that state. Pages are read by
 * position (keyset: segment time, partition, offset), never by a growing OFFSET, from `after` when the
 * client passed the cursor of a previous page; a status-filtered scan stops after MESSAGE_SCAN_MAX messages.
 * `aborted` is checked between pages: a client that left stops the scan.
 */
export async function listMessages(
  reader: MessageListReader,
  params: { status: string | null; limit: number; offset: number; after: ListPosition | null; aborted?: () => boolean },
): Promise<MessagePage> {
  const { status, limit, after } = params;
  const cursors = new Map<string, CursorFacts[]>();
  const summarise = async (rows: ListedMessage[]): Promise<MessageSummary[]> => {
    const missing = [...new Set(rows.map((r) => r.partitionId))].filter((id) => !cursors.has(id));
    if (missing.length > 0) {
      const found = await reader.cursors(missing);
      for (const id of missing) cursors.set(id, found.get(id) ?? []);
    }
    return rows.map((row) => withState(row, cursors.get(row.partitionId)!));
  };
  const positionOf = (row: ListedMessage, skip: number): ListPosition => ({ at: row.at, partitionId: row.partitionId, offset: row.offset, skip });

  if (status === null) {
    const rows = await reader.page({ limit, offset: after === null ? params.offset : 0, after });
    return { messages: await summarise(rows), next: rows.length === limit ? positionOf(rows.at(-1)!, 0) : null };
  }
  if (!isMessageStatus(status)) return { messages: [], next: null };
  const matches: MessageSummary[] = [];
  let toSkip = after === null ? params.offset : after.skip;
  let position = after;
  for (let scanned = 0; scanned < MESSAGE_SCAN_MAX; ) {
    if (params.aborted?.() === true) break;
    const wanted = Math.min(SCAN_PAGE, MESSAGE_SCAN_MAX - scanned);
    const rows = await reader.page({ limit: wanted, offset: 0, after: position });
    const summaries = await summarise(rows);
    for (let i = 0; i < summaries.length; i++) {
      const message = summaries[i]!;
      position = positionOf(rows[i]!, toSkip);
      if (message.status !== status) continue;
      if (toSkip > 0) toSkip -= 1;
      else matches.push(message);
      if (matches.length === limit) return { messages: matches, next: { ...position, skip: 0 } };
    }
    scanned += rows.length;
    if (rows.length < wanted) return { messages: matches, next: null };
    position = { ...position!, skip: toSkip };
  }
  return { messages: matches, next: position === null ? null : { ...position, skip: toSkip } };
}

/** The cursor of a position, as the wire carries it (opaque: base64url of its JSON). */
export function encodeListPosition(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.partitionId, position.offset, position.skip])).toString('base64url');
}

/** The position of a cursor, or null when the text is no cursor this broker wrote. */
export function decodeListPosition(cursor: string): ListPosition | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 4) return null;
    const [at, partitionId, offset, skip] = value as unknown[];
    if (typeof at !== 'string' || !/^\d{4}-\d{2}-\d{2} [\d:.]+\+00$/.test(at) || typeof partitionId !== 'string' || !isUuid(partitionId)) return null;
    if (!Number.isSafeInteger(offset) || (offset as number) < 0 || !Number.isSafeInteger(skip) || (skip as number) < 0) return null;
    return { at, partitionId: partitionId.toLowerCase(), offset: offset as number, skip: skip as number };
  } catch {
    return null;
  }
}

function withState(row: ListedMessage, cursors: CursorFacts[]): MessageSummary {
  const views = cursors.map((c) => groupView(row.offset, c, []));
  return { ...row, ...messageStatus(row.offset, cursors, row.deadLetterGroups), leaseExpiresAt: leaseExpiry(views) };
}

/** The message detail's derived fields. */
export interface MessageDetail {
  status: StatusView['status'];
  errorMessage: string | null;
  retryCount: number;
  leaseExpiresAt: string | null;
  mode: ConsumptionMode & { consumedByGroups: number };
  consumerGroups: GroupView[];
}

/** Derives the detail's state from the stored facts of one message. */
export function describeMessage(facts: MessageFacts): MessageDetail {
  const k = facts.offset;
  const deadLetters: DeadLetterFacts[] = facts.deadLetters;
  const views = facts.cursors.map((c) => groupView(k, c, deadLetters));
  const { status, busStatus } = messageStatus(k, facts.cursors, deadLetters.map((d) => d.group));
  const mode = consumptionMode(facts.hasQueueMode, facts.busGroupsCount);
  return {
    status,
    errorMessage: deadLetters.at(-1)?.errorMessage ?? null,
    retryCount: retryCount(views),
    leaseExpiresAt: leaseExpiry(views),
    mode: { hasQueueMode: mode.hasQueueMode, busGroupsCount: mode.busGroupsCount, consumedByGroups: busStatus.consumedBy, type: mode.type },
    consumerGroups: views,
  };
}
