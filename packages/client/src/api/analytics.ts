/**
 * Status and analytics reads (docs/api.md §7.10): time-bucketed counters per broker and queue, the queue status
 * pages, the failover buffer and PostgreSQL's statistics. Ranges default to the last hour.
 */
import { route, send, type ApiRequester, type CallOptions, type NotFoundBody } from './route.js';
import type { FullMessageCounts, MessageCounts, Pagination, QueueListRow } from './resources.js';

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

/** A time range (ISO strings or Dates). */
export interface RangeQuery {
  from?: string | Date;
  to?: string | Date;
}

/** Range plus the queue, namespace and task filters. */
export interface FilterQuery extends RangeQuery {
  queue?: string;
  namespace?: string;
  task?: string;
}

/** One broker process as the counters know it. */
export interface WorkerRow {
  workerId: string;
  hostname: string;
  pid: number;
  lastSeen: string;
}

/** One bucket of the status throughput. */
export interface ThroughputPoint {
  timestamp: string;
  ingested: number;
  processed: number;
  ingestedPerSecond: number;
  processedPerSecond: number;
  avgLagMs: number;
  maxLagMs: number;
}

/** `GET /api/v1/status`. */
export interface StatusResponse {
  timeRange: { from: string; to: string };
  bucketMinutes: number;
  pointCount: number;
  throughput: ThroughputPoint[];
  queues: Array<{ id: string; name: string; namespace: string | null; task: string | null; partitions: number; totalConsumed: number }>;
  messages: FullMessageCounts & { requests: { push: number; pop: number; ack: number }; batchEfficiency: { push: number; pop: number; ack: number } };
  leases: { active: number; partitionsWithLeases: number; totalBatchSize: number; totalAcked: number | null };
  deadLetterQueue: { totalMessages: number; affectedPartitions: number; topErrors: Array<{ error: string; count: number }> };
  workers: WorkerRow[];
  errors: { dbErrors: number; ackFailed: number; dlqMessages: number };
  /** The installation's pending messages sampled once a minute (latest per bucket); empty when filtered. */
  pendingHistory: Array<{ timestamp: string; pending: number }>;
  statsAge: number;
}

/** Throughput, counts, leases, DLQ and workers over a range. */
export const getStatus = (http: ApiRequester, query: FilterQuery = {}, options?: CallOptions): Promise<StatusResponse> => send(http, analyticsRoutes.getStatus, {}, { query: { ...query } }, options);

/** One queue of the status list: the same row as the queue list's. */
export type QueueStatusRow = QueueListRow;

/** Queues with their counts. */
export const listQueueStatus = (http: ApiRequester, query: RangeQuery & { namespace?: string; task?: string; limit?: number; offset?: number } = {}, options?: CallOptions): Promise<{ queues: QueueStatusRow[]; pagination: Pagination }> =>
  send(http, analyticsRoutes.listQueueStatus, {}, { query: { ...query } }, options);

/** One partition of a queue's status. */
export interface QueueStatusPartition {
  id: string;
  name: string;
  createdAt: string;
  messages: FullMessageCounts;
  stats: { pushedLastHour: number; consumedLastHour: number; avgLagSeconds: number };
  cursor: { totalConsumed: number; batchesConsumed: number };
  lastActivity: string | null;
  oldestMessage: string | null;
  newestMessage: string | null;
}

/** `GET /api/v1/status/queues/{queue}`. */
export interface QueueStatus {
  queue: {
    id: string;
    name: string;
    namespace: string | null;
    task: string | null;
    priority: number;
    createdAt: string;
    config: {
      leaseTime: number; retryLimit: number; retryDelay: number; ttl: number; maxQueueSize: number; deadLetterQueue: boolean; dlqAfterMaxRetries: boolean;
      delayedProcessing: number; windowBuffer: number; minPopWaitTime: number; retentionSeconds: number; completedRetentionSeconds: number;
      retentionEnabled: boolean; encryptionEnabled: boolean; maxWaitTimeSeconds: number;
    };
  };
  partitions: QueueStatusPartition[];
  totals: { messages: FullMessageCounts; partitions: number; consumerGroups: number };
  consumerGroups: QueueStatusGroup[];
}

/**
 * One consumer group of a queue against its own cursors (every partition; an untouched one from where the group
 * will start); `__QUEUE_MODE__` is queue mode.
 */
