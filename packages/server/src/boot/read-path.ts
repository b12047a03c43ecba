/**
 * The read path of start-up: pop (claims that open sealed payloads, long-poll parking) and ack, both over
 * the store. Its stop answers parked pops with `shutdown`.
 */
import type { Config } from '../config.js';
import { AckService } from '../core/ack.js';
import { PopService } from '../core/pop.js';
import type { WakeBus } from '../core/wake-bus.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/index.js';
import type { Database } from './database.js';
import { isProcedureError, type WritePath } from './write-path.js';

/** Concurrent ack transactions: as for pushes (write-path.ts), enough to overlap commits, few enough to share them. */
const ACK_MAX_IN_FLIGHT = 4;
/** Items per shared ack transaction. */
const ACK_MAX_ITEMS = 10_000;

/** What the read path needs. */
export interface ReadPathOptions {
  config: Config;
  log: Logger;
  database: Database;
  bus: WakeBus;
  metrics: Metrics;
  write: WritePath;
}

/** The started read path. */
export interface ReadPath {
  pop: PopService;
  ack: AckService;
}

/** Makes the read path (pop, ack); nothing in it reaches the database before a request does. */
export function buildReadPath({ config, log, database: { store }, bus, metrics, write }: ReadPathOptions): ReadPath {
  const pop = new PopService({
    store,
    sealed: write.encryptionView,
    payloads: write.payloads,
    bus,
    settings: config.pop,
    maxConcurrentReattempts: Math.max(1, Math.floor(config.poolSize / 2)),
    onProcedureError: (error) => {
      log.error({ err: error }, 'pop procedure failed');
      metrics.recorder.failure(error);
    },
    isProcedureError,
    paused: () => write.maintenance.pop,
  });
  const ack = new AckService({
    store,
    wake: write.wake,
    maxInFlight: ACK_MAX_IN_FLIGHT,
    maxItems: ACK_MAX_ITEMS,
    isolateOnError: isProcedureError,
  });
  return { pop, ack };
}
