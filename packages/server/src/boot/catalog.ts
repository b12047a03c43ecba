/** Binds the routes' catalog (core/catalog.ts) to the pool: each entry is the store function with the pool as its handle. */
import type pg from 'pg';
import type { Catalog, MessageReads, SnapshotReads } from '../core/catalog.js';
import { cursorSeek, groupCursorList, groupDelete, subscriptionList, subscriptionRetime } from '../store/consumer-groups.js';
import { leaseExtend } from '../store/cursors.js';
import { deadLetterList } from '../store/dead-letters.js';
import { parkedReplicaList, serverAliveList, serverList } from '../store/heartbeats.js';
import { maintenanceRead } from '../store/maintenance.js';
import { cursorFactsFind, messageDescribe, messageList, messageReadSnapshot, queueConsumerMode } from '../store/messages.js';
import { postgresStatsRead } from '../store/postgres-stats.js';
import { partitionFactsList, queueConfigure, queueDelete, queueDescribe } from '../store/queues.js';
import { activitySample, partitionList, queueList } from '../store/resources.js';
import { retentionHistoryList } from '../store/retention.js';
import { readSnapshot } from '../store/snapshot.js';
import { counterQueueSeries, counterSeries, systemSeries } from '../store/stats.js';
import { deadLetterSummary, leaseSummary, partitionActivityList, queueSummaryList } from '../store/status.js';
import { traceListByName, traceListForMessage, traceNameList, traceRecord } from '../store/traces.js';

/** The snapshot reads on one connection. */
function snapshotReads(client: pg.PoolClient): SnapshotReads {
  return {
    counterSeries: (params) => counterSeries(client, params),
    counterQueueSeries: (params) => counterQueueSeries(client, params),
    queueSummaryList: (params) => queueSummaryList(client, params),
    leaseSummary: (params) => leaseSummary(client, params),
    deadLetterSummary: (params) => deadLetterSummary(client, params),
    serverList: (params) => serverList(client, params),
    partitionFactsList: (params) => partitionFactsList(client, params),
    retentionHistoryList: (params) => retentionHistoryList(client, params),
  };
}

/** The message-view reads on one connection. */
function messageReads(client: pg.PoolClient): MessageReads {
  return {
    messageList: (params) => messageList(client, params),
    cursorFactsFind: (params) => cursorFactsFind(client, params),
    queueConsumerMode: (params) => queueConsumerMode(client, params),
  };
}

/**
 * The catalog on `pool` (the administrative share, boot/admission.ts). Lease extension is a consumer's call,
 * not an administrative one: it runs on `consumerPool`, outside that share, so an administrative flood
 * cannot make leases expire.
 */
export function createCatalog(pool: pg.Pool, consumerPool: pg.Pool = pool): Catalog {
  return {
    snapshot: (work) => readSnapshot(pool, (client) => work(snapshotReads(client))),
    messageSnapshot: (work) => messageReadSnapshot(pool, (client) => work(messageReads(client))),
    queueConfigure: (params) => queueConfigure(pool, params),
    queueDescribe: (params) => queueDescribe(pool, params),
    queueDelete: (params) => queueDelete(pool, params),
    partitionFactsList: (params) => partitionFactsList(pool, params),
    queueList: (params) => queueList(pool, params),
    partitionList: (params) => partitionList(pool, params),
    activitySample: () => activitySample(pool),
    partitionActivityList: (params) => partitionActivityList(pool, params),
    groupCursorList: (params) => groupCursorList(pool, params),
    subscriptionList: (params) => subscriptionList(pool, params),
    groupDelete: (params) => groupDelete(pool, params),
    subscriptionRetime: (params) => subscriptionRetime(pool, params),
    cursorSeek: (params) => cursorSeek(pool, params),
    leaseExtend: (params) => leaseExtend(consumerPool, params),
    messageDescribe: (params) => messageDescribe(pool, params),
    deadLetterList: (params) => deadLetterList(pool, params),
    traceRecord: (params) => traceRecord(pool, params),
    traceNameList: (params) => traceNameList(pool, params),
    traceListByName: (params) => traceListByName(pool, params),
    traceListForMessage: (params) => traceListForMessage(pool, params),
    counterSeries: (params) => counterSeries(pool, params),
    counterQueueSeries: (params) => counterQueueSeries(pool, params),
    systemSeries: (params) => systemSeries(pool, params),
    parkedReplicaList: (params) => parkedReplicaList(pool, params),
    serverAliveList: (params) => serverAliveList(pool, params),
    postgresStatsRead: () => postgresStatsRead(pool),
    maintenanceRead: () => maintenanceRead(pool),
  };
}
