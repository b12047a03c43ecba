/**
 * Consumer groups, subscriptions and seeks (docs/api.md §7.7). The lagging list keeps upstream's snake_case keys.
 */
import { iso, route, send, type ApiRequester, type CallOptions, type Query, type Reply, type Wire } from './route.js';

/** Routes of this family. */
export const groupRoutes = {
  listConsumerGroups: route('listConsumerGroups', 'GET', '/api/v1/consumer-groups', 'READ_ONLY'),
  listLaggingConsumerGroups: route('listLaggingConsumerGroups', 'GET', '/api/v1/consumer-groups/lagging', 'READ_ONLY'),
  getConsumerGroup: route('getConsumerGroup', 'GET', '/api/v1/consumer-groups/{group}', 'READ_ONLY'),
  deleteConsumerGroup: route('deleteConsumerGroup', 'DELETE', '/api/v1/consumer-groups/{group}', 'ADMIN'),
  updateSubscription: route('updateSubscription', 'POST', '/api/v1/consumer-groups/{group}/subscription', 'READ_WRITE'),
  deleteConsumerGroupForQueue: route('deleteConsumerGroupForQueue', 'DELETE', '/api/v1/consumer-groups/{group}/queues/{queue}', 'ADMIN'),
  seekQueue: route('seekQueue', 'POST', '/api/v1/consumer-groups/{group}/queues/{queue}/seek', 'READ_WRITE'),
  seekPartition: route('seekPartition', 'POST', '/api/v1/consumer-groups/{group}/queues/{queue}/partitions/{partition}/seek', 'READ_WRITE'),
} as const;

/** One (group, queue) pair; `__QUEUE_MODE__` included. */
export type ConsumerGroupRow = Reply<'listConsumerGroups'>[number];

/** State of a (group, queue) pair. */
export type ConsumerGroupState = ConsumerGroupRow['state'];

/** Every (group, queue) pair. */
export const listConsumerGroups = (http: ApiRequester, options?: CallOptions): Promise<ConsumerGroupRow[]> => send(http, groupRoutes.listConsumerGroups, {}, {}, options);

/** One (group, partition) pair lagging at least `minLagSeconds`. */
export type LaggingRow = Reply<'listLaggingConsumerGroups'>[number];

/** Pairs lagging at least `minLagSeconds` (broker default 3600), largest lag first. */
export const listLaggingConsumerGroups = (http: ApiRequester, query: Query<'listLaggingConsumerGroups'> = {}, options?: CallOptions): Promise<LaggingRow[]> =>
  send(http, groupRoutes.listLaggingConsumerGroups, {}, { query }, options);

/** A group's partitions by queue name (`{}` for an unknown group). */
export type ConsumerGroupDetail = Reply<'getConsumerGroup'>;

/** One partition of a group's detail. */
export type GroupPartitionState = Wire<'ConsumerGroupDetail'>[string]['partitions'][number];

/** A group's partitions on every queue. */
export const getConsumerGroup = (http: ApiRequester, group: string, options?: CallOptions): Promise<ConsumerGroupDetail> => send(http, groupRoutes.getConsumerGroup, { group }, {}, options);

/** A group deletion's answer. */
export type DeleteConsumerGroupResponse = Reply<'deleteConsumerGroup'>;

/** Deletes a group's state on every queue (and its subscription records unless `deleteMetadata` is false). */
export const deleteConsumerGroup = (http: ApiRequester, group: string, query: Query<'deleteConsumerGroup'> = {}, options?: CallOptions): Promise<DeleteConsumerGroupResponse> =>
  send(http, groupRoutes.deleteConsumerGroup, { group }, { query }, options);

/** Deletes a group's state on one queue. */
export const deleteConsumerGroupForQueue = (http: ApiRequester, group: string, queue: string, query: Query<'deleteConsumerGroupForQueue'> = {}, options?: CallOptions): Promise<Reply<'deleteConsumerGroupForQueue'>> =>
  send(http, groupRoutes.deleteConsumerGroupForQueue, { group, queue }, { query }, options);

/** A subscription update's answer. */
export type UpdateSubscriptionResponse = Reply<'updateSubscription'>;

/** Re-times where the group's never-contacted cursors start (ISO-8601 or `now`). */
export const updateSubscription = (http: ApiRequester, group: string, subscriptionTimestamp: string | Date, options?: CallOptions): Promise<UpdateSubscriptionResponse> =>
  send(http, groupRoutes.updateSubscription, { group }, { body: { subscriptionTimestamp: iso(subscriptionTimestamp) } }, options);

/** Where a seek moves the cursors. */
export type SeekTarget = { toEnd: true } | { timestamp: string | Date };

const seekBody = (target: SeekTarget): Wire<'SeekRequest'> => ('timestamp' in target ? { timestamp: iso(target.timestamp) } : { toEnd: true });

/** A queue seek's answer, or the miss (`X-Queen-Status: 404`). */
export type SeekQueueResponse = Reply<'seekQueue'>;

/** Moves the group's cursors on every partition of a queue. */
export const seekQueue = (http: ApiRequester, group: string, queue: string, target: SeekTarget, options?: CallOptions): Promise<SeekQueueResponse> =>
  send(http, groupRoutes.seekQueue, { group, queue }, { body: seekBody(target) }, options);

/** A partition seek's answer, or the miss (`X-Queen-Status: 404`). */
export type SeekPartitionResponse = Reply<'seekPartition'>;

/** Moves the group's cursor on one partition (no target: to the end). */
export const seekPartition = (http: ApiRequester, group: string, queue: string, partition: string, target?: SeekTarget, options?: CallOptions): Promise<SeekPartitionResponse> =>
  send(http, groupRoutes.seekPartition, { group, queue, partition }, { body: target === undefined ? {} : seekBody(target) }, options);