export interface QueueStatusGroup {
  name: string;
  completed: number;
  processing: number;
  pending: number;
  /** Partitions the group has touched. */
  partitions: number;
  /** Age of the oldest retained message the group has not consumed; 0 when caught up. */
  timeLagSeconds: number;
}

/** A queue's configuration, partitions and totals; a miss answers `{error}` with `X-Queen-Status: 404`. */
export const getQueueStatus = (http: ApiRequester, queue: string, query: { includePartitions?: boolean } = {}, options?: CallOptions): Promise<QueueStatus | NotFoundBody> =>
  send(http, analyticsRoutes.getQueueStatus, { queue }, { query }, options);

/** One message of a queue's status page. */
export interface QueueStatusMessage {
  id: string;
  transactionId: string;
  partitionId: string;
  queuePath: string;
  queue: string;
  partition: string;
  status: string;
  createdAt: string;
}

/** A queue's newest messages (`[]` for an unknown queue). */
export const listQueueStatusMessages = (http: ApiRequester, queue: string, query: { limit?: number; offset?: number } = {}, options?: CallOptions): Promise<QueueStatusMessage[]> =>
  send(http, analyticsRoutes.listQueueStatusMessages, { queue }, { query }, options);

/** Ingested, processed, failed and dead-lettered counts per interval. */
export interface StatusAnalytics {
  dataPoints: Array<{ timestamp: string; messages: { ingested: number; processed: number; failed: number; deadLetter: number } }>;
  interval: 'minute' | 'hour' | 'day';
  from: string;
  to: string;
}

/** Counts per minute, hour (default) or day over a range (default: the last 24 h). */
export const getStatusAnalytics = (http: ApiRequester, query: FilterQuery & { interval?: 'minute' | 'hour' | 'day' } = {}, options?: CallOptions): Promise<StatusAnalytics> =>
  send(http, analyticsRoutes.getStatusAnalytics, {}, { query: { ...query } }, options);

/** This process's failover buffer. */
export interface BufferStatus {
  pending: number;
  failed: number;
  dbHealthy: boolean;
  worker: string;
}

/** The failover buffer of the answering process. */
export const getBufferStatus = (http: ApiRequester, options?: CallOptions): Promise<BufferStatus> => send(http, analyticsRoutes.getBufferStatus, {}, {}, options);

/** One sample bucket of a replica's system metrics. */
export interface SystemPoint {
  timestamp: string;
  sampleCount: number;
  metrics: {
    cpu: { userPercent: number; systemPercent: number };
    memory: { rss: number; heapUsed: number };
    database: { poolSize: number; idle: number; active: number; waiting: number };
    eventLoop: { lagMs: number };
    registries: { parkedPops: number; inflightRequests: number };
  };
}

/** CPU, memory, pool and event-loop samples per broker process. */
export interface SystemMetrics {
  timeRange: { from: string; to: string };
  replicas: Array<{ hostname: string; port: number; workerId: string; alive: boolean; timeSeries: SystemPoint[] }>;
  replicaCount: number;
  /** Replicas running now (`alive`): a restarted broker's old samples stay in the window as a stopped replica. */
  aliveCount: number;
  bucketMinutes: number;
}

/** Filters of the per-process series. */
export type ProcessQuery = RangeQuery & { hostname?: string; workerId?: string };

/** System samples per broker process over a range. */
export const getSystemMetrics = (http: ApiRequester, query: ProcessQuery = {}, options?: CallOptions): Promise<SystemMetrics> => send(http, analyticsRoutes.getSystemMetrics, {}, { query: { ...query } }, options);

/** One bucket of the operation counters. */
export interface WorkerPoint {
  timestamp: string;
  pushRequests: number;
  pushMessages: number;
  popRequests: number;
  popMessages: number;
  ackRequests: number;
  ackMessages: number;
  transactions: number;
  errors: number;
}

/** Per-minute operation counters. */
export interface WorkerMetrics {
  timeRange: { from: string; to: string };
  bucketMinutes: number;
  pointCount: number;
  timeSeries: WorkerPoint[];
  workers: WorkerRow[];
  queues: Array<{ queue: string; pushMessages: number; popMessages: number; ackMessages: number }>;
  summary: { pushMessages: number; popMessages: number; ackMessages: number; errors: number };
}

