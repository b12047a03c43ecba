/**
 * The store: one object through which everything above reaches PostgreSQL (the model is River's single
 * executor interface, `riverdriver.Executor`). Each method is one store function of a module beside this
 * one (named entity + verb, one params object), run on this store's handle; `transaction` runs several on
 * one connection inside one database transaction, through a `tx` of the same shape.
 *
 * Core modules take narrow views of it, declared where they are used (`Pick<Store, 'cursorClaim' | ...>`),
 * so "go to definition" leads from a pop, a push or an ack in core/ to the method here, and from the method
 * to its statement. boot/ builds the stores (`new Store(pool)`, and one over the administrative routes'
 * admitted pool) and hands them to core; nothing else sees the pool.
 *
 * A store is over the pool (each statement takes a pooled connection; a transaction takes one for its
 * work), over one connection outside a transaction (a cluster-lock session: statements commit one by one),
 * or over one connection inside a transaction (a `tx`: a nested `transaction` is a savepoint).
 */
import type pg from 'pg';
import * as bufferHolds from './buffer-holds.js';
import { cursorClaimByPartition } from './citus-claims.js';
import * as citusAdmin from './citus-admin.js';
import * as citus from './citus-routing.js';
import { withClusterLock, type ClusterCycle } from './cluster-lock.js';
import * as consumerGroups from './consumer-groups.js';
import * as cursors from './cursors.js';
import type { Db } from './database.js';
import * as deadLetters from './dead-letters.js';
import * as heartbeats from './heartbeats.js';
import * as maintenance from './maintenance.js';
import * as messageAdmin from './message-admin.js';
import * as messages from './messages.js';
import * as postgresStats from './postgres-stats.js';
import * as queues from './queues.js';
import * as resources from './resources.js';
import * as retention from './retention.js';
import * as segments from './segments.js';
import * as stats from './stats.js';
import * as status from './status.js';
import * as streams from './streams.js';
import * as traces from './traces.js';
import * as transaction from './transaction.js';
import { inTransaction, retryConflicts, withConnection, type TransactionDecision } from './transaction.js';

export type { TransactionDecision } from './transaction.js';

/** The params object of a store function `(db, params) => ...`. */
type In<F> = F extends (db: Db, params: infer P) => unknown ? P : never;

/** How `transaction` runs its work. */
export interface TransactionOptions {
  /** One read-only REPEATABLE READ snapshot: every statement sees the same commits and the same `now()`. */
  snapshot?: boolean;
  /** Runs the work again from the start after a deadlock or serialization failure, this many attempts in all (default 1). */
  attempts?: number;
}

/** Attempts of a streams cycle that is one statement (a deadlock wrote nothing: it runs again). */
const CYCLE_ATTEMPTS = 3;

/** How a store reaches partitions: set once at start-up (`routeOnCitus`), shared by every store made from it. */
interface Routing {
  /** The database is a Citus coordinator: single-partition calls go to citus-routing.ts (docs/scale-out.md). */
  citus: boolean;
  /** The broker holds the encryption key: delegated pushes apply the encryption guard (partition_push's p_sealing). */
  sealing: boolean;
}

/** The one way to the database (see the module note). */
export class Store {
  private depth = 0;

  /** A store over the pool; `kind` and `routing` are for the stores this class makes itself (sessions, transactions, `over`). */
  constructor(
    private readonly db: Db,
    private readonly kind: 'pool' | 'session' | 'transaction' = 'pool',
    private readonly routing: Routing = { citus: false, sealing: false },
  ) {}

  /** A store over another pool (the administrative routes' admitted one) that routes as this one does. */
  over(pool: pg.Pool): Store {
    return new Store(pool, 'pool', this.routing);
  }

  /** True once `routeOnCitus` was called: a node that is down holds only its partitions (the failover buffer routes per partition). */
  get onCitus(): boolean {
    return this.routing.citus;
  }

  /**
   * From now on this store and every store made from it route single-partition calls for Citus (set at migration
   * time); `sealing`: the sessions hold the encryption key (`queen.sealing`, which a delegated call does not carry).
   */
  routeOnCitus(params: { sealing: boolean }): void {
    this.routing.citus = true;
    this.routing.sealing = params.sealing;
  }

