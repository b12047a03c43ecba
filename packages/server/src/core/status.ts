/**
 * The bodies of the status routes (docs/api.md 7.10), from facts read by store/: counter series, queue
 * summaries, message counts (core/queue-stats.ts), lease and DLQ summaries, process rows.
 *
 * Definitions (docs/monitoring.md): `ingested` = messages pushed, `processed` = messages acked `completed`
 * (autoAck deliveries included); per-second rates divide by the bucket length; lag is pop time minus segment
 * createdAt, averaged over the bucket's popped messages; `batchEfficiency` is messages per request.
 * Message counts are computed on demand, so `statsAge` is 0.
 */
import type { Wire } from '@queen/client/api';
import type { OpCounters } from '../store/stats.js';
import { addCounters, emptyCounters } from './counters.js';
import type { ServerHealth, ServerRow } from '../store/heartbeats.js';
import type { PartitionFacts, QueueRow } from '../store/queues.js';
import type { CounterPoint, PendingPoint } from '../store/stats.js';
import type { DeadLetterSummaryRow, LeaseSummaryRow, PartitionActivityRow, QueueSummaryRow } from '../store/status.js';
import type { GroupCursorFacts } from '../store/consumer-groups.js';
import { pairLag } from './group-lag.js';
import { groupCounts, partitionCounts, referenceCursor, sumCounts, type MessageCounts } from './queue-stats.js';
import { wireRange, type TimeRange } from './time-range.js';

const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

/** `part / whole`, or 0 when nothing happened. */
export function ratio(part: number, whole: number): number {
  return whole > 0 ? round(part / whole, 2) : 0;
}

/** The sum of a series. */
export function sumPoints(points: readonly OpCounters[]): OpCounters {
  const total = emptyCounters();
  for (const point of points) addCounters(total, point);
  return total;
}

/** Average lag (ms) of the messages popped in a bucket, 0 when none were. */
export function averageLagMs(point: OpCounters): number {
  return point.popMessages > 0 ? Math.round(point.lagSumMs / point.popMessages) : 0;
}

/** A process as the status routes list it. */
export function workerWire(row: ServerRow): { workerId: string; hostname: string; pid: number; lastSeen: string } {
  return { workerId: row.serverId, hostname: row.hostname, pid: row.pid, lastSeen: row.lastHeartbeatAt };
}

/** Cluster health under the snake_case keys of `shared_state.server_health` (docs/api.md 4.1). */
export function serverHealthWire(health: ServerHealth): Wire<'Health'>['shared_state']['server_health'] {
  return {
    servers_tracked: health.serversTracked,
    servers_alive: health.serversAlive,
    servers_dead: health.serversDead,
    heartbeats_received: health.heartbeatsReceived,
    restarts_detected: health.restartsDetected,
  };
}

/** Everything `GET …/status` is made of. */
export interface StatusFacts {
  range: TimeRange;
  points: CounterPoint[];
  queues: QueueSummaryRow[];
  counts: MessageCounts;
  leases: LeaseSummaryRow;
  deadLetters: DeadLetterSummaryRow;
  workers: ServerRow[];
  /** The installation's pending messages per bucket (empty for a filtered status). */
  pending: PendingPoint[];
}

/** The body of `GET …/status`. */
export function statusBody(facts: StatusFacts): Wire<'Status'> {
  const { range, points } = facts;
  const bucketSeconds = range.bucketMinutes * 60;
  const total = sumPoints(points);
  return {
    timeRange: wireRange(range),
    bucketMinutes: range.bucketMinutes,
    pointCount: points.length,
    throughput: points.map((p) => ({
      timestamp: p.bucket,
      ingested: p.pushMessages,
      processed: p.ackCompleted,
      ingestedPerSecond: round(p.pushMessages / bucketSeconds),
      processedPerSecond: round(p.ackCompleted / bucketSeconds),
      avgLagMs: averageLagMs(p),
      maxLagMs: p.lagMaxMs,
    })),
    queues: facts.queues.map((q) => ({
      id: q.id, name: q.name, namespace: q.namespace, task: q.task, partitions: q.partitions, totalConsumed: q.totalConsumed,
    })),
    messages: {
      ...facts.counts,
      requests: { push: total.pushRequests, pop: total.popRequests, ack: total.ackRequests },
      batchEfficiency: {
        push: ratio(total.pushMessages, total.pushRequests),
        pop: ratio(total.popMessages, total.popRequests),
        ack: ratio(total.ackMessages, total.ackRequests),
      },
    },
    leases: {
      active: facts.leases.active,
      partitionsWithLeases: facts.leases.partitionsWithLeases,
      totalBatchSize: facts.leases.totalBatchSize,
      // Acks inside a live span move the cursor and leave no trace of the span's start: not tracked.
      totalAcked: null,
    },
    deadLetterQueue: {
      totalMessages: facts.deadLetters.totalMessages,
      affectedPartitions: facts.deadLetters.affectedPartitions,
      topErrors: facts.deadLetters.topErrors,
    },
    workers: facts.workers.map(workerWire),
    errors: { dbErrors: total.dbErrors, ackFailed: total.ackFailed, dlqMessages: total.dlqMoved },
    pendingHistory: facts.pending.map((p) => ({ timestamp: p.bucket, pending: p.pending })),
    statsAge: 0,
  };
}

