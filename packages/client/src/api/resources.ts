/**
 * Queues and the resource reads of docs/api.md §4.3, §7.2 and §7.3: the queue list and detail, namespaces, tasks,
 * the overview, partitions, deleting and clearing a queue.
 */
import { route, send, type ApiRequester, type CallOptions, type Query, type Reply, type Wire } from './route.js';

/** Routes of this family. */
export const resourceRoutes = {
  listQueues: route('listQueues', 'GET', '/api/v1/resources/queues', 'READ_ONLY'),
  getQueue: route('getQueue', 'GET', '/api/v1/resources/queues/{queue}', 'READ_ONLY'),
  deleteQueue: route('deleteQueue', 'DELETE', '/api/v1/resources/queues/{queue}', 'ADMIN'),
  clearQueue: route('clearQueue', 'DELETE', '/api/v1/queues/{queue}/clear', 'ADMIN'),
  listNamespaces: route('listNamespaces', 'GET', '/api/v1/resources/namespaces', 'READ_ONLY'),
  listTasks: route('listTasks', 'GET', '/api/v1/resources/tasks', 'READ_ONLY'),
  getOverview: route('getOverview', 'GET', '/api/v1/resources/overview', 'READ_ONLY'),
  listPartitions: route('listPartitions', 'GET', '/api/v1/resources/partitions', 'READ_ONLY'),
} as const;

/** The queue list, newest queue first. */
export type QueueList = Reply<'listQueues'>;

/** One row of the queue list. */
export type QueueListRow = QueueList['queues'][number];

/** Message counts a list row carries. */
export type MessageCounts = QueueListRow['messages'];

/** Lists queues, optionally of one namespace or task. */
export const listQueues = (http: ApiRequester, query: Query<'listQueues'> = {}, options?: CallOptions): Promise<QueueList> =>
  send(http, resourceRoutes.listQueues, {}, { query }, options);

/** A queue with its 16 options, partitions and totals. */
export type QueueDetail = Wire<'QueueDetail'>;

/** One partition of a queue's detail. */
export type QueueDetailPartition = QueueDetail['partitions'][number];

/** The six counts of docs/api.md §7.2. */
export type FullMessageCounts = QueueDetail['totals'];

/** A queue's detail; a missing queue answers `{error:"Queue not found"}` with `X-Queen-Status: 404`. */
export const getQueue = (http: ApiRequester, queue: string, options?: CallOptions): Promise<Reply<'getQueue'>> => send(http, resourceRoutes.getQueue, { queue }, {}, options);

/** `DELETE` of a queue: deleting a missing queue is not an error (`existed:false`). */
export type DeleteQueueResponse = Reply<'deleteQueue'>;

/** Deletes a queue with everything it holds. */
export const deleteQueue = (http: ApiRequester, queue: string, options?: CallOptions): Promise<DeleteQueueResponse> => send(http, resourceRoutes.deleteQueue, { queue }, {}, options);

/** A clear's answer, or the miss (`X-Queen-Status: 404`). */
export type ClearQueueResponse = Reply<'clearQueue'>;

/** Deletes every retained message of a queue, or of one partition. */
export const clearQueue = (http: ApiRequester, queue: string, partition?: string, options?: CallOptions): Promise<ClearQueueResponse> =>
  send(http, resourceRoutes.clearQueue, { queue }, { query: { partition } }, options);

/** One namespace and what it holds. */
export type NamespaceRow = Reply<'listNamespaces'>['namespaces'][number];

/** Lists namespaces. */
export const listNamespaces = (http: ApiRequester, options?: CallOptions): Promise<Reply<'listNamespaces'>> => send(http, resourceRoutes.listNamespaces, {}, {}, options);

/** One task and what it holds. */
export type TaskRow = Reply<'listTasks'>['tasks'][number];

/** Lists tasks. */
export const listTasks = (http: ApiRequester, options?: CallOptions): Promise<Reply<'listTasks'>> => send(http, resourceRoutes.listTasks, {}, {}, options);

/** The system at a glance. */
export type Overview = Reply<'getOverview'>;

/** Average, median, lowest and highest of a lag. */
export type LagSummary = Overview['lag']['time'];

/** Counts, lag and throughput of the whole system. */
export const getOverview = (http: ApiRequester, options?: CallOptions): Promise<Overview> => send(http, resourceRoutes.getOverview, {}, {}, options);

/** A page of partitions. */
export type PartitionList = Reply<'listPartitions'>;

/** One row of the partition list. */
export type PartitionRow = PartitionList['partitions'][number];

/** Paging of a list answer. */
export type Pagination = PartitionList['pagination'];

/** Lists partitions, optionally of one queue, namespace or task. */
export const listPartitions = (http: ApiRequester, query: Query<'listPartitions'> = {}, options?: CallOptions): Promise<PartitionList> =>
  send(http, resourceRoutes.listPartitions, {}, { query }, options);