  // ---- Transactions and sessions

  /**
   * Runs `work` in one database transaction and commits or rolls back as it decides (a throw rolls back).
   * Inside a transaction it is a savepoint: options other than the work are the outer transaction's.
   */
  async transaction<T>(work: (tx: Store) => Promise<TransactionDecision<T>>, options: TransactionOptions = {}): Promise<T> {
    const begin = options.snapshot === true ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN';
    if (this.kind === 'transaction') {
      const savepoint = `queen_${++this.depth}`;
      try {
        return await inTransaction(this.client(), { begin: `SAVEPOINT ${savepoint}`, savepoint }, () => work(this), () => undefined);
      } finally {
        this.depth -= 1;
      }
    }
    const once = (client: pg.PoolClient, broken: (error: Error) => void): Promise<T> =>
      inTransaction(client, { begin, savepoint: null }, () => work(new Store(client, 'transaction', this.routing)), broken);
    return retryConflicts(options.attempts ?? 1, () =>
      this.kind === 'session' ? once(this.client(), () => undefined) : withConnection(this.db as pg.Pool, once));
  }

  /** Runs `work`'s reads against one snapshot of the database (REPEATABLE READ, READ ONLY). */
  snapshot<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    return this.transaction(async (tx) => ({ commit: true, value: await work(tx) }), { snapshot: true });
  }

  /**
   * Runs `work` on a connection of its own if this process gets the cluster-wide advisory lock `key`
   * (cluster-lock.ts); its statements commit one by one and time out after `statementTimeoutMs`.
   */
  clusterLock<T>(params: { key: number; statementTimeoutMs: number }, work: (session: Store) => Promise<T>): Promise<ClusterCycle<T>> {
    return withClusterLock(this.db as pg.Pool, params, (client) => work(new Store(client, 'session', this.routing)));
  }

  /** Resolves when PostgreSQL answers a trivial statement. */
  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }

  private client(): pg.PoolClient {
    return this.db as pg.PoolClient;
  }

  // ---- The log: pushes, replays (segments.ts), transactions (transaction.ts)

  segmentAppend(params: In<typeof segments.segmentAppend>) {
    return this.routing.citus
      ? citus.segmentAppendByPartition(this.db, { ...params, settle: this.kind === 'pool', sealing: this.routing.sealing })
      : segments.segmentAppend(this.db, params);
  }
  /** A replayed append: in a transaction of its own (or the caller's), with maxSize not enforced. */
  segmentAppendReplay(params: In<typeof segments.segmentAppend>) {
    return this.transaction(async (tx) => {
      await segments.replayMode(tx.db);
      return { commit: true, value: await tx.segmentAppend(params) };
    });
  }
  /** On Citus too: sql/citus/functions/transaction_lock.sql routes each lock to its shard. */
  transactionLock(params: In<typeof transaction.transactionLock>) { return transaction.transactionLock(this.db, params); }
  leaseLiveLock(params: In<typeof transaction.leaseLiveLock>) { return transaction.leaseLiveLock(this.db, params); }

  // ---- Cursors: pop, ack, leases (cursors.ts)

  cursorClaim(params: In<typeof cursors.cursorClaim>) {
    return this.routing.citus ? cursorClaimByPartition(this.db, params) : cursors.cursorClaim(this.db, params);
  }
  cursorsReady(params: In<typeof cursors.cursorsReady>) {
    return this.routing.citus ? citus.cursorsReadyAll(params) : cursors.cursorsReady(this.db, params);
  }
  cursorAck(params: In<typeof cursors.cursorAck>) {
    return this.routing.citus ? citus.cursorAckByPartition(this.db, params) : cursors.cursorAck(this.db, params);
  }
  leaseExtend(params: In<typeof cursors.leaseExtend>) {
    return this.routing.citus ? citus.leaseExtendMultiShard(this.db, params) : cursors.leaseExtend(this.db, params);
  }
  leaseRelease(params: In<typeof cursors.leaseRelease>) {
    return this.routing.citus ? citus.leaseReleaseMultiShard(this.db, params) : cursors.leaseRelease(this.db, params);
  }

  // ---- Streams (streams.ts)

  streamsQueryRegister(params: In<typeof streams.streamsQueryRegister>) { return streams.streamsQueryRegister(this.db, params); }
  streamsStateRead(params: In<typeof streams.streamsStateRead>) { return streams.streamsStateRead(this.db, params); }
  /** One atomic statement; outside a transaction a deadlock runs it again (inside one, the transaction's own retry does). */
  streamsCycleApply(params: In<typeof streams.streamsCycleApply>) {
    if (this.kind === 'transaction') return streams.streamsCycleApply(this.db, params);
    return retryConflicts(CYCLE_ATTEMPTS, () => streams.streamsCycleApply(this.db, params));
  }

  // ---- Queues, partitions, resources (queues.ts, resources.ts, status.ts)

  queueConfigure(params: In<typeof queues.queueConfigure>) { return queues.queueConfigure(this.db, params); }
  queueDescribe(params: In<typeof queues.queueDescribe>) {
    return queues.queueDescribe(this.db, params, this.routing.citus ? citusAdmin.partitionFactsList : queues.partitionFactsList);
  }
  /** In a transaction of its own (or the caller's), without the statement timeout. */
  queueDelete(params: In<typeof queues.queueDelete>) {
    return this.transaction(async (tx) => ({ commit: true, value: await queues.queueDelete(tx.db, params) }));
  }
  queueEncryptionFlags(params: In<typeof queues.queueEncryptionFlags>) { return queues.queueEncryptionFlags(this.db, params); }
  partitionFactsList(params: In<typeof queues.partitionFactsList>) {
    return this.routing.citus ? citusAdmin.partitionFactsList(this.db, params) : queues.partitionFactsList(this.db, params);
  }
  queueList(params: In<typeof resources.queueList>) {
    return this.routing.citus ? citusAdmin.queueList(this.db, params) : resources.queueList(this.db, params);
  }
  partitionList(params: In<typeof resources.partitionList>) {
    return this.routing.citus ? citusAdmin.partitionList(this.db, params) : resources.partitionList(this.db, params);
  }
  activitySample() { return resources.activitySample(this.db); }
  refusedNameList(params: In<typeof resources.refusedNameList>) { return resources.refusedNameList(this.db, params); }
  partitionActivityList(params: In<typeof status.partitionActivityList>) { return status.partitionActivityList(this.db, params); }
  queueSummaryList(params: In<typeof status.queueSummaryList>) {
    return this.routing.citus ? citusAdmin.queueSummaryList(this.db, params) : status.queueSummaryList(this.db, params);
  }
  leaseSummary(params: In<typeof status.leaseSummary>) { return status.leaseSummary(this.db, params); }
  deadLetterSummary(params: In<typeof status.deadLetterSummary>) { return status.deadLetterSummary(this.db, params); }
  metricsGauges() { return status.metricsGauges(this.db); }

  // ---- Consumer groups, seek (consumer-groups.ts)

  groupCursorList(params: In<typeof consumerGroups.groupCursorList>) {
    return this.routing.citus ? citusAdmin.groupCursorList(this.db, params) : consumerGroups.groupCursorList(this.db, params);
  }
  subscriptionList(params: In<typeof consumerGroups.subscriptionList>) { return consumerGroups.subscriptionList(this.db, params); }
  groupDelete(params: In<typeof consumerGroups.groupDelete>) { return consumerGroups.groupDelete(this.db, params); }
  subscriptionRetime(params: In<typeof consumerGroups.subscriptionRetime>) { return consumerGroups.subscriptionRetime(this.db, params); }
  cursorSeek(params: In<typeof consumerGroups.cursorSeek>) { return consumerGroups.cursorSeek(this.db, params); }

  // ---- Messages, message administration, dead letters, traces

  messageList(params: In<typeof messages.messageList>) { return messages.messageList(this.db, params); }
  cursorFactsFind(params: In<typeof messages.cursorFactsFind>) { return messages.cursorFactsFind(this.db, params); }
  queueConsumerMode(params: In<typeof messages.queueConsumerMode>) { return messages.queueConsumerMode(this.db, params); }
  /** Three reads in one snapshot (the caller's, inside a transaction). */
  messageDescribe(params: In<typeof messages.messageDescribe>) {
    return this.kind === 'transaction' ? messages.messageDescribe(this.db, params) : this.snapshot((tx) => messages.messageDescribe(tx.db, params));
  }
  messageDelete(params: In<typeof messageAdmin.messageDelete>) { return messageAdmin.messageDelete(this.db, params); }
  messageRequeue(params: In<typeof messageAdmin.messageRequeue>) { return messageAdmin.messageRequeue(this.db, params); }
  messageDeadLetter(params: In<typeof messageAdmin.messageDeadLetter>) { return messageAdmin.messageDeadLetter(this.db, params); }
  queueClear(params: In<typeof messageAdmin.queueClear>) { return messageAdmin.queueClear(this.db, params); }
  deadLetterList(params: In<typeof deadLetters.deadLetterList>) { return deadLetters.deadLetterList(this.db, params); }
  traceRecord(params: In<typeof traces.traceRecord>) { return traces.traceRecord(this.db, params); }
  traceNameList(params: In<typeof traces.traceNameList>) { return traces.traceNameList(this.db, params); }
  traceListByName(params: In<typeof traces.traceListByName>) { return traces.traceListByName(this.db, params); }
  traceListForMessage(params: In<typeof traces.traceListForMessage>) { return traces.traceListForMessage(this.db, params); }

  // ---- Monitoring: heartbeats, counters, samples, flags (heartbeats.ts, stats.ts, maintenance.ts, postgres-stats.ts)

  serverHeartbeat(params: In<typeof heartbeats.serverHeartbeat>) { return heartbeats.serverHeartbeat(this.db, params); }
  serverStop(params: In<typeof heartbeats.serverStop>) { return heartbeats.serverStop(this.db, params); }
  serverList(params: In<typeof heartbeats.serverList>) { return heartbeats.serverList(this.db, params); }
  serverAliveList(params: In<typeof heartbeats.serverAliveList>) { return heartbeats.serverAliveList(this.db, params); }
  parkedReplicaList(params: In<typeof heartbeats.parkedReplicaList>) { return heartbeats.parkedReplicaList(this.db, params); }
  statsFlush(params: In<typeof stats.statsFlush>) { return stats.statsFlush(this.db, params); }
  statsPurge(params: In<typeof stats.statsPurge>) {
    return stats.statsPurge(this.db, params);
  }
  counterSeries(params: In<typeof stats.counterSeries>) { return stats.counterSeries(this.db, params); }
  counterQueueSeries(params: In<typeof stats.counterQueueSeries>) { return stats.counterQueueSeries(this.db, params); }
  systemSeries(params: In<typeof stats.systemSeries>) { return stats.systemSeries(this.db, params); }
  pendingSampled() { return stats.pendingSampled(this.db); }
  pendingRecord(params: In<typeof stats.pendingRecord>) { return stats.pendingRecord(this.db, params); }
  pendingSeries(params: In<typeof stats.pendingSeries>) { return stats.pendingSeries(this.db, params); }
  maintenanceRead() { return maintenance.maintenanceRead(this.db); }
  maintenanceSet(params: In<typeof maintenance.maintenanceSet>) { return maintenance.maintenanceSet(this.db, params); }
  clusterIdRead() { return maintenance.clusterIdRead(this.db); }
  bufferHoldsPublish(params: In<typeof bufferHolds.bufferHoldsPublish>) { return bufferHolds.bufferHoldsPublish(this.db, params); }
  bufferHoldsEarlier(params: In<typeof bufferHolds.bufferHoldsEarlier>) { return bufferHolds.bufferHoldsEarlier(this.db, params); }
  postgresStatsRead() { return postgresStats.postgresStatsRead(this.db); }

  // ---- Retention, eviction, partition cleanup (retention.ts)

  jobStart(params: In<typeof retention.jobStart>) { return retention.jobStart(this.db, params); }
  removalCandidates(params: In<typeof retention.removalCandidates>) { return retention.removalCandidates(this.db, params); }
  removalApply(params: In<typeof retention.removalApply>) { return retention.removalApply(this.db, params); }
  partitionsCleanup(params: In<typeof retention.partitionsCleanup>) { return retention.partitionsCleanup(this.db, params); }
  retentionHistoryList(params: In<typeof retention.retentionHistoryList>) { return retention.retentionHistoryList(this.db, params); }
}
