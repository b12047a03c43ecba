/**
 * Status and analytics reads (docs/api.md §7.10): time-bucketed counters per broker and queue, the queue status
 * pages, the failover buffer and PostgreSQL's statistics. Ranges default to the last hour.
 */
import { route, send, type ApiRequester, type CallOptions, type Query, type Reply, type Wire } from './route.js';

/** Routes of this family. */
export const analyticsRoutes = {
  getStatus: route('getStatus', 'GET', '/api/v1/status', 'READ_ONLY'),
  listQueueStatus: route('listQueueStatus', 'GET', '/api/v1/status/queues', 'READ_ONLY'),
  getQueueStatus: route('getQueueStatus', 'GET', '/api/v1/status/queues/{queue}', 'READ_ONLY'),
  listQueueStatusMessages: route('listQueueStatusMessages', 'GET', '/api/v1/status/queues/{queue}/messages', 'READ_ONLY'),
  getStatusAnalytics: route('getStatusAnalytics', 'GET', '/api/v1/status/analytics', 'READ_ONLY'),
  getBufferStatus: route('getBufferStatus', 'GET', '/api/v1/status/buffers', 'READ_ONLY'),
  getSystemMetrics: route('getSystemMetrics', 'GET', '/api/v1/analytics/system-metrics', 'READ_ONLY'),
  getWorkerMetrics: route('getWorkerMetrics', 'GET', '/api/v1/analytics/worker-metrics', 'READ_ONLY'),
  getQueueLag: route('getQueueLag', 'GET', '/api/v1/analytics/queue-lag', 'READ_ONLY'),
  getQueueOps: route('getQueueOps', 'GET', '/api/v1/analytics/queue-ops', 'READ_ONLY'),
  getParkedReplicas: route('getParkedReplicas', 'GET', '/api/v1/analytics/queue-parked-replicas', 'READ_ONLY'),
  getRetentionHistory: route('getRetentionHistory', 'GET', '/api/v1/analytics/retention', 'READ_ONLY'),
  getPostgresStats: route('getPostgresStats', 'GET', '/api/v1/analytics/postgres-stats', 'READ_ONLY'),
} as const;

/** Dates of a query may be given as Date objects; the SDK sends their ISO text. */
type WithDates<Q> = Omit<Q, 'from' | 'to'> & { from?: string | Date; to?: string | Date };

/** A time range (ISO strings or Dates). */
export type RangeQuery = WithDates<{ from?: string; to?: string }>;

/** Range plus the queue, namespace and task filters. */
export type FilterQuery = WithDates<Query<'getStatus'>>;

/** `GET /api/v1/status`. */
export type StatusResponse = Wire<'Status'>;

/** One broker process as the counters know it. */
export type WorkerRow = StatusResponse['workers'][number];

/** One bucket of the status throughput. */
export type ThroughputPoint = StatusResponse['throughput'][number];

/** Throughput, counts, leases, DLQ and workers over a range. */
export const getStatus = (http: ApiRequester, query: FilterQuery = {}, options?: CallOptions): Promise<StatusResponse> => send(http, analyticsRoutes.getStatus, {}, { query: { ...query } }, options);

/** One queue of the status list. */
export type QueueStatusRow = Reply<'listQueueStatus'>['queues'][number];

/** Queues with their counts. */
export const listQueueStatus = (http: ApiRequester, query: WithDates<Query<'listQueueStatus'>> = {}, options?: CallOptions): Promise<Reply<'listQueueStatus'>> =>
  send(http, analyticsRoutes.listQueueStatus, {}, { query: { ...query } }, options);

/** `GET /api/v1/status/queues/{queue}`. */
export type QueueStatus = Wire<'StatusQueue'>;

/** One partition of a queue's status. */
export type QueueStatusPartition = QueueStatus['partitions'][number];

/**
 * One consumer group of a queue against its own cursors (every partition; an untouched one from where the group
 * will start); `__QUEUE_MODE__` is queue mode.
 */
export type QueueStatusGroup = QueueStatus['consumerGroups'][number];

/** A queue's configuration, partitions and totals; a miss answers `{error}` with `X-Queen-Status: 404`. */
export const getQueueStatus = (http: ApiRequester, queue: string, options?: CallOptions): Promise<Reply<'getQueueStatus'>> =>
  send(http, analyticsRoutes.getQueueStatus, { queue }, {}, options);

/** One message of a queue's status page. */
export type QueueStatusMessage = Reply<'listQueueStatusMessages'>[number];

