/** Response shapes of the API routes the dashboard reads (API.md 7), only the fields it uses. */

/** Message counts by state. */
export interface Counts { total: number; pending: number; processing: number; completed?: number; failed?: number; deadLetter?: number }

/** GET /api/v1/resources/overview */
export interface Overview {
  queues: number; partitions: number; namespaces: number; tasks: number;
  messages: Required<Counts>;
  lag: { time: { avg: number; median: number; min: number; max: number }; offset: { avg: number; max: number } };
  throughput: { ingestedPerSecond: number; processedPerSecond: number };
  statsAge: number;
}

/** One row of GET /api/v1/resources/queues */
export interface QueueRow { id: string; name: string; namespace: string | null; task: string | null; createdAt: string; partitions: number; messages: Counts }

/** The 16 queue options (API.md 2.2) as GET /resources/queues/:q reports them. */
export interface QueueConfig {
  leaseTime: number; retryLimit: number; retryDelay: number; maxSize: number; ttl: number; priority: number;
  delayedProcessing: number; windowBuffer: number; minPopWaitTime: number; retentionSeconds: number;
  completedRetentionSeconds: number; retentionEnabled: boolean; encryptionEnabled: boolean; maxWaitTimeSeconds: number;
  deadLetterQueue: boolean; dlqAfterMaxRetries: boolean;
}

/** GET /api/v1/resources/queues/:q */
export interface QueueDetail {
  id: string; name: string; namespace: string | null; task: string | null; createdAt: string; config: QueueConfig;
  partitions: { id: string; name: string; createdAt: string; stats: Required<Counts>; oldestMessage: string | null; newestMessage: string | null }[];
  totals: Required<Counts>;
}

/** GET /api/v1/status/queues/:q (the fields beyond QueueDetail). */
export interface QueueStatus {
  queue: { name: string; priority: number };
  partitions: { id: string; name: string; cursor: { totalConsumed: number; batchesConsumed: number }; lastActivity: string | null }[];
  totals: { messages: Required<Counts>; partitions: number; consumerGroups: number };
}

/** One row of GET /api/v1/resources/partitions */
export interface PartitionRow { id: string; name: string; queue: string; createdAt: string; lastActivity: string | null; messages: Counts; consumerGroups: number }

/** One row of GET /api/v1/consumer-groups */
export interface GroupRow {
  name: string; topics: string[]; queueName: string; members: number; partitionsWithLag: number; totalLag: number;
  maxTimeLag: number; state: 'Stable' | 'Lagging' | 'Dead'; subscriptionMode: string; subscriptionTimestamp: string | null;
}

/** One row of GET /api/v1/consumer-groups/lagging */
export interface LaggingRow {
  consumer_group: string; queue_name: string; partition_name: string; partition_id: string; worker_id: string | null;
  offset_lag: number; time_lag_seconds: number; oldest_unconsumed_at: string | null;
}

/** GET /api/v1/consumer-groups/:group */
export type GroupDetail = Record<string, { partitions: { partition: string; workerId: string | null; lastConsumedAt: string | null; totalConsumed: number; offsetLag: number; timeLagSeconds: number; leaseActive: boolean }[] }>;

/** One bucket of status `throughput[]`. */
export interface ThroughputPoint { timestamp: string; ingested: number; processed: number; ingestedPerSecond: number; processedPerSecond: number; avgLagMs: number; maxLagMs: number }

/** GET /api/v1/status */
export interface Status {
  bucketMinutes: number;
  throughput: ThroughputPoint[];
  messages: Required<Counts> & { batchEfficiency: { push: number; pop: number; ack: number } };
  leases: { active: number; partitionsWithLeases: number; totalBatchSize: number; totalAcked: number | null };
  deadLetterQueue: { totalMessages: number; affectedPartitions: number; topErrors: { error: string; count: number }[] };
  workers: { workerId: string; hostname: string; pid: number; lastSeen: string }[];
  errors: { dbErrors: number; ackFailed: number; dlqMessages: number };
  statsAge: number;
}

/** One bucket of worker-metrics `timeSeries[]`. */
export interface WorkerPoint { timestamp: string; pushMessages: number; popMessages: number; ackMessages: number; pushRequests: number; popRequests: number; ackRequests: number; transactions: number; errors: number }

