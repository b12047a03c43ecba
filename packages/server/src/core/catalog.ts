/**
 * The catalog: every administrative and monitoring read (and the few administrative writes) the routes make
 * beside the hot paths, as one interface of plain functions. Routes call it instead of `store/`; the broker
 * binds it to the pool at start-up (boot/catalog.ts). The signatures are those of the store functions minus
 * their database handle, so a new store statement joins the catalog with one line here and one in the binding.
 *
 * Reads that must agree with each other run inside `snapshot` (one REPEATABLE READ transaction) or
 * `messageSnapshot` (the message views' transaction).
 */
import type * as consumerGroups from '../store/consumer-groups.js';
import type * as cursors from '../store/cursors.js';
import type * as deadLetters from '../store/dead-letters.js';
import type * as heartbeats from '../store/heartbeats.js';
import type * as maintenance from '../store/maintenance.js';
import type * as messages from '../store/messages.js';
import type * as postgresStats from '../store/postgres-stats.js';
import type * as queues from '../store/queues.js';
import type * as resources from '../store/resources.js';
import type * as retention from '../store/retention.js';
import type * as stats from '../store/stats.js';
import type * as status from '../store/status.js';
import type * as traces from '../store/traces.js';

export type { CounterFilter } from '../store/stats.js';
export type { MessageFilter } from '../store/messages.js';
export type { PartitionFacts } from '../store/queues.js';
export type { PartitionListing, QueueListing } from '../store/resources.js';
export type { QueueFilter } from '../store/status.js';
export type { SeekTarget } from '../store/consumer-groups.js';

/** A store function without its leading database handle. */
export type Bound<F> = F extends (db: never, ...args: infer A) => infer R ? (...args: A) => R : never;

/** The reads a consistent snapshot offers (status page, worker metrics, retention history). */
export interface SnapshotReads {
  counterSeries: Bound<typeof stats.counterSeries>;
  counterQueueSeries: Bound<typeof stats.counterQueueSeries>;
  queueSummaryList: Bound<typeof status.queueSummaryList>;
  leaseSummary: Bound<typeof status.leaseSummary>;
  deadLetterSummary: Bound<typeof status.deadLetterSummary>;
  serverList: Bound<typeof heartbeats.serverList>;
  partitionFactsList: Bound<typeof queues.partitionFactsList>;
  retentionHistoryList: Bound<typeof retention.retentionHistoryList>;
}

/** The reads of the message views, inside their snapshot. */
export interface MessageReads {
  messageList: Bound<typeof messages.messageList>;
  cursorFactsFind: Bound<typeof messages.cursorFactsFind>;
  queueConsumerMode: Bound<typeof messages.queueConsumerMode>;
}

/** The catalog the routes read (and administer) through. */
export interface Catalog {
  /** Runs `work`'s reads against one snapshot of the database. */
  snapshot<T>(work: (reads: SnapshotReads) => Promise<T>): Promise<T>;
  /** Runs `work`'s message-view reads in one transaction. */
  messageSnapshot<T>(work: (reads: MessageReads) => Promise<T>): Promise<T>;

  // Queues, partitions, resources
  queueConfigure: Bound<typeof queues.queueConfigure>;
  queueDescribe: Bound<typeof queues.queueDescribe>;
  queueDelete: Bound<typeof queues.queueDelete>;
  partitionFactsList: Bound<typeof queues.partitionFactsList>;
  queueList: Bound<typeof resources.queueList>;
  partitionList: Bound<typeof resources.partitionList>;
  activitySample: Bound<typeof resources.activitySample>;
  partitionActivityList: Bound<typeof status.partitionActivityList>;

  // Consumer groups, seek, leases
  groupCursorList: Bound<typeof consumerGroups.groupCursorList>;
  subscriptionList: Bound<typeof consumerGroups.subscriptionList>;
  groupDelete: Bound<typeof consumerGroups.groupDelete>;
  subscriptionRetime: Bound<typeof consumerGroups.subscriptionRetime>;
  cursorSeek: Bound<typeof consumerGroups.cursorSeek>;
  leaseExtend: Bound<typeof cursors.leaseExtend>;

  // Messages, dead letters, traces
  messageDescribe: Bound<typeof messages.messageDescribe>;
  deadLetterList: Bound<typeof deadLetters.deadLetterList>;
  traceRecord: Bound<typeof traces.traceRecord>;
  traceNameList: Bound<typeof traces.traceNameList>;
  traceListByName: Bound<typeof traces.traceListByName>;
  traceListForMessage: Bound<typeof traces.traceListForMessage>;

  // Monitoring
  counterSeries: Bound<typeof stats.counterSeries>;
  counterQueueSeries: Bound<typeof stats.counterQueueSeries>;
  systemSeries: Bound<typeof stats.systemSeries>;
  parkedReplicaList: Bound<typeof heartbeats.parkedReplicaList>;
  serverAliveList: Bound<typeof heartbeats.serverAliveList>;
  postgresStatsRead: Bound<typeof postgresStats.postgresStatsRead>;
  maintenanceRead: Bound<typeof maintenance.maintenanceRead>;
}
