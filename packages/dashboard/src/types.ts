/**
 * The response shapes the dashboard reads, under the names its views use: aliases of the SDK's API layer
 * types (`@queen/client/api`), so a response is described once, next to the function that fetches it.
 */
import type * as wire from '@queen/client/api';
import type { DlqEntry, DlqPage, QueueOptions } from '@queen/client';

/** Message counts by state (list rows carry three, details all six). */
export type Counts = wire.MessageCounts & Partial<wire.FullMessageCounts>;
/** Operation getPostgresStats. */
export type PgStats = wire.PostgresStats;
/** A message's status, as the message list filters by it. */
export type MessageStatus = wire.MessageStatus;
/** Operation getOverview. */
export type Overview = wire.Overview;
/** One row of operation listQueues. */
export type QueueRow = wire.QueueListRow;
/** The 16 queue options (docs/api.md 2.2) as getQueue reports them. */
export type QueueConfig = Required<QueueOptions>;
/** Operation getQueue. */
export type QueueDetail = wire.QueueDetail;
/** Operation getQueueStatus. */
export type QueueStatus = wire.QueueStatus;
/** One row of operation listPartitions. */
export type PartitionRow = wire.PartitionRow;
/** One row of operation listConsumerGroups. */
export type GroupRow = wire.ConsumerGroupRow;
/** One row of operation listLaggingConsumerGroups. */
export type LaggingRow = wire.LaggingRow;
/** Operation getConsumerGroup. */
export type GroupDetail = wire.ConsumerGroupDetail;
/** One bucket of status `throughput[]`. */
export type ThroughputPoint = wire.ThroughputPoint;
/** Operation getStatus. */
export type Status = wire.StatusResponse;
/** One bucket of worker-metrics `timeSeries[]`. */
export type WorkerPoint = wire.WorkerPoint;
/** Operation getWorkerMetrics. */
export type WorkerMetrics = wire.WorkerMetrics;
/** One sample of system-metrics. */
export type SystemPoint = wire.SystemPoint;
/** Operation getSystemMetrics. */
export type SystemMetrics = wire.SystemMetrics;
/** One row of operation getQueueOps. */
export type QueueOpsRow = wire.QueueOpsRow;
/** One row of operation getQueueLag. */
export type QueueLagRow = wire.QueueLagRow;
/** One row of operation getParkedReplicas. */
export type ParkedRow = wire.ParkedRow;
/** Operation getRetentionHistory. */
export type Retention = wire.RetentionHistory;
/** One row of operation listMessages. */
export type MessageRow = wire.MessageListRow;
/** Operation listMessages. */
export type MessageList = wire.MessageList;
/** Operation getMessage. */
export type MessageDetail = wire.MessageDetail;
/** One row of operation listDlq. */
export type DlqRow = DlqEntry;
/** Operation listDlq. */
export type DlqList = DlqPage;
/** One row of operation listTracesByName. */
export type TraceRow = wire.NamedTraceRow;
/** Operation getMaintenance. */
export type Maintenance = wire.MaintenanceStatus;
/** Operation getSharedState. */
export type SharedState = wire.SharedState;