/** GET /api/v1/analytics/worker-metrics */
export interface WorkerMetrics { bucketMinutes: number; timeSeries: WorkerPoint[]; workers?: { workerId: string; hostname?: string; lastSeen?: string }[] }

/** One sample of system-metrics. */
export interface SystemPoint {
  timestamp: string; sampleCount: number;
  metrics: {
    cpu: { userPercent: number; systemPercent: number }; memory: { rss: number; heapUsed: number };
    database: { poolSize: number; idle: number; active: number; waiting: number }; eventLoop: { lagMs: number };
    registries: { parkedPops: number; inflightRequests: number };
  };
}

/** GET /api/v1/analytics/system-metrics */
export interface SystemMetrics {
  replicas: { hostname: string; port: number; workerId: string; alive: boolean; timeSeries: SystemPoint[] }[];
  replicaCount: number;
  /** Replicas running now (`alive`): a restarted broker's old samples stay in the window as a stopped replica. */
  aliveCount: number;
  bucketMinutes: number;
}

/** One row of GET /api/v1/analytics/queue-ops */
export interface QueueOpsRow { timestamp: string; queue: string; pushMessages: number; popMessages: number; ackMessages: number; ackFailed: number; transactions: number; dlqMoved: number }

/** One row of GET /api/v1/analytics/queue-lag */
export interface QueueLagRow { timestamp: string; queue: string; popMessages: number; avgLagMs: number; maxLagMs: number }

/** One row of GET /api/v1/analytics/queue-parked-replicas */
export interface ParkedRow { queue: string; serverId: string; parked: number; updatedAt: string }

/** GET /api/v1/analytics/retention */
export interface Retention { history: { timestamp: string; queue: string; partition: string; kind: string; deleted: number }[]; total: number }

/** One row of GET /api/v1/messages */
export interface MessageRow {
  id: string; transactionId: string; partitionId: string; queue: string; partition: string; status: string;
  busStatus: { consumedBy: number; totalGroups: number } | null; traceId: string | null; createdAt: string;
  /** With `preview=N`: the payload's JSON text cut to N characters (null: sealed and not openable). */
  payloadPreview?: string | null; payloadTruncated?: boolean; payloadBytes?: number | null;
}

/** GET /api/v1/messages */
export interface MessageList { messages: MessageRow[]; mode: { hasQueueMode: boolean; busGroupsCount: number; type: string } }

/** GET /api/v1/messages/:pid/:tx */
export interface MessageDetail {
  id: string; transactionId: string; partitionId: string; queue: string; partition: string; status: string; payload: unknown;
  traceId: string | null; createdAt: string; errorMessage: string | null; retryCount: number; leaseExpiresAt: string | null;
  queueConfig: Record<string, number>;
  consumerGroups: { name: string; consumed: boolean; leaseExpiresAt: string | null; retryCount: number; deliveryAttempts: number | null }[];
}

/** One row of GET /api/v1/dlq */
export interface DlqRow { id: string; transactionId: string; partitionId: string; queue: string; partition: string; consumerGroup: string; errorMessage: string | null; retryCount: number; data: unknown; createdAt: string; failedAt: string }

/** GET /api/v1/dlq */
export interface DlqList { messages: DlqRow[]; total: number }

/** One row of GET /api/v1/traces/by-name/:name */
export interface TraceRow { id: string; transaction_id: string; partition_id: string; event_type: string; data: unknown; consumer_group: string | null; worker_id: string | null; created_at: string; queue_name: string; partition_name: string; trace_names: string[] }

/** GET /api/v1/system/maintenance */
export interface Maintenance { maintenanceMode: boolean; popMaintenanceMode: boolean; bufferedMessages: number; bufferStats: { failedCount: number; failedFiles: { totalMB: number } } }

/** GET /api/v1/system/shared-state */
export interface SharedState { serverId: string; processes: { serverId: string; hostname: string; pid: number; startedAt: string; lastHeartbeatAt: string; parkedPops: number }[]; maintenanceMode: boolean; popMaintenanceMode: boolean }
