/**
 * The resource listings of docs/api.md 7.2 (the queue detail is in queues.ts): queues, namespaces, tasks, the
 * overview and partitions. Counts are computed directly from the current state (`statsAge` 0).
 */
import type { Reply, Reply as ApiReply } from '@queen/client/api';
import { countsByQueue, overview, queueCounts, scopeSummaries } from '../../core/resources.js';
import { partitionCounts, sumCounts } from '../../core/queue-stats.js';
import type { RouteContext } from '../context.js';
import { pageOf } from '../pagination.js';
import type { Route } from '../route.js';
import type { PartitionFacts, PartitionListing, QueueListing } from '../../core/catalog.js';

/** One element of the partition listing (a partition deleted meanwhile counts nothing). */
function partitionEntry(p: PartitionListing, facts: PartitionFacts | undefined): Reply<'listPartitions'>['partitions'][number] {
  const { total, pending, processing } = facts === undefined ? sumCounts([]) : partitionCounts(facts);
  return {
    id: p.id, name: p.name, queue: p.queue, namespace: p.namespace, task: p.task, createdAt: p.createdAt,
    lastActivity: p.lastActivity, messages: { total, pending, processing }, consumerGroups: p.consumerGroups,
  };
}

/** The resource listing routes. */
export function resourceRoutes(core: RouteContext): Route[] {
  const { catalog } = core;
  const allQueues = (): Promise<QueueListing[]> => catalog.queueList({ namespace: null, task: null, limit: null, offset: 0 });
  const factsOf = (queues: QueueListing[]) => catalog.partitionFactsList({ queueIds: queues.map((q) => q.id), partitionIds: [] });

  const scopeRoute = (path: string, key: 'namespace' | 'task', field: 'namespaces' | 'tasks'): Route => ({
    method: 'GET',
    path,
    access: 'READ_ONLY',
    async handle() {
      const queues = await allQueues();
      const summaries = scopeSummaries(queues, countsByQueue(await factsOf(queues)), key);
      return {
        status: 200,
        body: { [field]: summaries.map(({ name, ...rest }) => ({ [key]: name, ...rest })) },
      };
    },
  });

  return [
    {
      method: 'GET',
      path: '/api/v1/resources/queues',
      access: 'READ_ONLY',
      async handle({ query }) {
        const page = pageOf(query);
        const queues = await catalog.queueList({ namespace: query.string('namespace'), task: query.string('task'), ...page });
        const counts = countsByQueue(await factsOf(queues));
        return {
          status: 200,
          body: {
            queues: queues.map((q) => {
              const { total, pending, processing } = queueCounts(counts, q.id);
              return { id: q.id, name: q.name, namespace: q.namespace, task: q.task, createdAt: q.createdAt, partitions: q.partitions, messages: { total, pending, processing } };
            }),
          } satisfies ApiReply<'listQueues'>,
        };
      },
    },
    scopeRoute('/api/v1/resources/namespaces', 'namespace', 'namespaces'),
    scopeRoute('/api/v1/resources/tasks', 'task', 'tasks'),
    {
      method: 'GET',
      path: '/api/v1/resources/overview',
      access: 'READ_ONLY',
      async handle() {
        const queues = await allQueues();
        const [facts, cursors, sample] = await Promise.all([factsOf(queues), catalog.groupCursorList({ group: null }), catalog.activitySample()]);
        return { status: 200, body: overview(queues, facts, cursors, sample) satisfies ApiReply<'getOverview'> };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/resources/partitions',
      access: 'READ_ONLY',
      async handle({ query }) {
        const page = pageOf(query);
        const { total, partitions } = await catalog.partitionList({
          queue: query.string('queue'),
          namespace: query.string('namespace'),
          task: query.string('task'),
          ...page,
        });
        const facts = await catalog.partitionFactsList({ queueIds: [], partitionIds: partitions.map((p) => p.id) });
        const byId = new Map(facts.map((f) => [f.id, f]));
        return { status: 200, body: { partitions: partitions.map((p) => partitionEntry(p, byId.get(p.id))), total, pagination: page } satisfies ApiReply<'listPartitions'> };
      },
    },
  ];
}
