/**
 * The bodies of the analytics routes (docs/api.md 7.10) from the bucketed counters and samples of store/stats.ts.
 * Counter series hold every bucket in which a broker was counting (zeros included) and none before or between
 * brokers; per-queue rows and per-process sample series only hold buckets that saw something.
 */
import type { Reply, Wire } from '@queen/client/api';
import type { ServerRow } from '../store/heartbeats.js';
import type { CounterPoint, QueueCounterPoint, SystemPoint } from '../store/stats.js';
import { averageLagMs, sumPoints, workerWire } from './status.js';
import { wireRange, type TimeRange } from './time-range.js';

/** The body of `GET …/analytics/worker-metrics`. */
export function workerMetricsBody(
  range: TimeRange,
  points: readonly CounterPoint[],
  queuePoints: readonly QueueCounterPoint[],
  workers: readonly ServerRow[],
): Wire<'WorkerMetrics'> {
  const total = sumPoints(points);
  const perQueue = new Map<string, { queue: string; pushMessages: number; popMessages: number; ackMessages: number }>();
  for (const p of queuePoints) {
    const q = perQueue.get(p.queue) ?? { queue: p.queue, pushMessages: 0, popMessages: 0, ackMessages: 0 };
    q.pushMessages += p.pushMessages;
    q.popMessages += p.popMessages;
    q.ackMessages += p.ackMessages;
    perQueue.set(p.queue, q);
  }
  return {
    timeRange: wireRange(range),
    bucketMinutes: range.bucketMinutes,
    pointCount: points.length,
    timeSeries: points.map((p) => ({
      timestamp: p.bucket,
      pushRequests: p.pushRequests,
      pushMessages: p.pushMessages,
      popRequests: p.popRequests,
      popMessages: p.popMessages,
      ackRequests: p.ackRequests,
      ackMessages: p.ackMessages,
      transactions: p.transactions,
      errors: p.errors,
    })),
    workers: workers.map(workerWire),
    queues: [...perQueue.values()].sort((a, b) => (a.queue < b.queue ? -1 : a.queue > b.queue ? 1 : 0)),
    summary: { pushMessages: total.pushMessages, popMessages: total.popMessages, ackMessages: total.ackMessages, errors: total.errors },
  };
}

/** The rows of `GET …/analytics/queue-lag`: buckets in which the queue delivered messages. */
export function queueLagRows(points: readonly QueueCounterPoint[]): Reply<'getQueueLag'> {
  return points
    .filter((p) => p.popMessages > 0)
    .map((p) => ({ timestamp: p.bucket, queue: p.queue, popMessages: p.popMessages, avgLagMs: averageLagMs(p), maxLagMs: p.lagMaxMs }));
}

/** The rows of `GET …/analytics/queue-ops`. */
export function queueOpsRows(points: readonly QueueCounterPoint[]): Reply<'getQueueOps'> {
  return points.map((p) => ({
    timestamp: p.bucket,
    queue: p.queue,
    pushRequests: p.pushRequests,
    pushMessages: p.pushMessages,
    popRequests: p.popRequests,
    popMessages: p.popMessages,
    ackRequests: p.ackRequests,
    ackMessages: p.ackMessages,
    ackFailed: p.ackFailed,
    transactions: p.transactions,
    dlqMoved: p.dlqMoved,
  }));
}

/** The body of `GET …/status/analytics`. */
export function statusAnalyticsBody(range: TimeRange, interval: string, points: readonly CounterPoint[]): Wire<'StatusAnalytics'> {
  return {
    dataPoints: points.map((p) => ({
      timestamp: p.bucket,
      messages: { ingested: p.pushMessages, processed: p.ackCompleted, failed: p.ackFailed, deadLetter: p.dlqMoved },
    })),
    interval,
    ...wireRange(range),
  };
}

/**
 * The body of `GET …/analytics/system-metrics`: one replica per process, its buckets oldest first.
 * `alive` (an addition to docs/api.md) says whether the process is running now (in `alive`: not stopped, a
 * recent heartbeat), so a restarted broker's old samples are not counted as a second running broker;
 * `aliveCount` counts those. A running process counts from its first heartbeat: before its first sample it is
 * listed with an empty series.
 */
export function systemMetricsBody(
  range: TimeRange,
  rows: readonly SystemPoint[],
  alive: ReadonlyArray<{ serverId: string; hostname: string; port: number }>,
): Wire<'SystemMetrics'> {
  const aliveIds = new Set(alive.map((a) => a.serverId));
  const replicas = new Map<string, Wire<'SystemMetrics'>['replicas'][number]>();
  for (const row of rows) {
    let replica = replicas.get(row.serverId);
    if (replica === undefined) {
      replica = { hostname: row.hostname, port: row.port, workerId: row.serverId, alive: aliveIds.has(row.serverId), timeSeries: [] };
      replicas.set(row.serverId, replica);
    }
    replica.timeSeries.push({
      timestamp: row.bucket,
      sampleCount: row.sampleCount,
      metrics: {
        cpu: { userPercent: row.cpuUserPercent, systemPercent: row.cpuSystemPercent },
        memory: { rss: row.rss, heapUsed: row.heapUsed },
        database: { poolSize: row.poolSize, idle: row.poolIdle, active: row.poolActive, waiting: row.poolWaiting },
        eventLoop: { lagMs: row.eventLoopLagMs },
        registries: { parkedPops: row.parkedPops, inflightRequests: row.inflightRequests },
      },
    });
  }
  for (const a of alive) {
    if (!replicas.has(a.serverId)) replicas.set(a.serverId, { hostname: a.hostname, port: a.port, workerId: a.serverId, alive: true, timeSeries: [] });
  }
  const list = [...replicas.values()];
  return { timeRange: wireRange(range), replicas: list, replicaCount: list.length, aliveCount: list.filter((r) => r.alive).length, bucketMinutes: range.bucketMinutes };
}
