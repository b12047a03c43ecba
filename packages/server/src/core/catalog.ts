/**
 * The catalog: the administrative and monitoring reads (and the few administrative writes) the routes make
 * beside the hot paths. It is a view of the store (store/index.ts), not a copy of it: the names listed here
 * are `Store` methods, so "go to definition" from a route leads to the store, and a new read joins the
 * catalog with its name in this list. The broker hands the routes the store over the admitted pool
 * (boot/admission.ts: administrative work holds at most its share of the connections).
 *
 * Reads that must agree with each other run inside `snapshot` (one REPEATABLE READ, READ ONLY transaction).
 */
import type { Store } from '../store/index.js';

export type { CounterFilter } from '../store/stats.js';
export type { MessageFilter } from '../store/messages.js';
export type { PartitionFacts } from '../store/queues.js';
export type { PartitionListing, QueueListing } from '../store/resources.js';
export type { QueueFilter } from '../store/status.js';
export type { SeekTarget } from '../store/consumer-groups.js';

/** The reads a consistent snapshot offers (status page, worker metrics, retention history, message views). */
export type SnapshotReads = Pick<Store,
  | 'counterSeries' | 'counterQueueSeries' | 'queueSummaryList' | 'leaseSummary' | 'deadLetterSummary' | 'serverList'
  | 'pendingSeries' | 'partitionFactsList' | 'retentionHistoryList' | 'messageList' | 'cursorFactsFind' | 'queueConsumerMode'>;

/** The catalog the routes read (and administer) through. */
export type Catalog = Pick<Store,
  // Queues, partitions, resources
  | 'queueConfigure' | 'queueDescribe' | 'queueDelete' | 'partitionFactsList' | 'queueList' | 'partitionList' | 'activitySample'
  | 'partitionActivityList'
  // Consumer groups, seek
  | 'groupCursorList' | 'subscriptionList' | 'groupDelete' | 'subscriptionRetime' | 'cursorSeek'
  // Messages, dead letters, traces
  | 'messageDescribe' | 'deadLetterList' | 'traceRecord' | 'traceNameList' | 'traceListByName' | 'traceListForMessage'
  // Monitoring
  | 'counterSeries' | 'counterQueueSeries' | 'systemSeries' | 'parkedReplicaList' | 'serverAliveList' | 'postgresStatsRead'
  | 'maintenanceRead'
> & {
  /** Runs `work`'s reads against one snapshot of the database. */
  snapshot<T>(work: (reads: SnapshotReads) => Promise<T>): Promise<T>;
};
