/**
 * Consumer groups (docs/api.md 7.7): listing, lagging pairs, one group's detail, deletion and subscription
 * re-timing. Seek lives in seek.ts. A group name in the path that no group can have is a 400
 * `Invalid consumerGroup` on every route; the routes that change a group (subscription, seek) also refuse
 * `.` and `..` (docs/api.md 1.10), while reading and deleting still reach a group created under such a name
 * before the rule, so it can be removed (docs/decisions.md "Dot names").
 */
import type { Reply as ApiReply, Body } from '@queen/client/api';
import { invalid } from '../../errors.js';
import { groupSummaries, laggingPairs, pairLag } from '../../core/group-lag.js';
import { isValidName } from '../../core/names.js';
import { parseTimestamp } from '../../core/timestamps.js';
import type { RouteContext } from '../context.js';
import type { Query } from '../query.js';
import type { Checked, Route } from '../route.js';
import { checkedName } from '../text.js';

/** The group of the path for reading and deleting: any name a group can have, `.`/`..` from before the rule included. */
function groupParam(params: Record<string, string>): string {
  const group = params.group ?? '';
  if (!isValidName(group)) throw invalid('Invalid consumerGroup');
  return group;
}

/** `deleteMetadata` of the deletion routes: true unless the query says otherwise. */
const deleteMetadataOf = (query: Query): boolean => query.bool('deleteMetadata')!;

/** The route of one consumer group on one queue (delete). */
export const GROUP_QUEUE_PATH = '/api/v1/consumer-groups/:group/queues/:queue';

/** The consumer-group routes other than seek. */
export function consumerGroupRoutes(core: RouteContext): Route[] {
  const { catalog } = core;
  return [
    {
      method: 'GET',
      path: '/api/v1/consumer-groups',
      access: 'READ_ONLY',
      async handle() {
        const [cursors, subscriptions] = await Promise.all([catalog.groupCursorList({ group: null }), catalog.subscriptionList({ group: null })]);
        return { status: 200, body: groupSummaries(cursors, subscriptions) satisfies ApiReply<'listConsumerGroups'> };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/consumer-groups/lagging',
      access: 'READ_ONLY',
      async handle({ query }) {
        const minLagSeconds = query.number('minLagSeconds')!; // default and 400 from the document (query-rules.ts)
        const pairs = laggingPairs(await catalog.groupCursorList({ group: null }), minLagSeconds);
        return {
          status: 200,
          body: pairs.map(({ facts, lag, lagHours }) => ({
            consumer_group: facts.group,
            queue_name: facts.queue,
            partition_name: facts.partitionName,
            partition_id: facts.partitionId,
            worker_id: facts.liveLeaseId,
            offset_lag: lag.offsetLag,
            time_lag_seconds: lag.timeLagSeconds,
            lag_hours: lagHours,
            oldest_unconsumed_at: facts.headCreatedAt,
            last_consumed_at: facts.lastConsumedAt,
          })) satisfies ApiReply<'listLaggingConsumerGroups'>,
        };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/consumer-groups/:group',
      access: 'READ_ONLY',
      async handle({ params }) {
        const cursors = await catalog.groupCursorList({ group: groupParam(params) });
        const queues = new Map<string, { partitions: unknown[] }>();
        for (const facts of cursors) {
          const lag = pairLag(facts);
          let queue = queues.get(facts.queue);
          if (queue === undefined) {
            queue = { partitions: [] };
            queues.set(facts.queue, queue);
          }
          queue.partitions.push({
            partition: facts.partitionName,
            workerId: facts.liveLeaseId,
            lastConsumedAt: facts.lastConsumedAt,
            totalConsumed: Number(facts.totalConsumed),
            offsetLag: lag.offsetLag,
            timeLagSeconds: lag.timeLagSeconds,
            leaseActive: facts.liveLeaseId !== null,
          });
        }
        // fromEntries defines own properties: a queue called "__proto__" stays an ordinary key.
        return { status: 200, body: Object.fromEntries(queues) };
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/consumer-groups/:group',
      access: 'ADMIN',
      async handle({ params, query }) {
        const group = groupParam(params);
        const deleteMetadata = deleteMetadataOf(query);
        const deleted = await catalog.groupDelete({ group, queue: null, deleteMetadata });
        return { status: 200, body: { success: true, consumerGroup: group, deletedPartitions: deleted, metadataDeleted: deleteMetadata } satisfies ApiReply<'deleteConsumerGroup'> };
      },
    },
    {
      method: 'DELETE',
      path: GROUP_QUEUE_PATH,
      access: 'ADMIN',
      async handle({ params, query }) {
        const group = groupParam(params);
        const queue = params.queue ?? '';
        const deleteMetadata = deleteMetadataOf(query);
        // A queue name no queue can have: nothing to delete.
        const deleted = isValidName(queue) ? await catalog.groupDelete({ group, queue, deleteMetadata }) : 0;
        return {
          status: 200,
          body: { success: true, consumerGroup: group, queueName: queue, deletedPartitions: deleted, metadataDeleted: deleteMetadata } satisfies ApiReply<'deleteConsumerGroupForQueue'>,
        };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/consumer-groups/:group/subscription',
      access: 'READ_WRITE',
      body: 'required',
      async handle({ params, body }) {
        const group = checkedName(params.group ?? '', 'consumerGroup');
        const value = (body as Checked<Body<'updateSubscription'>, 'subscriptionTimestamp'>).subscriptionTimestamp; // a string (edge)
        const now = value.trim().toLowerCase() === 'now';
        const from = now ? null : parseTimestamp(value);
        if (!now && from === null) return { status: 200, body: { success: false, error: `Invalid timestamp: ${value}` } satisfies ApiReply<'updateSubscription'> };
        const { rowsUpdated, newTimestamp } = await catalog.subscriptionRetime({ group, from });
        return { status: 200, body: { success: true, consumerGroup: group, newTimestamp, rowsUpdated } satisfies ApiReply<'updateSubscription'> };
      },
    },
  ];
}
