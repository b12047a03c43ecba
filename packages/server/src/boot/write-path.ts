/**
 * The write path of start-up: payload sealing, the wake connection (LISTEN/NOTIFY), the maintenance flags,
 * the failover buffer and the push service. `buildWritePath` makes them without touching the database (a
 * broker that starts while PostgreSQL is unreachable buffers pushes through them, docs/api.md 9.8 rule 3);
 * `startWritePath` starts what needs the database. Each part registers its stop as soon as it runs, so a
 * failure later in start-up (or a shutdown) stops the buffer, then the flags, then the wake connection.
 */
import type { Config } from '../config.js';
import { PayloadCipher, PayloadDecryptError, PayloadReader } from '../core/payload-cipher.js';
import { NO_SEALING, PayloadSealer, QueueEncryptionView, type Sealing } from '../core/payload-sealing.js';
import { PushService } from '../core/push.js';
import type { QueueSignal, WakeBus } from '../core/wake-bus.js';
import { FailoverBuffer } from '../buffer/failover-buffer.js';
import { classifyFailure } from '../buffer/replay-pace.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/index.js';
import { MaintenanceService } from '../services/maintenance.js';
import { classifyDatabaseError } from '../store/database.js';
import { WakeChannel } from '../store/wake-channel.js';
import type { Database } from './database.js';
import type { Defer } from './sequence.js';

/** Concurrent push transactions: enough to overlap commits, few enough that batches grow under load. */
const PUSH_MAX_IN_FLIGHT = 4;
/** Items per coalesced push transaction. */
const PUSH_MAX_ITEMS = 10_000;

/** What the write path is made of. */
export interface WritePathOptions {
  config: Config;
  log: Logger;
  database: Database;
  bus: WakeBus;
  metrics: Metrics;
  /** Reports a connection's failure (quietly while shutting down). */
  warn: (error: Error, msg: string) => void;
}

/** The started write path. */
export interface WritePath {
  /** Null when no QUEEN_ENCRYPTION_KEY is configured. */
  cipher: PayloadCipher | null;
  /** Opens sealed payloads on the read paths. */
  payloads: PayloadReader;
  /** This process's cache of the queues' encryption flags. */
  encryptionView: QueueEncryptionView;
  /** The sealing step every append goes through (`NO_SEALING` without a key). */
  sealing: Sealing;
  channel: WakeChannel;
  /** After a commit: wakes this process's parked pops now, the other processes' through NOTIFY. */
  wake: (signal: QueueSignal) => void;
  maintenance: MaintenanceService;
  buffer: FailoverBuffer;
  push: PushService;
}

/**
 * A failure of the database procedure itself (or of opening a sealed payload): the request fails alone, a
 * merged push batch is retried request by request. Timeouts and lost connections are not procedure errors.
 */
export function isProcedureError(error: unknown): boolean {
  const failure = classifyDatabaseError(error);
  return failure === 'procedure' || failure === 'conflict' || failure === 'passing' || error instanceof PayloadDecryptError;
}

/** Makes the write path; nothing in it reaches the database before `startWritePath`. */
export function buildWritePath({ config, log, database, bus, metrics, warn }: WritePathOptions): WritePath {
  const { store } = database;
  // Encryption at rest (docs/api.md 9.6): one sealing step wraps every append; reads open sealed payloads.
  const cipher = config.encryptionKey === null ? null : new PayloadCipher(config.encryptionKey);
  const payloads = new PayloadReader(cipher);
  const encryptionView = new QueueEncryptionView(store);
  const sealing = cipher === null ? NO_SEALING : new PayloadSealer(cipher, encryptionView);

  let buffer: FailoverBuffer | null = null; // created below; the flags' listener reads it only on a change
  const maintenance = new MaintenanceService(log.child({ component: 'maintenance' }), {
    store,
    onChange: (previous, next) => {
      if (next.pop && !previous.pop) bus.wakeAll(); // parked pops answer `paused` now
      if (!next.push && previous.push) buffer?.kick(); // replay starts
    },
  });
  const channel = new WakeChannel({
    connect: database.newClient,
    origin: config.serverId,
    onWake: (signal) => {
      if (signal.config === true) encryptionView.forget(signal.queue);
      bus.signal(signal);
    },
    onError: (error) => warn(error, 'wake connection failed'),
  });
  channel.listen('queen_maintenance', (payload) => maintenance.notified(payload));
  const wake = (signal: QueueSignal): void => {
    bus.signal(signal);
    channel.publish(signal);
  };

  const started = new FailoverBuffer(
    { ...config.buffer, serverId: config.serverId },
    {
      store,
      sealing,
      wake,
      classify: classifyFailure,
      pushMaintenance: () => maintenance.push,
      perPartition: () => store.onCitus,
      replayed: (queue, count) => metrics.recorder.written(queue, count),
      log: log.child({ component: 'buffer' }),
    },
  );
  buffer = started;
  const push = new PushService({
    store,
    sealing,
    wake,
    maxInFlight: PUSH_MAX_IN_FLIGHT,
    maxItems: PUSH_MAX_ITEMS,
    isolateOnError: isProcedureError,
    diversion: started,
  });

  return { cipher, payloads, encryptionView, sealing, channel, wake, maintenance, buffer: started, push };
}

/** Starts what needs the database: the wake connection, the flags, the buffer's replay. */
export async function startWritePath(write: WritePath, store: Pick<Database['store'], 'clusterIdRead'>, defer: Defer): Promise<void> {
  const { channel, maintenance, buffer } = write;
  await channel.start();
  defer('wake connection', () => channel.stop());
  const clusterId = await store.clusterIdRead();
  await maintenance.start(); // the flags are known before the first request
  defer('maintenance flags', () => maintenance.stop());
  await buffer.start(clusterId); // leftover files of a previous run (and of dead processes) start replaying
  defer('failover buffer', () => buffer.stop());
}
