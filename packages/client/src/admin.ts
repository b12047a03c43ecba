/**
 * `queen.admin` (docs/client.md): one method per admin route, each a thin alias of the API layer's function
 * (`./api/`) and resolving with its typed answer. Admin look-ups that miss answer 200 with `X-Queen-Status: 404`
 * and resolve with the `{error}` body, as the official client does (hence the `| NotFoundBody` unions); real
 * 4xx/5xx reject. Every name in a path is percent-encoded.
 */
import * as api from './api/index.js';
import type { Transport } from './http.js';
import type { DlqPage, QueryParams } from './types.js';

/**
 * A parsed JSON body of an admin route. Kept for compatibility: every method now resolves with its route's
 * own type (see `@queen/client/api`), so this is only the most general of them.
 */
export type AdminBody = unknown;

/** Admin and monitoring routes. */
export class Admin {
  constructor(private readonly transport: Transport) {}

  /** Operation `health`. */ health = () => api.health(this.transport);
  /** Operation `ready`. */ ready = () => api.ready(this.transport);
  /** Operation `metrics`. */ metrics = () => api.metrics(this.transport);
  /** Operation `prometheusMetrics` (text). */ prometheusMetrics = () => api.prometheusMetrics(this.transport);

  /** Operation `getMaintenance`. */ getMaintenanceMode = () => api.getMaintenance(this.transport);
  /** Operation `setMaintenance`. */ setMaintenanceMode = (enabled: boolean) => api.setMaintenance(this.transport, enabled);
  /** Operation `getPopMaintenance`. */ getPopMaintenanceMode = () => api.getPopMaintenance(this.transport);
  /** Operation `setPopMaintenance`. */ setPopMaintenanceMode = (enabled: boolean) => api.setPopMaintenance(this.transport, enabled);
  /** Operation `getSharedState`. */ getSharedState = () => api.getSharedState(this.transport);

  /** Operation `listQueues`. */ listQueues = (params?: QueryParams) => api.listQueues(this.transport, params);
  /** Operation `getQueue`. */ getQueue = (name: string) => api.getQueue(this.transport, name);
  /** Operation `deleteQueue`. */ deleteQueue = (name: string) => api.deleteQueue(this.transport, name);
  /** Operation `clearQueue`. */ clearQueue = (name: string, partition?: string) => api.clearQueue(this.transport, name, partition);
  /** Operation `listNamespaces`. */ getNamespaces = () => api.listNamespaces(this.transport);
  /** Operation `listTasks`. */ getTasks = () => api.listTasks(this.transport);
  /** Operation `getOverview`. */ getOverview = () => api.getOverview(this.transport);
  /** Operation `listPartitions`. */ getPartitions = (params?: QueryParams) => api.listPartitions(this.transport, params);

  /** Operation `listMessages`. */ listMessages = (params?: QueryParams) => api.listMessages(this.transport, params);
  /** Operation `getMessage`. */ getMessage = (partitionId: string, transactionId: string) => api.getMessage(this.transport, partitionId, transactionId);
  /** Operation `deleteMessage`. */ deleteMessage = (partitionId: string, transactionId: string) => api.deleteMessage(this.transport, partitionId, transactionId);
  /** Operation `retryMessage`. */ retryMessage = (partitionId: string, transactionId: string) => api.retryMessage(this.transport, partitionId, transactionId);
  /** Operation `moveMessageToDlq`. */
  moveMessageToDLQ = (partitionId: string, transactionId: string, options: { consumerGroup?: string; error?: string } = {}) => api.moveMessageToDlq(this.transport, partitionId, transactionId, options);
  /** Operation `listDlq`. */ getDLQ = <T = unknown>(params?: QueryParams): Promise<DlqPage<T>> => api.listDlq<T>(this.transport, params);

  /** Operation `recordTrace`. */ recordTrace = (input: api.RecordTraceRequest) => api.recordTrace(this.transport, input);
  /** Operation `getTraces`. */ getTracesForMessage = (partitionId: string, transactionId: string) => api.getTraces(this.transport, partitionId, transactionId);
  /** Operation `listTracesByName`. */ getTracesByName = (traceName: string, params?: QueryParams) => api.listTracesByName(this.transport, traceName, params);
  /** Operation `listTraceNames`. */ getTraceNames = (params?: QueryParams) => api.listTraceNames(this.transport, params);

  /** Operation `getStatus`. */ getStatus = (params?: QueryParams) => api.getStatus(this.transport, params);
  /** Operation `listQueueStatus`. */ getQueueStats = (params?: QueryParams) => api.listQueueStatus(this.transport, params);
  /** Operation `getQueueStatus`. */ getQueueDetail = (name: string) => api.getQueueStatus(this.transport, name);
  /** Operation `listQueueStatusMessages`. */ getQueueMessages = (name: string, params?: QueryParams) => api.listQueueStatusMessages(this.transport, name, params);
  /** Operation `getStatusAnalytics`. */ getAnalytics = (params?: QueryParams) => api.getStatusAnalytics(this.transport, params);
  /** Operation `getBufferStatus`. */ getBufferStatus = () => api.getBufferStatus(this.transport);
  /** Operation `getSystemMetrics`. */ getSystemMetrics = (params?: QueryParams) => api.getSystemMetrics(this.transport, params);
  /** Operation `getWorkerMetrics`. */ getWorkerMetrics = (params?: QueryParams) => api.getWorkerMetrics(this.transport, params);
  /** Operation `getQueueLag`. */ getQueueLag = (params?: QueryParams) => api.getQueueLag(this.transport, params);
  /** Operation `getQueueOps`. */ getQueueOps = (params?: QueryParams) => api.getQueueOps(this.transport, params);
  /** Operation `getParkedReplicas`. */ getParkedReplicas = (params?: QueryParams) => api.getParkedReplicas(this.transport, params);
  /** Operation `getRetentionHistory`. */ getRetentionHistory = (params?: QueryParams) => api.getRetentionHistory(this.transport, params);
  /** Operation `getPostgresStats`. */ getPostgresStats = () => api.getPostgresStats(this.transport);
  /** Operation `refreshStats`. */ refreshConsumerStats = () => api.refreshStats(this.transport);

  /** Operation `listConsumerGroups`. */ listConsumerGroups = () => api.listConsumerGroups(this.transport);
  /** Operation `listLaggingConsumerGroups`. */ getLaggingConsumers = (minLagSeconds = 60) => api.listLaggingConsumerGroups(this.transport, { minLagSeconds });
  /** Operation `getConsumerGroup`. */ getConsumerGroup = (name: string) => api.getConsumerGroup(this.transport, name);
  /** Operation `deleteConsumerGroup`. */ deleteConsumerGroup = (group: string, deleteMetadata = true) => api.deleteConsumerGroup(this.transport, group, { deleteMetadata });
  /** Operation `deleteConsumerGroupForQueue`. */
  deleteConsumerGroupForQueue = (group: string, queue: string, deleteMetadata = true) => api.deleteConsumerGroupForQueue(this.transport, group, queue, { deleteMetadata });
  /** Operation `updateSubscription`. */ updateSubscription = (group: string, timestamp: string | Date) => api.updateSubscription(this.transport, group, timestamp);
  /** Operation `seekQueue`. */ seekConsumerGroup = (group: string, queue: string, options: api.SeekTarget) => api.seekQueue(this.transport, group, queue, options);
  /** Operation `seekPartition`. */
  seekConsumerGroupPartition = (group: string, queue: string, partition: string, options?: api.SeekTarget) => api.seekPartition(this.transport, group, queue, partition, options);
}
