/**
 * The broker process: connects to (or starts) PostgreSQL, migrates, wires the services to the HTTP routes,
 * listens, and shuts down in order (API.md 9.8).
 */
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Config } from './config.js';
import { AckService } from './core/ack.js';
import { PayloadCipher, PayloadDecryptError, PayloadReader } from './core/payload-cipher.js';
import { PayloadSealer, QueueEncryptionView, type AppendFunction } from './core/payload-sealing.js';
import { openingClaim } from './core/pop-payloads.js';
import { PopService } from './core/pop.js';
import { PushService } from './core/push.js';
import { WakeBus, type QueueSignal } from './core/wake-bus.js';
import { HttpError } from './errors.js';
import { createHttpServer, errorReply } from './http/server.js';
import type { Reply, Route } from './http/route.js';
import { routeTable } from './http/routes/index.js';
import { createLogger, type Logger } from './logger.js';
import { Metrics } from './metrics/index.js';
import type { Services } from './services.js';
import { cursorClaimChecked } from './store/claims.js';
import { cursorAck, cursorClaim, leaseRelease } from './store/cursors.js';
import { createPool, isConnectivityError, isStatementTimeout, toWireError, type ConnectionSettings } from './store/database.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './store/embedded.js';
import { migrate } from './store/migrations.js';
import { queueEncryptionFlags } from './store/queues.js';
import { segmentAppend } from './store/segments.js';
import { WakeChannel } from './store/wake-channel.js';

