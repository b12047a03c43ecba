/**
 * The analytics routes (docs/api.md 7.10, READ_ONLY): per-process system samples and operation counters,
 * per-queue lag and operations, parked pops per replica, retention history, PostgreSQL statistics.
 * `from`/`to` default to the last hour; `workerId` is a server_id.
 */
import type { Reply as ApiReply } from '@queen/client/api';
import { queueLagRows, queueOpsRows, systemMetricsBody, workerMetricsBody } from '../../core/analytics.js';
import { DEFAULT_SPAN_MS, timeRange } from '../../core/time-range.js';
import type { RouteContext } from '../context.js';
import { pageOf } from '../pagination.js';
import type { Route } from '../route.js';
import { rangeQuery } from './status.js';
import type { Query } from '../query.js';
import type { CounterFilter } from '../../core/catalog.js';

/** Counter filter of a per-queue analytics route: only `queue`. */
function queueOnly(query: Query): CounterFilter {
  return { queue: query.string('queue'), namespace: null, task: null, hostname: null, serverId: null };
}

/**
 * Other sessions' SQL text can quote stored data: only an admin sees it; for anyone else `query` is null
 * (docs/decisions.md "postgres-stats for the read-only role").
 */
function redactQueries<T extends { activeQueries: Array<{ query: string | null }> }>(stats: T): T {
  return { ...stats, activeQueries: stats.activeQueries.map((q) => ({ ...q, query: null })) };
}

/** The analytics routes. */
export function analyticsRoutes(core: RouteContext): Route[] {
  const { catalog } = core;
  return [
    {
      method: 'GET',
      path: '/api/v1/analytics/system-metrics',
      access: 'READ_ONLY',
      async handle({ query }) {
        const range = timeRange(rangeQuery(query), { defaultSpanMs: DEFAULT_SPAN_MS });
        const hostname = query.string('hostname');
        const serverId = query.string('workerId');
        const [rows, alive] = await Promise.all([
          catalog.systemSeries({ buckets: range, hostname, serverId }),
          catalog.serverAliveList({ aliveSeconds: core.metrics.heartbeat.aliveSeconds }),
        ]);
        const matching = alive.filter((a) => (hostname === null || a.hostname === hostname) && (serverId === null || a.serverId === serverId));
        return { status: 200, body: systemMetricsBody(range, rows, matching) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/analytics/worker-metrics',
      access: 'READ_ONLY',
      async handle({ query }) {
        const range = timeRange(rangeQuery(query), { defaultSpanMs: DEFAULT_SPAN_MS });
        const hostname = query.string('hostname');
        const serverId = query.string('workerId');
        const filter: CounterFilter = { queue: null, namespace: null, task: null, hostname, serverId };
        // One client runs one query at a time: the three reads of the snapshot go in sequence.
        const [points, queuePoints, workers] = await catalog.snapshot(async (reads) => [
          await reads.counterSeries({ buckets: range, filter }),
          await reads.counterQueueSeries({ buckets: range, filter }),
          await reads.serverList({ from: range.from, to: range.to, hostname, serverId }),
        ] as const);
        return { status: 200, body: workerMetricsBody(range, points, queuePoints, workers) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/analytics/queue-lag',
      access: 'READ_ONLY',
      async handle({ query }) {
        const range = timeRange(rangeQuery(query), { defaultSpanMs: DEFAULT_SPAN_MS });
        return { status: 200, body: queueLagRows(await catalog.counterQueueSeries({ buckets: range, filter: queueOnly(query) })) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/analytics/queue-ops',
      access: 'READ_ONLY',
      async handle({ query }) {
        const range = timeRange(rangeQuery(query), { defaultSpanMs: DEFAULT_SPAN_MS });
        return { status: 200, body: queueOpsRows(await catalog.counterQueueSeries({ buckets: range, filter: queueOnly(query) })) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/analytics/queue-parked-replicas',
      access: 'READ_ONLY',
      async handle({ query }) {
        const rows = await catalog.parkedReplicaList({ queue: query.string('queue'), aliveSeconds: core.metrics.heartbeat.aliveSeconds });
        return { status: 200, body: rows.map((r) => ({ queue: r.queue, serverId: r.serverId, parked: r.parked, updatedAt: r.updatedAt })) satisfies ApiReply<'getParkedReplicas'> };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/analytics/retention',
      access: 'READ_ONLY',
      async handle({ query }) {
        const range = timeRange(rangeQuery(query), { defaultSpanMs: DEFAULT_SPAN_MS });
        const pagination = pageOf(query);
        const page = await catalog.snapshot((reads) => reads.retentionHistoryList({
          from: range.from, to: range.to, queue: query.string('queue'), limit: pagination.limit, offset: pagination.offset,
        }));
        return { status: 200, body: { history: page.history, total: page.total, pagination } satisfies ApiReply<'getRetentionHistory'> };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/analytics/postgres-stats',
      access: 'READ_ONLY',
      async handle({ admin }) {
        const stats = await catalog.postgresStatsRead();
        return { status: 200, body: admin ? stats : redactQueries(stats) satisfies ApiReply<'getPostgresStats'> };
      },
    },
  ];
}
