/**
 * The message views (API.md 7.4): the listing with its status filter, and the detail with per-group state.
 *
 * Status is derived per message from the cursors of its partition (core/message-status.ts), so a status
 * filter cannot be pushed into the page query: the listing then reads pages in order from one snapshot,
 * keeps the matching messages, skips the first `offset` matches and stops at `limit`. Without a status
 * filter, offset and limit go straight to the query.
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
 * failing (API.md 1.9).
 */
export function messageKey(partitionId: string, transactionId: string): MessageKey | null {
  if (!isUuid(partitionId) || !isStorableText(transactionId)) return null;
  return { partitionId: partitionId.toLowerCase(), transactionId };
}

/** The path of the message route that serves one message in full (API.md 7.4). */
export function messagePath(partitionId: string, transactionId: string): string {
  return `/api/v1/messages/${partitionId}/${encodeURIComponent(transactionId)}`;
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

/** The reads a listing needs, all from one snapshot. */
export interface MessageListReader {
  /** A page of messages matching the filters other than status, newest first. */
  page(params: { limit: number; offset: number }): Promise<ListedMessage[]>;
  /** The contacted groups of each partition. */
  cursors(partitionIds: string[]): Promise<Map<string, CursorFacts[]>>;
}

/** Messages read per page while filtering by status. */
const SCAN_PAGE = 1000;

/** Lists messages newest first; `status` (when given) keeps only messages in that state. */
export async function listMessages(
  reader: MessageListReader,
  params: { status: string | null; limit: number; offset: number },
): Promise<MessageSummary[]> {
  const { status, limit, offset } = params;
  const cursors = new Map<string, CursorFacts[]>();
  const summarise = async (rows: ListedMessage[]): Promise<MessageSummary[]> => {
    const missing = [...new Set(rows.map((r) => r.partitionId))].filter((id) => !cursors.has(id));
    if (missing.length > 0) {
      const found = await reader.cursors(missing);
      for (const id of missing) cursors.set(id, found.get(id) ?? []);
    }
    return rows.map((row) => withState(row, cursors.get(row.partitionId)!));
  };

  if (status === null) return summarise(await reader.page({ limit, offset }));
  if (!isMessageStatus(status)) return [];
  const matches: MessageSummary[] = [];
  let skipped = 0;
  for (let position = 0; matches.length < limit; position += SCAN_PAGE) {
    const rows = await reader.page({ limit: SCAN_PAGE, offset: position });
    for (const message of await summarise(rows)) {
      if (message.status !== status) continue;
      if (skipped < offset) skipped += 1;
      else if (matches.length < limit) matches.push(message);
    }
    if (rows.length < SCAN_PAGE) break;
  }
  return matches;
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