/** A queue's newest messages (`[]` for an unknown queue). */
export const listQueueStatusMessages = (http: ApiRequester, queue: string, query: Query<'listQueueStatusMessages'> = {}, options?: CallOptions): Promise<QueueStatusMessage[]> =>
  send(http, analyticsRoutes.listQueueStatusMessages, { queue }, { query }, options);

/** Ingested, processed, failed and dead-lettered counts per interval. */
export type StatusAnalytics = Wire<'StatusAnalytics'>;

/** Counts per minute, hour (default) or day over a range (default: the last 24 h). */
export const getStatusAnalytics = (http: ApiRequester, query: WithDates<Query<'getStatusAnalytics'>> = {}, options?: CallOptions): Promise<StatusAnalytics> =>
  send(http, analyticsRoutes.getStatusAnalytics, {}, { query: { ...query } }, options);

/** This process's failover buffer. */
export type BufferStatus = Wire<'BufferStatus'>;

/** The failover buffer of the answering process. */
export const getBufferStatus = (http: ApiRequester, options?: CallOptions): Promise<BufferStatus> => send(http, analyticsRoutes.getBufferStatus, {}, {}, options);

/** CPU, memory, pool and event-loop samples per broker process. */
export type SystemMetrics = Wire<'SystemMetrics'>;

/** One sample bucket of a replica's system metrics. */
export type SystemPoint = SystemMetrics['replicas'][number]['timeSeries'][number];

/** Filters of the per-process series. */
export type ProcessQuery = WithDates<Query<'getSystemMetrics'>>;

/** System samples per broker process over a range. */
export const getSystemMetrics = (http: ApiRequester, query: ProcessQuery = {}, options?: CallOptions): Promise<SystemMetrics> => send(http, analyticsRoutes.getSystemMetrics, {}, { query: { ...query } }, options);

/** Per-minute operation counters. */
export type WorkerMetrics = Wire<'WorkerMetrics'>;

/** One bucket of the operation counters. */
export type WorkerPoint = WorkerMetrics['timeSeries'][number];

/** Operation counters over a range, all processes or one. */
export const getWorkerMetrics = (http: ApiRequester, query: WithDates<Query<'getWorkerMetrics'>> = {}, options?: CallOptions): Promise<WorkerMetrics> => send(http, analyticsRoutes.getWorkerMetrics, {}, { query: { ...query } }, options);

/** One bucket of a queue's pop lag. */
export type QueueLagRow = Reply<'getQueueLag'>[number];

/** Pop lag per queue over a range. */
export const getQueueLag = (http: ApiRequester, query: WithDates<Query<'getQueueLag'>> = {}, options?: CallOptions): Promise<QueueLagRow[]> => send(http, analyticsRoutes.getQueueLag, {}, { query: { ...query } }, options);

/** One bucket of a queue's operation counts. */
export type QueueOpsRow = Reply<'getQueueOps'>[number];

/** Operation counts per queue over a range. */
export const getQueueOps = (http: ApiRequester, query: WithDates<Query<'getQueueOps'>> = {}, options?: CallOptions): Promise<QueueOpsRow[]> => send(http, analyticsRoutes.getQueueOps, {}, { query: { ...query } }, options);

/** Parked long-polls of one queue in one process. */
export type ParkedRow = Reply<'getParkedReplicas'>[number];

/** Parked long-polls per queue and process. */
export const getParkedReplicas = (http: ApiRequester, query: Query<'getParkedReplicas'> = {}, options?: CallOptions): Promise<ParkedRow[]> => send(http, analyticsRoutes.getParkedReplicas, {}, { query }, options);

/** A page of the retention history. */
export type RetentionHistory = Wire<'RetentionHistory'>;

/** What one retention, eviction or cleanup pass deleted. */
export type RetentionRow = RetentionHistory['history'][number];

/** What retention and eviction deleted over a range. */
export const getRetentionHistory = (http: ApiRequester, query: WithDates<Query<'getRetentionHistory'>> = {}, options?: CallOptions): Promise<RetentionHistory> =>
  send(http, analyticsRoutes.getRetentionHistory, {}, { query: { ...query } }, options);

/** PostgreSQL's statistics for the `queen` schema (docs/api.md §7.10). */
export type PostgresStats = Wire<'PostgresStats'>;

/** PostgreSQL's statistics views, restricted to schema `queen`. */
export const getPostgresStats = (http: ApiRequester, options?: CallOptions): Promise<PostgresStats> => send(http, analyticsRoutes.getPostgresStats, {}, {}, options);
