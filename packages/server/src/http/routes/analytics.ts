/**
 * The analytics routes (API.md 7.10, READ_ONLY): per-process system samples and operation counters,
 * per-queue lag and operations, parked pops per replica, retention history, PostgreSQL statistics.
 * `from`/`to` default to the last hour; `workerId` is a server_id.
 */
import { queueLagRows, queueOpsRows, systemMetricsBody, workerMetricsBody } from '../../core/analytics.js';
import { DEFAULT_SPAN_MS, timeRange } from '../../core/time-range.js';
import type { Services } from '../../services.js';
import { parkedReplicaList, serverList } from '../../store/heartbeats.js';
import { postgresStatsRead } from '../../store/postgres-stats.js';
import { counterQueueSeries, counterSeries, systemSeries, type CounterFilter } from '../../store/stats.js';
import { pageOf } from '../pagination.js';
import type { Route } from '../route.js';
import { rangeQuery } from './status.js';
import type { Query } from '../query.js';
import { readSnapshot } from '../../store/snapshot.js';
import { retentionHistoryList } from '../../store/retention.js';

/** Counter filter of a per-queue analytics route: only `queue`. */
function queueOnly(query: Query): CounterFilter {
  return { queue: query.string('queue'), namespace: null, task: null, hostname: null, serverId: null };
}

/** The analytics routes. */
export function analyticsRoutes(services: Services): Route[] {
  const { db } = services;
  return [
    {
      method: 'GET',
      path: '/api/v1/analytics/system-metrics',
      access: 'READ_ONLY',
      async handle({ query }) {
        const range = timeRange(rangeQuery(query), { defaultSpanMs: DEFAULT_SPAN_MS });
        const rows = await systemSeries(db, { buckets: range, hostname: query.string('hostname'), serverId: query.string('workerId') });
        return { status: 200, body: systemMetricsBody(range, rows) };
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
        const [points, queuePoints, workers] = await readSnapshot(db, async (snapshot) => [
          await counterSeries(snapshot, { buckets: range, filter }),
          await counterQueueSeries(snapshot, { buckets: range, filter }),
          await serverList(snapshot, { from: range.from, to: range.to, hostname, serverId }),
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
        return { status: 200, body: queueLagRows(await counterQueueSeries(db, { buckets: range, filter: queueOnly(query) })) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/analytics/queue-ops',
      access: 'READ_ONLY',
      async handle({ query }) {
        const range = timeRange(rangeQuery(query), { defaultSpanMs: DEFAULT_SPAN_MS });
        return { status: 200, body: queueOpsRows(await counterQueueSeries(db, { buckets: range, filter: queueOnly(query) })) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/analytics/queue-parked-replicas',
      access: 'READ_ONLY',
      async handle({ query }) {
        const rows = await parkedReplicaList(db, { queue: query.string('queue'), aliveSeconds: services.metrics.heartbeat.aliveSeconds });
        return { status: 200, body: rows.map((r) => ({ queue: r.queue, serverId: r.server_id, parked: r.parked, updatedAt: r.updated_at })) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/analytics/retention',
      access: 'READ_ONLY',
      async handle({ query }) {
        const range = timeRange(rangeQuery(query), { defaultSpanMs: DEFAULT_SPAN_MS });
        const pagination = pageOf(query, 100);
        const page = await readSnapshot(db, (snapshot) => retentionHistoryList(snapshot, {
          from: range.from, to: range.to, queue: query.string('queue'), limit: pagination.limit, offset: pagination.offset,
        }));
        return { status: 200, body: { history: page.history, total: page.total, pagination } };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/analytics/postgres-stats',
      access: 'READ_ONLY',
      async handle() {
        return { status: 200, body: await postgresStatsRead(db) };
      },
    },
  ];
}
