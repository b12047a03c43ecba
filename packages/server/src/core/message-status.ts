/**
 * Per-message state of the message views (docs/api.md 7.4), derived from the cursors that contacted the
 * message's partition and the message's DLQ entries. Pure: no HTTP, no SQL.
 *
 * For a message at offset k and one (partition, group) with committed offset c:
 *   dead_letter  the group has a DLQ entry for the message
 *   completed    k <= c
 *   processing   k inside the group's live lease span (c, spanEnd]
 *   pending      otherwise
 * `queueStatus` is queue mode's view (null when queue mode never contacted the partition). `status` is queue
 * mode's view when queue mode contacted the partition, otherwise the combined view of the named groups
 * (dead_letter if any dead-lettered it, completed if all passed it, processing if any holds it, else
 * pending). A partition nobody contacted yet is `pending`: the message waits for its first consumer.
 */
import type { CursorFacts, DeadLetterFacts } from '../store/messages.js';
import { QUEUE_MODE } from './names.js';

/** The four message states. */
export type MessageStatus = 'pending' | 'processing' | 'completed' | 'dead_letter';

const STATUSES: ReadonlySet<string> = new Set<MessageStatus>(['pending', 'processing', 'completed', 'dead_letter']);

/** True for one of the four message states. */
export function isMessageStatus(value: string): value is MessageStatus {
  return STATUSES.has(value);
}

/** The status fields of a listed message. */
export interface StatusView {
  status: MessageStatus;
  queueStatus: MessageStatus | null;
  busStatus: { consumedBy: number; totalGroups: number };
}

/** Who consumes a queue: queue mode, named groups (bus), both (hybrid) or nobody yet. */
export interface ConsumptionMode {
  hasQueueMode: boolean;
  busGroupsCount: number;
  type: 'queue' | 'bus' | 'hybrid' | 'none';
}

/** One group's view of a message (message detail, `consumerGroups`). */
export interface GroupView {
  name: string;
  consumed: boolean;
  leaseExpiresAt: string | null;
  retryCount: number;
  deliveryAttempts: number | null;
}

/** True when offset k lies in the group's live lease span (committed, spanEnd]. */
function inLiveSpan(k: number, cursor: CursorFacts): boolean {
  return cursor.liveSpanEnd !== null && k > cursor.committed && k <= cursor.liveSpanEnd;
}

function groupStatus(k: number, cursor: CursorFacts, deadLettered: boolean): MessageStatus {
  if (deadLettered) return 'dead_letter';
  if (k <= cursor.committed) return 'completed';
  return inLiveSpan(k, cursor) ? 'processing' : 'pending';
}

/** status, queueStatus and busStatus of the message at offset k. `deadLetterGroups`: groups with a DLQ entry for it. */
export function messageStatus(k: number, cursors: CursorFacts[], deadLetterGroups: readonly string[]): StatusView {
  const queueMode = cursors.find((c) => c.group === QUEUE_MODE);
  const named = cursors.filter((c) => c.group !== QUEUE_MODE);
  const queueStatus = queueMode === undefined ? null : groupStatus(k, queueMode, deadLetterGroups.includes(QUEUE_MODE));
  const busStatus = { consumedBy: named.filter((c) => c.committed >= k).length, totalGroups: named.length };
  let status: MessageStatus;
  if (queueStatus !== null || named.length === 0) status = queueStatus ?? 'pending';
  else if (named.some((c) => deadLetterGroups.includes(c.group))) status = 'dead_letter';
  else if (named.every((c) => c.committed >= k)) status = 'completed';
  else if (named.some((c) => inLiveSpan(k, c))) status = 'processing';
  else status = 'pending';
  return { status, queueStatus, busStatus };
}

/** The consumption mode of a queue from who contacted its partitions. */
export function consumptionMode(hasQueueMode: boolean, busGroupsCount: number): ConsumptionMode {
  const type = hasQueueMode ? (busGroupsCount > 0 ? 'hybrid' : 'queue') : busGroupsCount > 0 ? 'bus' : 'none';
  return { hasQueueMode, busGroupsCount, type };
}

/**
 * One group's view of the message at offset k.
 *   retryCount: the group's retry counter when the message is its head; the count recorded by its (latest)
 *     DLQ entry when it dead-lettered the message; else 0.
 *   deliveryAttempts: null once consumed. Otherwise the claims since the cursor last advanced: every such
 *     claim started at the head, so the count is exact for the head and an upper bound after it (0: not
 *     delivered since the cursor last moved). A message inside the last recorded span was delivered at
 *     least once, even when the cursor has advanced since (partial acks reset the count).
 */
export function groupView(k: number, cursor: CursorFacts, deadLetters: readonly DeadLetterFacts[]): GroupView {
  const consumed = k <= cursor.committed;
  const entry = deadLetters.filter((d) => d.group === cursor.group).at(-1);
  const retryCount = entry !== undefined ? entry.retryCount : cursor.head === k ? cursor.retryCount : 0;
  let deliveryAttempts: number | null = null;
  if (!consumed) {
    const inRecordedSpan = cursor.recordedSpanEnd !== null && k <= cursor.recordedSpanEnd;
    deliveryAttempts = inRecordedSpan ? Math.max(cursor.claimsSinceAdvance, 1) : cursor.claimsSinceAdvance;
  }
  return { name: cursor.group, consumed, leaseExpiresAt: inLiveSpan(k, cursor) ? cursor.leaseExpiresAt : null, retryCount, deliveryAttempts };
}

/** The message-level lease expiry: queue mode's when it contacted the partition, else the latest over groups. */
export function leaseExpiry(views: readonly GroupView[]): string | null {
  const queueMode = views.find((v) => v.name === QUEUE_MODE);
  if (queueMode !== undefined) return queueMode.leaseExpiresAt;
  // Millisecond ISO strings in one format order like the instants they name.
  return views.reduce<string | null>((latest, v) => (v.leaseExpiresAt !== null && (latest === null || v.leaseExpiresAt > latest) ? v.leaseExpiresAt : latest), null);
}

/** The message-level retry count: queue mode's when it contacted the partition, else the highest over groups. */
export function retryCount(views: readonly GroupView[]): number {
  const queueMode = views.find((v) => v.name === QUEUE_MODE);
  if (queueMode !== undefined) return queueMode.retryCount;
  return views.reduce((highest, v) => Math.max(highest, v.retryCount), 0);
}