/** Operation counters over a range, all processes or one. */
export const getWorkerMetrics = (http: ApiRequester, query: ProcessQuery = {}, options?: CallOptions): Promise<WorkerMetrics> => send(http, analyticsRoutes.getWorkerMetrics, {}, { query: { ...query } }, options);

/** One bucket of a queue's pop lag. */
export interface QueueLagRow {
  timestamp: string;
  queue: string;
  popMessages: number;
  avgLagMs: number;
  maxLagMs: number;
}

/** Pop lag per queue over a range. */
export const getQueueLag = (http: ApiRequester, query: RangeQuery & { queue?: string } = {}, options?: CallOptions): Promise<QueueLagRow[]> => send(http, analyticsRoutes.getQueueLag, {}, { query: { ...query } }, options);

/** One bucket of a queue's operation counts. */
export interface QueueOpsRow {
  timestamp: string;
  queue: string;
  pushRequests: number;
  pushMessages: number;
  popRequests: number;
  popMessages: number;
  ackRequests: number;
  ackMessages: number;
  ackFailed: number;
  transactions: number;
  dlqMoved: number;
}

/** Operation counts per queue over a range. */
export const getQueueOps = (http: ApiRequester, query: RangeQuery & { queue?: string } = {}, options?: CallOptions): Promise<QueueOpsRow[]> => send(http, analyticsRoutes.getQueueOps, {}, { query: { ...query } }, options);

/** Parked long-polls of one queue in one process. */
export interface ParkedRow {
  queue: string;
  serverId: string;
  parked: number;
  updatedAt: string;
}

/** Parked long-polls per queue and process. */
export const getParkedReplicas = (http: ApiRequester, query: { queue?: string } = {}, options?: CallOptions): Promise<ParkedRow[]> => send(http, analyticsRoutes.getParkedReplicas, {}, { query }, options);

/** What one retention, eviction or cleanup pass deleted. */
export interface RetentionRow {
  timestamp: string;
  queue: string;
  partition: string;
  kind: 'retention' | 'completed' | 'eviction' | 'partition_cleanup';
  deleted: number;
}

/** A page of the retention history. */
export interface RetentionHistory {
  history: RetentionRow[];
  total: number;
  pagination: Pagination;
}

/** What retention and eviction deleted over a range. */
export const getRetentionHistory = (http: ApiRequester, query: RangeQuery & { queue?: string; limit?: number; offset?: number } = {}, options?: CallOptions): Promise<RetentionHistory> =>
  send(http, analyticsRoutes.getRetentionHistory, {}, { query: { ...query } }, options);

/** PostgreSQL's statistics for the `queen` schema (docs/api.md §7.10). */
export interface PostgresStats {
  timestamp: string;
  database: { name: string; size: string; connections: number; maxConnections: number; serverVersion: string; deadlocks: number };
  databaseCache: { hitRatio: number | null; blocksHit: number; blocksRead: number };
  tableCache: Array<{ table: string; blocksHit: number; blocksRead: number; hitRatio: number | null }>;
  indexCache: Array<{ index: string; table: string; blocksHit: number; blocksRead: number; hitRatio: number | null }>;
  cacheSummary: { tableHitRatio: number | null; indexHitRatio: number | null };
  deadTuples: Array<{ table: string; deadTuples: number; liveTuples: number; deadRatio: number | null }>;
  hotUpdates: Array<{ table: string; updates: number; hotUpdates: number; hotRatio: number | null }>;
  activeQueries: Array<{ pid: number; state: string | null; durationMs: number | null; query: string; waitEvent: string | null }>;
  autovacuumStatus: Array<{ table: string; lastAutovacuum: string | null; lastAutoanalyze: string | null }>;
  bufferConfig: { sharedBuffers: string };
  bufferUsage: Array<{ relation: string; percentOfSharedBuffers: number | null }>;
  tableSizes: Array<{ table: string; totalSize: string; tableBytes: number; indexBytes: number }>;
}

/** PostgreSQL's statistics views, restricted to schema `queen`. */
export const getPostgresStats = (http: ApiRequester, options?: CallOptions): Promise<PostgresStats> => send(http, analyticsRoutes.getPostgresStats, {}, {}, options);
