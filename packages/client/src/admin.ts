/**
 * `queen.admin` (CLIENT.md §7): one method per admin route, each returning the broker's parsed body. Admin
 * look-ups that miss answer 200 with `X-Queen-Status: 404` and resolve with the `{error}` body, as the
 * official client does; real 4xx/5xx reject. Every name in a path is percent-encoded.
 */
import { queryString, seg, type Transport } from './http.js';
import type { QueryParams } from './types.js';

/** A parsed JSON body whose shape is given by API.md. */
export type AdminBody = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- broker shapes are documented in API.md §7, not modelled here

const iso = (value: string | Date): string => (value instanceof Date ? value.toISOString() : value);

/** Admin and monitoring routes. */
export class Admin {
  constructor(private readonly transport: Transport) {}

  private async call(method: 'GET' | 'POST' | 'DELETE', path: string, params?: QueryParams, body?: unknown): Promise<AdminBody> {
    const res = await this.transport.request({ method, path: `${path}${queryString(params)}`, ...(body === undefined ? {} : { body }) });
    return res.body;
  }

  /** `GET /health`. */ health = () => this.call('GET', '/health');
  /** `GET /metrics`. */ metrics = () => this.call('GET', '/metrics');
  /** `GET /metrics/prometheus` (text). */ prometheusMetrics = async (): Promise<string> => String(await this.call('GET', '/metrics/prometheus'));

  /** `GET /api/v1/system/maintenance`. */ getMaintenanceMode = () => this.call('GET', '/api/v1/system/maintenance');
  /** `POST /api/v1/system/maintenance`. */ setMaintenanceMode = (enabled: boolean) => this.call('POST', '/api/v1/system/maintenance', undefined, { enabled });
  /** `GET /api/v1/system/maintenance/pop`. */ getPopMaintenanceMode = () => this.call('GET', '/api/v1/system/maintenance/pop');
  /** `POST /api/v1/system/maintenance/pop`. */ setPopMaintenanceMode = (enabled: boolean) => this.call('POST', '/api/v1/system/maintenance/pop', undefined, { enabled });
  /** `GET /api/v1/system/shared-state`. */ getSharedState = () => this.call('GET', '/api/v1/system/shared-state');

  /** `GET /api/v1/resources/queues`. */ listQueues = (params?: QueryParams) => this.call('GET', '/api/v1/resources/queues', params);
  /** `GET /api/v1/resources/queues/:name`. */ getQueue = (name: string) => this.call('GET', `/api/v1/resources/queues/${seg(name)}`);
  /** `DELETE /api/v1/resources/queues/:name`. */ deleteQueue = (name: string) => this.call('DELETE', `/api/v1/resources/queues/${seg(name)}`);
  /** `DELETE /api/v1/queues/:name/clear`. */ clearQueue = (name: string, partition?: string) => this.call('DELETE', `/api/v1/queues/${seg(name)}/clear`, { partition });
  /** `GET /api/v1/resources/namespaces`. */ getNamespaces = () => this.call('GET', '/api/v1/resources/namespaces');
  /** `GET /api/v1/resources/tasks`. */ getTasks = () => this.call('GET', '/api/v1/resources/tasks');
  /** `GET /api/v1/resources/overview`. */ getOverview = () => this.call('GET', '/api/v1/resources/overview');
  /** `GET /api/v1/resources/partitions`. */ getPartitions = (params?: QueryParams) => this.call('GET', '/api/v1/resources/partitions', params);

  /** `GET /api/v1/messages`. */ listMessages = (params?: QueryParams) => this.call('GET', '/api/v1/messages', params);
  /** `GET /api/v1/messages/:partitionId/:transactionId`. */
  getMessage = (partitionId: string, transactionId: string) => this.call('GET', `/api/v1/messages/${seg(partitionId)}/${seg(transactionId)}`);
  /** `DELETE /api/v1/messages/:partitionId/:transactionId`. */
  deleteMessage = (partitionId: string, transactionId: string) => this.call('DELETE', `/api/v1/messages/${seg(partitionId)}/${seg(transactionId)}`);
  /** `POST /api/v1/messages/:partitionId/:transactionId/retry`. */
  retryMessage = (partitionId: string, transactionId: string) => this.call('POST', `/api/v1/messages/${seg(partitionId)}/${seg(transactionId)}/retry`, undefined, {});
  /** `POST /api/v1/messages/:partitionId/:transactionId/dlq`. */
  moveMessageToDLQ = (partitionId: string, transactionId: string, options: { consumerGroup?: string; error?: string } = {}) =>
    this.call('POST', `/api/v1/messages/${seg(partitionId)}/${seg(transactionId)}/dlq`, undefined, options);
  /** `GET /api/v1/dlq`. */ getDLQ = (params?: QueryParams) => this.call('GET', '/api/v1/dlq', params);

