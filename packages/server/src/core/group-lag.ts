/**
 * Lag and health of consumer groups (docs/api.md 7.7, and the lag figures of 7.2), from cursor facts.
 *
 * Offset lag of a (partition, group): the retained messages above its cursor (a partition the group has not
 * touched yet: above where it will start, so the lag does not jump when the group reaches it). Time lag: whole
 * seconds since the head's createdAt, 0 when caught up. A group's state over one queue: `Dead` when none of its pairs nor
 * its subscription records saw activity for 24 h, else `Lagging` when its largest time lag exceeds 300 s,
 * else `Stable`. "Activity" is what the cursor records: a claim, an ack, or the first contact.
 */
import type { GroupCursorFacts, GroupSubscription } from '../store/consumer-groups.js';

/** No activity for this long: `Dead`. */
export const DEAD_AFTER_SECONDS = 24 * 3600;
/** A largest time lag above this: `Lagging`. */
export const LAGGING_AFTER_SECONDS = 300;

/** The lag of one (partition, group). */
export interface PairLag {
  offsetLag: number;
  timeLagSeconds: number;
}

/** Lag of one pair: retained messages above the cursor and the head's age (0 when caught up). */
export function pairLag(facts: GroupCursorFacts): PairLag {
  const offsetLag = Number(facts.offsetLag);
  const timeLagSeconds = offsetLag > 0 && facts.headAgeSeconds !== null ? Math.max(0, facts.headAgeSeconds) : 0;
  return { offsetLag, timeLagSeconds };
}

/** Group state from its largest time lag and its most recent activity. */
export type GroupState = 'Dead' | 'Lagging' | 'Stable';

/** One element of `GET …/consumer-groups`: a group on one queue. */
export interface GroupSummary {
  name: string;
  topics: string[];
  queueName: string;
  members: number;
  partitionsWithLag: number;
  totalLag: number;
  maxTimeLag: number;
  state: GroupState;
  subscriptionMode: 'all' | 'new' | 'timestamp';
  subscriptionTimestamp: string | null;
  subscriptionCreatedAt: string | null;
}

/** The state rule of docs/api.md 7.7. */
export function groupState(idleSeconds: number, maxTimeLag: number): GroupState {
  if (idleSeconds >= DEAD_AFTER_SECONDS) return 'Dead';
  return maxTimeLag > LAGGING_AFTER_SECONDS ? 'Lagging' : 'Stable';
}

/**
 * One summary per (group, queue) known from a cursor or a subscription record, ordered by group then
 * queue. Members are the contacted partitions; lag covers every partition of the queue, the untouched ones
 * from where the group will start; the subscription fields come from the queue-wide record.
 */
export function groupSummaries(cursors: GroupCursorFacts[], subscriptions: GroupSubscription[]): GroupSummary[] {
  interface Entry { group: string; queue: string; lags: PairLag[]; members: number; idle: number; record: GroupSubscription | null }
  const entries = new Map<string, Entry>();
  const entry = (group: string, queue: string): Entry => {
    const key = JSON.stringify([group, queue]);
    let found = entries.get(key);
    if (found === undefined) {
      found = { group, queue, lags: [], members: 0, idle: Infinity, record: null };
      entries.set(key, found);
    }
    return found;
  };
  for (const c of cursors) {
    const e = entry(c.group, c.queue);
    e.lags.push(pairLag(c));
    if (c.contacted) e.members += 1;
    if (c.idleSeconds !== null) e.idle = Math.min(e.idle, c.idleSeconds);
  }
  for (const s of subscriptions) {
    const e = entry(s.group, s.queue);
    e.idle = Math.min(e.idle, s.idleSeconds);
    if (s.partitionName === '') e.record = s;
  }
  const ordered = [...entries.values()].sort((a, b) => compare(a.group, b.group) || compare(a.queue, b.queue));
  return ordered.map(({ group, queue, lags, members, idle, record }) => {
    const maxTimeLag = lags.reduce((max, l) => Math.max(max, l.timeLagSeconds), 0);
    return {
      name: group,
      topics: [queue],
      queueName: queue,
      members,
      partitionsWithLag: lags.filter((l) => l.offsetLag > 0).length,
      totalLag: lags.reduce((sum, l) => sum + l.offsetLag, 0),
      maxTimeLag,
      state: groupState(idle, maxTimeLag),
      subscriptionMode: record?.mode ?? 'all',
      subscriptionTimestamp: record?.subscribedFrom ?? null,
      subscriptionCreatedAt: record?.createdAt ?? null,
    };
  });
}

/** A pair that lags, with its figures; `lagHours` is the time lag in hours, rounded to 2 decimals. */
export interface LaggingPair {
  facts: GroupCursorFacts;
  lag: PairLag;
  lagHours: number;
}

/** Pairs with unconsumed messages whose time lag is at least `minLagSeconds`, largest time lag first. */
export function laggingPairs(cursors: GroupCursorFacts[], minLagSeconds: number): LaggingPair[] {
  return cursors
    .map((facts) => {
      const lag = pairLag(facts);
      return { facts, lag, lagHours: round2(lag.timeLagSeconds / 3600) };
    })
    .filter(({ lag }) => lag.offsetLag > 0 && lag.timeLagSeconds >= minLagSeconds)
    .sort((a, b) => b.lag.timeLagSeconds - a.lag.timeLagSeconds || b.lag.offsetLag - a.lag.offsetLag);
}

/** avg, median, min and max of a sample (all 0 for an empty one); avg and median rounded to 2 decimals. */
export interface Statistics {
  avg: number;
  median: number;
  min: number;
  max: number;
}

/** Summary statistics of lag values. */
export function statistics(values: number[]): Statistics {
  if (values.length === 0) return { avg: 0, median: 0, min: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const avg = sorted.reduce((sum, v) => sum + v, 0) / sorted.length;
  return { avg: round2(avg), median: round2(median), min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** Plain string order, independent of the locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
