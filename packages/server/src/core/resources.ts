/**
 * The summaries of the resource routes (docs/api.md 7.2), from partition facts, cursor facts and the activity
 * sample. Every count is computed directly from the current state (`statsAge` 0); see core/queue-stats.ts
 * for the message counts and core/group-lag.ts for the lag of a (partition, group).
 */
import type { GroupCursorFacts } from '../store/consumer-groups.js';
import type { LocatedPartitionFacts } from '../store/queues.js';
import type { ActivitySample, QueueListing } from '../store/resources.js';
import { pairLag, statistics, type Statistics } from './group-lag.js';
import { partitionCounts, sumCounts, type MessageCounts } from './queue-stats.js';

/** Message counts per queue id, summed over the queue's partitions (queues without facts are absent). */
export function countsByQueue(facts: LocatedPartitionFacts[]): Map<string, MessageCounts> {
  const perQueue = new Map<string, MessageCounts[]>();
  for (const f of facts) {
    const list = perQueue.get(f.queueId) ?? [];
    list.push(partitionCounts(f));
    perQueue.set(f.queueId, list);
  }
  return new Map([...perQueue].map(([queueId, counts]) => [queueId, sumCounts(counts)]));
}

const NO_MESSAGES: MessageCounts = sumCounts([]);

/** The counts of one queue (all zero when it has no partition). */
export function queueCounts(counts: Map<string, MessageCounts>, queueId: string): MessageCounts {
  return counts.get(queueId) ?? NO_MESSAGES;
}

/** One namespace or task: how many queues and partitions it has, and their messages. */
export interface ScopeSummary {
  name: string;
  queues: number;
  partitions: number;
  messages: { total: number; pending: number };
}

/**
 * Queues grouped by namespace or by task, in name order. Queues whose value is `""` (no task, or a
 * namespace configured empty) belong to no group.
 */
export function scopeSummaries(queues: QueueListing[], counts: Map<string, MessageCounts>, key: 'namespace' | 'task'): ScopeSummary[] {
  const scopes = new Map<string, ScopeSummary>();
  for (const queue of queues) {
    const name = queue[key];
    if (name === '') continue;
    const scope = scopes.get(name) ?? { name, queues: 0, partitions: 0, messages: { total: 0, pending: 0 } };
    const c = queueCounts(counts, queue.id);
    scope.queues += 1;
    scope.partitions += queue.partitions;
    scope.messages.total += c.total;
    scope.messages.pending += c.pending;
    scopes.set(name, scope);
  }
  return [...scopes.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The body of `GET …/resources/overview`. */
export interface Overview {
  queues: number;
  partitions: number;
  namespaces: number;
  tasks: number;
  messages: MessageCounts;
  lag: { time: Statistics; offset: Statistics };
  throughput: { ingestedPerSecond: number; processedPerSecond: number };
  timestamp: string;
  statsAge: number;
}

/**
 * The overview: totals over every queue; lag statistics over every contacted (partition, group), caught-up
 * pairs included (time lag in seconds since the head's createdAt, offset lag in messages); throughput as
 * the activity sample's counts per second.
 */
export function overview(queues: QueueListing[], facts: LocatedPartitionFacts[], cursors: GroupCursorFacts[], sample: ActivitySample): Overview {
  const lags = cursors.map(pairLag);
  const perSecond = (n: number): number => Math.round((n / sample.windowSeconds) * 100) / 100;
  return {
    queues: queues.length,
    partitions: facts.length,
    namespaces: new Set(queues.map((q) => q.namespace).filter((n) => n !== '')).size,
    tasks: new Set(queues.map((q) => q.task).filter((t) => t !== '')).size,
    messages: sumCounts(facts.map(partitionCounts)),
    lag: { time: statistics(lags.map((l) => l.timeLagSeconds)), offset: statistics(lags.map((l) => l.offsetLag)) },
    throughput: { ingestedPerSecond: perSecond(sample.ingested), processedPerSecond: perSecond(sample.processed) },
    timestamp: sample.timestamp,
    statsAge: 0,
  };
}