  /** `POST /api/v1/traces`. */
  recordTrace = (input: { transactionId: string; partitionId: string; data: unknown; consumerGroup?: string; eventType?: string; traceNames?: string | string[] | null }) =>
    this.call('POST', '/api/v1/traces', undefined, input);
  /** `GET /api/v1/traces/:partitionId/:transactionId`. */
  getTracesForMessage = (partitionId: string, transactionId: string) => this.call('GET', `/api/v1/traces/${seg(partitionId)}/${seg(transactionId)}`);
  /** `GET /api/v1/traces/by-name/:traceName`. */ getTracesByName = (traceName: string, params?: QueryParams) => this.call('GET', `/api/v1/traces/by-name/${seg(traceName)}`, params);
  /** `GET /api/v1/traces/names`. */ getTraceNames = (params?: QueryParams) => this.call('GET', '/api/v1/traces/names', params);

  /** `GET /api/v1/status`. */ getStatus = (params?: QueryParams) => this.call('GET', '/api/v1/status', params);
  /** `GET /api/v1/status/queues`. */ getQueueStats = (params?: QueryParams) => this.call('GET', '/api/v1/status/queues', params);
  /** `GET /api/v1/status/queues/:name`. */ getQueueDetail = (name: string, params?: QueryParams) => this.call('GET', `/api/v1/status/queues/${seg(name)}`, params);
  /** `GET /api/v1/status/queues/:name/messages`. */ getQueueMessages = (name: string, params?: QueryParams) => this.call('GET', `/api/v1/status/queues/${seg(name)}/messages`, params);
  /** `GET /api/v1/status/analytics`. */ getAnalytics = (params?: QueryParams) => this.call('GET', '/api/v1/status/analytics', params);
  /** `GET /api/v1/status/buffers`. */ getBufferStatus = () => this.call('GET', '/api/v1/status/buffers');
  /** `GET /api/v1/analytics/system-metrics`. */ getSystemMetrics = (params?: QueryParams) => this.call('GET', '/api/v1/analytics/system-metrics', params);
  /** `GET /api/v1/analytics/worker-metrics`. */ getWorkerMetrics = (params?: QueryParams) => this.call('GET', '/api/v1/analytics/worker-metrics', params);
  /** `GET /api/v1/analytics/queue-lag`. */ getQueueLag = (params?: QueryParams) => this.call('GET', '/api/v1/analytics/queue-lag', params);
  /** `GET /api/v1/analytics/queue-ops`. */ getQueueOps = (params?: QueryParams) => this.call('GET', '/api/v1/analytics/queue-ops', params);
  /** `GET /api/v1/analytics/queue-parked-replicas`. */ getParkedReplicas = (params?: QueryParams) => this.call('GET', '/api/v1/analytics/queue-parked-replicas', params);
  /** `GET /api/v1/analytics/retention`. */ getRetentionHistory = (params?: QueryParams) => this.call('GET', '/api/v1/analytics/retention', params);
  /** `GET /api/v1/analytics/postgres-stats`. */ getPostgresStats = () => this.call('GET', '/api/v1/analytics/postgres-stats');
  /** `POST /api/v1/stats/refresh`. */ refreshConsumerStats = () => this.call('POST', '/api/v1/stats/refresh', undefined, {});

  /** `GET /api/v1/consumer-groups`. */ listConsumerGroups = () => this.call('GET', '/api/v1/consumer-groups');
  /** `GET /api/v1/consumer-groups/lagging`. */ getLaggingConsumers = (minLagSeconds = 60) => this.call('GET', '/api/v1/consumer-groups/lagging', { minLagSeconds });
  /** `GET /api/v1/consumer-groups/:name`. */ getConsumerGroup = (name: string) => this.call('GET', `/api/v1/consumer-groups/${seg(name)}`);
  /** `DELETE /api/v1/consumer-groups/:group`. */
  deleteConsumerGroup = (group: string, deleteMetadata = true) => this.call('DELETE', `/api/v1/consumer-groups/${seg(group)}`, { deleteMetadata });
  /** `DELETE /api/v1/consumer-groups/:group/queues/:queue`. */
  deleteConsumerGroupForQueue = (group: string, queue: string, deleteMetadata = true) =>
    this.call('DELETE', `/api/v1/consumer-groups/${seg(group)}/queues/${seg(queue)}`, { deleteMetadata });
  /** `POST /api/v1/consumer-groups/:group/subscription`. */
  updateSubscription = (group: string, timestamp: string | Date) => this.call('POST', `/api/v1/consumer-groups/${seg(group)}/subscription`, undefined, { subscriptionTimestamp: iso(timestamp) });
  /** `POST /api/v1/consumer-groups/:group/queues/:queue/seek`. */
  seekConsumerGroup = (group: string, queue: string, options: { toEnd: true } | { timestamp: string | Date }) =>
    this.call('POST', `/api/v1/consumer-groups/${seg(group)}/queues/${seg(queue)}/seek`, undefined, seekBody(options));
  /** `POST /api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek`. */
  seekConsumerGroupPartition = (group: string, queue: string, partition: string, options?: { toEnd: true } | { timestamp: string | Date }) =>
    this.call('POST', `/api/v1/consumer-groups/${seg(group)}/queues/${seg(queue)}/partitions/${seg(partition)}/seek`, undefined, options ? seekBody(options) : {});
}

function seekBody(options: { toEnd: true } | { timestamp: string | Date }): Record<string, unknown> {
  return 'timestamp' in options ? { timestamp: iso(options.timestamp) } : { toEnd: true };
}
