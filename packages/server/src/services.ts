/**
 * What the HTTP routes may use: the core services, the wake bus, and the database handle that they pass to
 * `store/` functions (routes never write SQL themselves).
 */
import type pg from 'pg';
import type { Config } from './config.js';
import type { AckService } from './core/ack.js';
import type { PayloadReader } from './core/payload-cipher.js';
import type { PopService } from './core/pop.js';
import type { PushService } from './core/push.js';
import type { TransactionContext } from './core/transaction.js';
import type { StreamsService } from './core/streams/service.js';
import type { QueueSignal, WakeBus } from './core/wake-bus.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics/index.js';
import type { FailoverBuffer } from './buffer/failover-buffer.js';
import type { MaintenanceService } from './services/maintenance.js';

/** The broker's services, as the HTTP layer sees them. */
export interface Services {
  config: Config;
  log: Logger;
  version: string;
  serverId: string;
  encryptionConfigured: boolean;
  /** Reads stored payloads back: sealed ones are opened with QUEEN_ENCRYPTION_KEY (API.md 9.6). */
  payloads: PayloadReader;
  /** Runs `POST /api/v1/transaction` work in one database transaction; its pushes go through the sealing step. */
  runTransaction: TransactionContext['run'];
  /** This process's cache of queue options (encryption flags): size and hit counts for /health. */
  queueConfigCache(): { size: number; hits: number; misses: number };
  /** After a commit that configured or deleted a queue: every process drops what it cached of the queue. */
  queueChanged(signal: QueueSignal): void;
  /** The pool: handed to `store/` functions. */
  db: pg.Pool;
  push: PushService;
  pop: PopService;
  ack: AckService;
  /** The streaming SDK's routes: query registration, cycles, shard reads (STREAMS.md 3). */
  streams: StreamsService;
  /** Parked pops of this process (counts for metrics). */
  bus: WakeBus;
  /** After a commit that touched a queue: wakes the parked pops of every broker process. */
  wake(signal: QueueSignal): void;
  health: { databaseReachable(): Promise<boolean>; draining(): boolean };
  /** Counters the routes feed, heartbeats, the stats cycle and the Prometheus registry (metrics/). */
  metrics: Metrics;
  /** The maintenance flags as this process sees them (API.md 9.4). */
  maintenance: MaintenanceService;
  /** This process's failover/maintenance buffer (API.md 9.5). */
  buffer: FailoverBuffer;
}
