/**
 * Queues and the resource reads of docs/api.md §4.3, §7.2 and §7.3: the queue list and detail, namespaces, tasks,
 * the overview, partitions, deleting and clearing a queue.
 */
import type { QueueOptions } from '../types.js';
import { route, send, type ApiRequester, type CallOptions, type NotFoundBody } from './route.js';

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

/** Message counts a list row carries. */
export interface MessageCounts {
  total: number;
  pending: number;
  processing: number;
}

/** The six counts of docs/api.md §7.2. */
export interface FullMessageCounts extends MessageCounts {
  completed: number;
  failed: number;
  deadLetter: number;
}

/** Paging of a list answer. */
export interface Pagination {
  limit: number;
  offset: number;
}

/** One row of the queue list. */
export interface QueueListRow {
  id: string;
  name: string;
  namespace: string | null;
  task: string | null;
  createdAt: string;
  partitions: number;
  messages: MessageCounts;
}

/** The queue list, newest queue first. */
export interface QueueList {
  queues: QueueListRow[];
}

/** Lists queues, optionally of one namespace or task. */
export const listQueues = (http: ApiRequester, query: { namespace?: string; task?: string; limit?: number; offset?: number } = {}, options?: CallOptions): Promise<QueueList> =>
  send(http, resourceRoutes.listQueues, {}, { query }, options);

/** One partition of a queue's detail. */
export interface QueueDetailPartition {
  id: string;
  name: string;
  createdAt: string;
  stats: FullMessageCounts;
  oldestMessage: string | null;
  newestMessage: string | null;
}

/** A queue with its 16 options, partitions and totals. */
export interface QueueDetail {
  id: string;
  name: string;
  namespace: string | null;
  task: string | null;
  createdAt: string;
  config: Required<QueueOptions>;
  partitions: QueueDetailPartition[];
  totals: FullMessageCounts;
}

/** A queue's detail; a missing queue answers `{error:"Queue not found"}` with `X-Queen-Status: 404`. */
export const getQueue = (http: ApiRequester, queue: string, options?: CallOptions): Promise<QueueDetail | NotFoundBody> => send(http, resourceRoutes.getQueue, { queue }, {}, options);

/** `DELETE` of a queue: deleting a missing queue is not an error (`existed:false`). */
export interface DeleteQueueResponse {
  deleted: boolean;
  queue: string;
  existed: boolean;
}

/** Deletes a queue with everything it holds. */
export const deleteQueue = (http: ApiRequester, queue: string, options?: CallOptions): Promise<DeleteQueueResponse> => send(http, resourceRoutes.deleteQueue, { queue }, {}, options);

/** A clear's answer, or the miss (`X-Queen-Status: 404`). */
export type ClearQueueResponse = { success: true; queue: string; partition: string | null; deletedMessages: number } | { success: false; error: string };

/** Deletes every retained message of a queue, or of one partition. */
export const clearQueue = (http: ApiRequester, queue: string, partition?: string, options?: CallOptions): Promise<ClearQueueResponse> =>
  send(http, resourceRoutes.clearQueue, { queue }, { query: { partition } }, options);

/** One namespace and what it holds. */
export interface NamespaceRow {
  namespace: string;
  queues: number;
  partitions: number;
  messages: { total: number; pending: number };
}

/** Lists namespaces. */
export const listNamespaces = (http: ApiRequester, options?: CallOptions): Promise<{ namespaces: NamespaceRow[] }> => send(http, resourceRoutes.listNamespaces, {}, {}, options);

/** One task and what it holds. */
export interface TaskRow {
  task: string;
  queues: number;
  partitions: number;
  messages: { total: number; pending: number };
}

/** Lists tasks. */
export const listTasks = (http: ApiRequester, options?: CallOptions): Promise<{ tasks: TaskRow[] }> => send(http, resourceRoutes.listTasks, {}, {}, options);

/** Average, median, lowest and highest of a lag. */
export interface LagSummary {
  avg: number;
  median: number;
  min: number;
  max: number;
}

/** The system at a glance. */
export interface Overview {
  queues: number;
  partitions: number;
  namespaces: number;
  tasks: number;
  messages: FullMessageCounts;
  lag: { time: LagSummary; offset: LagSummary };
  throughput: { ingestedPerSecond: number; processedPerSecond: number };
  timestamp: string;
  statsAge: number;
}

/** Counts, lag and throughput of the whole system. */
export const getOverview = (http: ApiRequester, options?: CallOptions): Promise<Overview> => send(http, resourceRoutes.getOverview, {}, {}, options);

/** One row of the partition list. */
export interface PartitionRow {
  id: string;
  name: string;
  queue: string;
  namespace: string | null;
  task: string | null;
  createdAt: string;
  lastActivity: string | null;
  messages: MessageCounts;
  consumerGroups: number;
}

/** A page of partitions. */
export interface PartitionList {
  partitions: PartitionRow[];
  total: number;
  pagination: Pagination;
}

/** Lists partitions, optionally of one queue, namespace or task. */
export const listPartitions = (http: ApiRequester, query: { queue?: string; namespace?: string; task?: string; limit?: number; offset?: number } = {}, options?: CallOptions): Promise<PartitionList> =>
  send(http, resourceRoutes.listPartitions, {}, { query }, options);
