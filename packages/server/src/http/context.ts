/**
 * What the routes receive: the core services and nothing below them. No pool, no `store/` module, no
 * configuration object; reads and administrative writes go through the catalog (core/catalog.ts: a view of
 * the store). Built at start-up (boot/serve.ts, step `serve`).
 */
import type { FailoverBuffer } from '../buffer/failover-buffer.js';
import type { Config } from '../config.js';
import type { AckService } from '../core/ack.js';
import type { Catalog } from '../core/catalog.js';
import type { MoveService } from '../core/database-move.js';
import type { MessageAdmin } from '../core/message-admin.js';
import type { PayloadReader } from '../core/payload-cipher.js';
import type { PopService } from '../core/pop.js';
import type { PushService } from '../core/push.js';
import type { StreamsService } from '../core/streams/service.js';
import type { TransactionContext } from '../core/transaction.js';
import type { QueueSignal } from '../core/wake-bus.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/index.js';
import type { WorkerPeers } from '../metrics/workers.js';
import type { HeartbeatService } from '../services/heartbeat.js';
import type { MaintenanceService } from '../services/maintenance.js';
import type { StatsService } from '../services/stats.js';
import type { Tracing } from '../tracing.js';

/** The core services, as the HTTP layer sees them. */
export interface RouteContext {
  /** Who this process is (the /health body, trace records, the configure warning). */
  identity: { version: string; serverId: string; encryptionConfigured: boolean };
  log: Logger;
  /** The pop defaults and limits of the configuration (docs/api.md 5.2). */
  popDefaults: Config['pop'];
  /** The bounds on one request's work (listing bytes, transaction operations; docs/configuration.md "Bounds"). */
  bounds: Config['bounds'];
  push: PushService;
  pop: PopService;
  ack: AckService;
  /** The streaming SDK's routes: query registration, cycles, shard reads (docs/streams.md). */
  streams: StreamsService;
  /** `POST /api/v1/transaction`: runs the work in one database transaction (pushes sealed) and wakes after it. */
  transactions: Omit<TransactionContext, 'producerSub'>;
  /** Administrative and monitoring reads, and the administrative writes. */
  catalog: Catalog;
  /** Message delete, requeue, move to the DLQ, queue clear (with their wake-ups). */
  messageAdmin: MessageAdmin;
  /** Reads stored payloads back: sealed ones are opened with QUEEN_ENCRYPTION_KEY (docs/api.md 9.6). */
  payloads: PayloadReader;
  /** This process's cache of queue options: its figures for /health, and the notice after a queue changed. */
  queueCache: {
    stats(): { size: number; hits: number; misses: number };
    /** After a commit that configured or deleted a queue: every process drops what it cached of the queue. */
    changed(signal: QueueSignal): void;
  };
  health: { databaseReachable(): Promise<boolean>; draining(): boolean; /** `host:port` of the PostgreSQL server in use, null while none is known. */ databaseServer(): string | null };
  /** Counters the routes feed, the Prometheus registry (metrics/), heartbeats and the stats cycle (services/). */
  metrics: Pick<Metrics, 'recorder' | 'prometheus' | 'summary'> & { heartbeat: HeartbeatService; stats: StatsService };
  /** The maintenance flags as this process sees them (docs/api.md 9.4). */
  maintenance: MaintenanceService;
  /** This process's failover/maintenance buffer (docs/api.md 9.5). */
  buffer: FailoverBuffer;
  /** Span export (docs/monitoring.md "Tracing"); null when tracing is off. */
  tracing: Tracing | null;
  /** Moving the deployment to another PostgreSQL (docs/operations.md "Moving to another PostgreSQL"). */
  migration: MoveService;
  /** The other worker processes (QUEEN_WORKERS > 1): /health, /ready and /metrics answer for all of them; null in a single process. */
  workers: WorkerPeers | null;
}