/**
 * Messages pushed within the last hour that the reference cursor has passed: the partition's messages from
 * `firstRecentOffset` on, up to the reference cursor. (The broker keeps no history of cursor movements, so a
 * group draining an older backlog is not counted here; see docs/decisions.md.)
 */
export function consumedSince(facts: PartitionFacts, firstRecentOffset: number | null): number {
  if (firstRecentOffset === null) return 0;
  const reference = Math.min(referenceCursor(facts), Number(facts.tail));
  return Math.max(0, reference - (firstRecentOffset - 1));
}

/**
 * Per consumer group of a queue: its own completed / processing / pending counts and its time lag (the age of
 * the oldest message it has not consumed), every partition counted, untouched ones from where it will start.
 */
export function queueGroupsWire(facts: readonly PartitionFacts[], pairs: readonly GroupCursorFacts[]): Wire<'StatusQueue'>['consumerGroups'] {
  const timeLag = new Map<string, number>();
  for (const p of pairs) timeLag.set(p.group, Math.max(timeLag.get(p.group) ?? 0, pairLag(p).timeLagSeconds));
  return groupCounts(facts).map((g) => ({
    name: g.name, completed: g.completed, processing: g.processing, pending: g.pending, partitions: g.partitions,
    timeLagSeconds: timeLag.get(g.name) ?? 0,
  }));
}

/** The body of `GET …/status/queues/:queue`. */
export function queueStatusBody(
  queue: QueueRow,
  facts: readonly PartitionFacts[],
  activity: readonly PartitionActivityRow[],
  pairs: readonly GroupCursorFacts[],
): Wire<'StatusQueue'> {
  const byId = new Map(activity.map((a) => [a.id, a]));
  const groups = queueGroupsWire(facts, pairs);
  const partitions = facts.map((f) => {
    const a = byId.get(f.id);
    return {
      id: f.id,
      name: f.name,
      createdAt: f.createdAt,
      messages: partitionCounts(f),
      stats: {
        pushedLastHour: a?.pushedLastHour ?? 0,
        consumedLastHour: consumedSince(f, a?.firstRecentOffset ?? null),
        avgLagSeconds: a?.avgLagSeconds ?? 0,
      },
      cursor: { totalConsumed: a?.totalConsumed ?? 0, batchesConsumed: a?.batchesConsumed ?? 0 },
      lastActivity: a?.lastActivity ?? null,
      oldestMessage: f.oldestMessage,
      newestMessage: f.newestMessage,
    };
  });
  return {
    queue: {
      id: queue.id,
      name: queue.name,
      namespace: queue.namespace,
      task: queue.task,
      priority: queue.priority,
      createdAt: queue.createdAt,
      config: {
        leaseTime: queue.leaseTime,
        retryLimit: queue.retryLimit,
        retryDelay: queue.retryDelay,
        ttl: queue.ttl,
        maxQueueSize: queue.maxSize,
        deadLetterQueue: queue.deadLetterQueue,
        dlqAfterMaxRetries: queue.dlqAfterMaxRetries,
        delayedProcessing: queue.delayedProcessing,
        windowBuffer: queue.windowBuffer,
        minPopWaitTime: queue.minPopWaitTime,
        retentionSeconds: queue.retentionSeconds,
        completedRetentionSeconds: queue.completedRetentionSeconds,
        retentionEnabled: queue.retentionEnabled,
        encryptionEnabled: queue.encryptionEnabled,
        maxWaitTimeSeconds: queue.maxWaitTimeSeconds,
      },
    },
    partitions,
    totals: { messages: sumCounts(partitions.map((p) => p.messages)), partitions: partitions.length, consumerGroups: groups.length },
    consumerGroups: groups,
  };
}
