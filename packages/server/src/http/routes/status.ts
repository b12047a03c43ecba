/**
 * The status routes (docs/api.md 7.10, READ_ONLY) and the stats refresh (docs/api.md 7.8, ADMIN).
 *
 * Counts are computed on demand: message counts from the partition facts (core/queue-stats.ts), message
 * states from the message views (core/messages.ts), time series from the per-minute counters that every
 * broker process flushes (store/stats.ts). Unknown filters are ignored.
 */
import type { Reply as ApiReply } from '@queen/client/api';
import { adminNotFound } from '../errors.js';
import { statusAnalyticsBody } from '../../core/analytics.js';
import { listMessages } from '../../core/messages.js';
import { partitionCounts, sumCounts } from '../../core/queue-stats.js';
import { countsByQueue, queueCounts } from '../../core/resources.js';
import { queueStatusBody, statusBody } from '../../core/status.js';
import { DEFAULT_SPAN_MS, analyticsInterval, timeRange } from '../../core/time-range.js';
import type { RouteContext } from '../context.js';
import { pageOf } from '../pagination.js';
import type { Query } from '../query.js';
import type { Route } from '../route.js';
import type { QueueFilter } from '../../core/catalog.js';

const DAY_MS = 24 * 3600 * 1000;

/** `from`/`to` of a query string. */
export function rangeQuery(query: Query): { from: string | null; to: string | null } {
  return { from: query.string('from'), to: query.string('to') };
}

/** The queue filters of a query string. */
export function queueFilter(query: Query): QueueFilter {
  return { queue: query.string('queue'), namespace: query.string('namespace'), task: query.string('task') };
}

/** The status routes and the stats refresh. */
export function statusRoutes(core: RouteContext): Route[] {
  const { catalog } = core;
  return [
    {
      method: 'GET',
      path: '/api/v1/status',
      access: 'READ_ONLY',
      async handle({ query }) {
        const range = timeRange(rangeQuery(query), { defaultSpanMs: DEFAULT_SPAN_MS });
        const filter = queueFilter(query);
        const whole = filter.queue === null && filter.namespace === null && filter.task === null;
        const { points, queues, leases, deadLetters, workers, facts, pending } = await catalog.snapshot(async (reads) => {
          // One client runs one query at a time (pg deprecates queueing them concurrently): in sequence.
          const points = await reads.counterSeries({ buckets: range, filter: { ...filter, hostname: null, serverId: null } });
          const queues = await reads.queueSummaryList({ filter, limit: null, offset: 0 });
          const leases = await reads.leaseSummary({ filter });
          const deadLetters = await reads.deadLetterSummary({ filter });
          const workers = await reads.serverList({ from: range.from, to: range.to, hostname: null, serverId: null });
          const facts = await reads.partitionFactsList({ queueIds: queues.map((q) => q.id), partitionIds: [] });
          // The pending history is of the whole installation: none for a filtered status.
          const pending = whole ? await reads.pendingSeries({ buckets: range }) : [];
          return { points, queues, leases, deadLetters, workers, facts, pending };
        });
        const counts = sumCounts(facts.map(partitionCounts));
        return { status: 200, body: statusBody({ range, points, queues, counts, leases, deadLetters, workers, pending }) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/status/queues',
      access: 'READ_ONLY',
      async handle({ query }) {
        const page = pageOf(query);
        const queues = await catalog.queueList({ namespace: query.string('namespace'), task: query.string('task'), ...page });
        const counts = countsByQueue(await catalog.partitionFactsList({ queueIds: queues.map((q) => q.id), partitionIds: [] }));
        return {
          status: 200,
          body: {
            queues: queues.map((q) => {
              const { total, pending, processing } = queueCounts(counts, q.id);
              return { id: q.id, name: q.name, namespace: q.namespace, task: q.task, createdAt: q.createdAt, partitions: q.partitions,
                messages: { total, pending, processing } };
            }),
            pagination: page,
          } satisfies ApiReply<'listQueueStatus'>,
        };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/status/queues/:queue',
      access: 'READ_ONLY',
      async handle({ params }) {
        const found = await catalog.queueDescribe({ name: params.queue ?? '' });
        if (found === null) throw adminNotFound({ error: 'Queue not found' });
        const [activity, pairs] = await Promise.all([
          catalog.partitionActivityList({ queueId: found.queue.id }),
          catalog.groupCursorList({ group: null, queue: found.queue.name }),
        ]);
        return { status: 200, body: queueStatusBody(found.queue, found.partitions, activity, pairs) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/status/queues/:queue/messages',
      access: 'READ_ONLY',
      async handle({ params, query }) {
        const { limit, offset } = pageOf(query);
        // Every retained message of the queue: no time window (the message listing of 7.4 defaults to an hour).
        const filter = { queue: params.queue ?? '', partition: null, namespace: null, task: null, from: '-infinity', to: 'infinity' };
        const { messages } = await catalog.snapshot((reads) => listMessages(
          { page: (page) => reads.messageList({ filter, ...page }), cursors: (partitionIds) => reads.cursorFactsFind({ partitionIds }) },
          { status: null, limit, offset, after: null },
        ));
        return {
          status: 200,
          body: messages.map((m) => ({ id: m.id, transactionId: m.transactionId, partitionId: m.partitionId,
            queuePath: `${m.queue}/${m.partition}`, queue: m.queue, partition: m.partition, status: m.status, createdAt: m.createdAt })) satisfies ApiReply<'listQueueStatusMessages'>,
        };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/status/analytics',
      access: 'READ_ONLY',
      async handle({ query }) {
        const { interval, bucketMinutes } = analyticsInterval(query.string('interval'));
        const range = timeRange(rangeQuery(query), { defaultSpanMs: DAY_MS, bucketMinutes });
        const points = await catalog.counterSeries({ buckets: range, filter: { ...queueFilter(query), hostname: null, serverId: null } });
        return { status: 200, body: statusAnalyticsBody(range, interval, points) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/status/buffers',
      access: 'READ_ONLY',
      async handle() {
        // This process's failover buffer (docs/api.md 9.5).
        const stats = core.buffer.stats();
        const dbHealthy = stats.dbHealthy && (await core.health.databaseReachable());
        return { status: 200, body: { pending: stats.pendingCount, failed: stats.failedCount, dbHealthy, worker: core.identity.serverId } satisfies ApiReply<'getBufferStatus'> };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/stats/refresh',
      access: 'ADMIN',
      body: 'optional',
      async handle() {
        return { status: 200, body: await core.metrics.stats.runNow() satisfies ApiReply<'refreshStats'> };
      },
    },
  ];
}