const VERSION = (JSON.parse(fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../package.json'), 'utf8')) as { version: string }).version;

/** Concurrent push transactions: enough to overlap commits, few enough that batches grow under load. */
const PUSH_MAX_IN_FLIGHT = 4;
/** Items per coalesced push transaction. */
const PUSH_MAX_ITEMS = 10_000;
const SHUTDOWN_GRACE_MS = 30_000;

/** A running broker. */
export class Broker {
  private constructor(
    readonly config: Config,
    readonly log: Logger,
    private readonly server: http.Server,
    private readonly pool: pg.Pool,
    private readonly channel: WakeChannel,
    private readonly pop: PopService,
    private readonly embedded: EmbeddedServer | null,
    private readonly lifecycle: { draining: boolean },
    private readonly metrics: Metrics,
  ) {}

  /** The port the HTTP server listens on. */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Starts a broker: database, migrations, wake-ups, HTTP. */
  static async start(config: Config): Promise<Broker> {
    const log = createLogger(config.logLevel, config.serverId);
    if (config.ignoredVariables.length > 0) log.info({ variables: config.ignoredVariables }, 'upstream tuning variables are accepted and ignored');

    let embedded: EmbeddedServer | null = null;
    let settings: Omit<ConnectionSettings, 'poolSize' | 'acquireTimeoutMs' | 'statementTimeoutMs' | 'lockTimeoutMs' | 'applicationName'>;
    if (config.database.kind === 'embedded') {
      log.info({ dataDir: config.database.dataDir, port: config.database.port }, 'starting embedded PostgreSQL');
      const pgLog = log.child({ component: 'postgres' });
      embedded = await startEmbeddedPostgres(config.database.dataDir, config.database.port, (line) => pgLog.debug(line.trim()));
      settings = { host: embedded.host, port: embedded.port, user: embedded.user, password: embedded.password, database: embedded.database };
    } else {
      settings = config.database;
    }
    const connection: ConnectionSettings = {
      ...settings,
      poolSize: config.poolSize,
      acquireTimeoutMs: config.poolAcquireTimeoutMs,
      statementTimeoutMs: config.statementTimeoutMs,
      lockTimeoutMs: config.lockTimeoutMs,
      applicationName: `queen:${config.serverId}`.slice(0, 63),
      sealing: config.encryptionKey !== null,
    };
    const lifecycle = { draining: false };
    // While draining, a terminal's Ctrl-C has also reached the embedded PostgreSQL: lost connections are expected.
    const warn = (error: Error, msg: string): void => (lifecycle.draining ? log.debug({ err: error }, msg) : log.warn({ err: error }, msg));
    const pool = createPool(connection, (error) => warn(error, 'idle database connection failed'));
    const applied = await migrate(pool);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');

    // Encryption at rest (API.md 9.6): one sealing step wraps every append; reads open sealed payloads.
    const cipher = config.encryptionKey === null ? null : new PayloadCipher(config.encryptionKey);
    const payloads = new PayloadReader(cipher);
    const encryptionView = new QueueEncryptionView((names) => queueEncryptionFlags(pool, { names }));
    const sealer = cipher === null ? null : new PayloadSealer(cipher, encryptionView);
    const sealAppend = (append: AppendFunction): AppendFunction => (sealer === null ? append : sealer.wrap(append));

    const bus = new WakeBus();
    const metrics = new Metrics({ config, db: pool, bus, log });
    const channel = new WakeChannel(
      () => new pg.Client({ ...(connection.connectionString !== undefined ? { connectionString: connection.connectionString } : connection), options: '-c TimeZone=UTC' } as pg.ClientConfig),
      config.serverId,
      (signal) => {
        if (signal.config === true) encryptionView.forget(signal.queue);
        bus.signal(signal);
      },
      (error) => warn(error, 'wake connection failed'),
    );
    await channel.start();
    /** After a commit: wake this process's parked pops now, the other processes' through NOTIFY. */
    const wake = (signal: QueueSignal): void => {
      bus.signal(signal);
      channel.publish(signal);
    };

    const isProcedureError = (error: unknown): boolean =>
      (error instanceof pg.DatabaseError && !isStatementTimeout(error) && !isConnectivityError(error)) || error instanceof PayloadDecryptError;
    const push = new PushService(sealAppend((items) => segmentAppend(pool, { items })), wake, {
      maxInFlight: PUSH_MAX_IN_FLIGHT,
      maxItems: PUSH_MAX_ITEMS,
      isolateOnError: isProcedureError,
    });
    const pop = new PopService(
      openingClaim(payloads, {
        claim: (params) => cursorClaim(pool, params),
        claimChecked: (params, check) => cursorClaimChecked(pool, params, check),
        release: (leaseId) => leaseRelease(pool, { leaseId, origin: '' }),
        mayHoldSealed: (queue) => encryptionView.mayHoldSealed(queue),
      }),
      bus,
      config.pop,
      Math.max(1, Math.floor(config.poolSize / 2)),
      (error) => {
        log.error({ err: error }, 'pop procedure failed');
        metrics.recorder.failure(error);
      },
      isProcedureError,
    );
    const ack = new AckService((items) => cursorAck(pool, { items }), wake);

    const services: Services = {
      config,
      log,
      version: VERSION,
      serverId: config.serverId,
      encryptionConfigured: cipher !== null,
      payloads,
      sealAppend,
      queueChanged: (signal) => {
        encryptionView.forget(signal.queue);
        channel.publish({ ...signal, config: true });
      },
      db: pool,
      push,
      pop,
      ack,
      bus,
      wake,
      metrics,
      health: {
        databaseReachable: () => databaseReachable(pool),
        draining: () => lifecycle.draining,
      },
    };

    const routes = routeTable(services);
    const toReply = (error: unknown, route: Route): Reply => {
      metrics.recorder.failure(error);
      const mapped = toWireError(error, route.popShape === true);
      if (mapped instanceof HttpError) return errorReply(mapped);
      log.error({ err: mapped, route: `${route.method} ${route.path}` }, 'unexpected error');
      return { status: 500, body: { error: mapped instanceof Error ? mapped.message : String(mapped) } };
    };
    const server = createHttpServer(routes, {
      maxPayloadBytes: config.maxPayloadBytes, log, toReply, draining: () => lifecycle.draining, observe: () => metrics.recorder.begin(),
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const broker = new Broker(config, log, server, pool, channel, pop, embedded, lifecycle, metrics);
    await metrics.start(broker.port); // the first heartbeat: /health knows the cluster from here on
    log.info({ port: broker.port, host: config.host, database: config.database.kind }, 'Queen broker listening');
    return broker;
  }

  /** Stops in order: no new connections, parked pops answered, in-flight requests finished, pool, database. */
  async stop(): Promise<void> {
    this.lifecycle.draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.pop.shutdown();
    this.server.closeIdleConnections();
    const grace = setTimeout(() => this.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    await closed;
    clearTimeout(grace);
    await this.metrics.stop(); // after the last request: the final flush holds every counter
    await this.channel.stop();
    await this.pool.end();
    if (this.embedded !== null) await this.embedded.stop();
    this.log.info('Queen broker stopped');
  }
}

async function databaseReachable(pool: pg.Pool): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), 2000);
  });
  try {
    return await Promise.race([pool.query('SELECT 1').then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
