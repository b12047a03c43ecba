/**
 * The broker process: connects to (or starts) PostgreSQL, migrates, wires the services to the HTTP routes,
 * listens, and shuts down in order (API.md 9.8).
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Authenticator } from './auth/index.js';
import type { Config } from './config.js';
import { AckService } from './core/ack.js';
import { PayloadCipher, PayloadDecryptError, PayloadReader } from './core/payload-cipher.js';
import { PayloadSealer, QueueEncryptionView, type AppendFunction } from './core/payload-sealing.js';
import { openingClaim } from './core/pop-payloads.js';
import { PopService } from './core/pop.js';
import { PushService } from './core/push.js';
import { StreamsService } from './core/streams/service.js';
import { WakeBus, type QueueSignal } from './core/wake-bus.js';
import { HttpError } from './errors.js';
import { createHttpServer, errorReply, type HttpServer } from './http/server.js';
import { createStaticHandler, type StaticHandler } from './http/static.js';
import type { Reply, Route } from './http/route.js';
import { routeTable } from './http/routes/index.js';
import { createLogger, type Logger } from './logger.js';
import { Metrics } from './metrics/index.js';
import type { Services } from './services.js';
import { cursorClaimChecked } from './store/claims.js';
import { cursorAck, cursorClaim, leaseRelease } from './store/cursors.js';
import { createPool, isConnectivityError, isDatabaseDown, isStatementTimeout, toWireError, type ConnectionSettings } from './store/database.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './store/embedded.js';
import { migrate } from './store/migrations.js';
import { queueEncryptionFlags } from './store/queues.js';
import { EvictionService, RetentionService } from './services/retention.js';
import { queryRegister, stateRead, streamsCycleApply, streamsCycleRun } from './store/streams.js';
import { transactionRun } from './store/transaction.js';
import { segmentAppend, segmentAppendReplay, type AppendItem, type AppendOptions } from './store/segments.js';
import { FailoverBuffer, classifyFailure } from './buffer/failover-buffer.js';
import { MaintenanceService } from './services/maintenance.js';
import { clusterIdRead } from './store/maintenance.js';
import { WakeChannel } from './store/wake-channel.js';

/** The broker's version (packages/server/package.json). */
export const VERSION = (JSON.parse(fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../package.json'), 'utf8')) as { version: string }).version;

/** Concurrent push transactions: enough to overlap commits, few enough that batches grow under load. */
const PUSH_MAX_IN_FLIGHT = 4;
/** Items per coalesced push transaction. */
const PUSH_MAX_ITEMS = 10_000;
const SHUTDOWN_GRACE_MS = 30_000;
/** How long start-up keeps retrying a database that cannot be reached (still starting, or a slow connect). */
const STARTUP_CONNECT_WINDOW_MS = 60_000;

/** A running broker. */
export class Broker {
  private constructor(
    readonly config: Config,
    readonly log: Logger,
    private readonly http: HttpServer,
    private readonly pool: pg.Pool,
    private readonly channel: WakeChannel,
    private readonly pop: PopService,
    private readonly embedded: EmbeddedServer | null,
    private readonly lifecycle: { draining: boolean },
    private readonly metrics: Metrics,
    private readonly jobs: Array<RetentionService | EvictionService>,
    private readonly maintenance: MaintenanceService,
    private readonly buffer: FailoverBuffer,
  ) {}

  /** The port the HTTP server listens on. */
  get port(): number {
    return (this.http.server.address() as AddressInfo).port;
  }

  /** Starts a broker: database, migrations, wake-ups, HTTP. */
  static async start(config: Config): Promise<Broker> {
    const log = createLogger(config.logLevel, config.serverId, config.logFormat);
    for (const warning of config.warnings) log.warn(warning);
    if (config.ignoredVariables.length > 0) log.info({ variables: config.ignoredVariables }, 'upstream tuning variables are accepted and ignored');
    const auth = config.auth.enabled ? createAuthenticator(config, log) : undefined;

    let embedded: EmbeddedServer | null = null;
    let settings: Omit<ConnectionSettings, 'poolSize' | 'acquireTimeoutMs' | 'statementTimeoutMs' | 'lockTimeoutMs' | 'applicationName'>;
    if (config.database.kind === 'embedded') {
      log.info({ dataDir: config.database.dataDir, port: config.database.port ?? 'auto' }, 'starting embedded PostgreSQL');
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
    const applied = await whileStarting(() => migrate(pool), log);
    if (applied.migrations.length + applied.functions.length > 0) log.info(applied, 'schema updated');

    // Encryption at rest (API.md 9.6): one sealing step wraps every append; reads open sealed payloads.
    const cipher = config.encryptionKey === null ? null : new PayloadCipher(config.encryptionKey);
    const payloads = new PayloadReader(cipher);
    const encryptionView = new QueueEncryptionView((names) => queueEncryptionFlags(pool, { names }));
    const sealer = cipher === null ? null : new PayloadSealer(cipher, encryptionView);
    const sealAppend = (append: AppendFunction): AppendFunction => (sealer === null ? append : sealer.wrap(append));

    const bus = new WakeBus();
    // The buffer and the maintenance flags are created below; the metrics read them only when scraped.
    let buffer: FailoverBuffer | null = null;
    const maintenance = new MaintenanceService(log.child({ component: 'maintenance' }), {
      db: pool,
      onChange: (previous, next) => {
        if (next.pop && !previous.pop) bus.wakeAll(); // parked pops answer `paused` now
        if (!next.push && previous.push) buffer?.kick(); // replay starts
      },
    });
    const metrics = new Metrics({
      config, db: pool, bus, log,
      bufferedMessages: () => buffer?.bufferedCount ?? 0,
      maintenance: () => ({ push: maintenance.push, pop: maintenance.pop }),
    });
    const channel = new WakeChannel(
      () => new pg.Client({ ...(connection.connectionString !== undefined ? { connectionString: connection.connectionString } : connection), options: '-c TimeZone=UTC' } as pg.ClientConfig),
      config.serverId,
      (signal) => {
        if (signal.config === true) encryptionView.forget(signal.queue);
        bus.signal(signal);
      },
      (error) => warn(error, 'wake connection failed'),
    );
    channel.listen('queen_maintenance', (payload) => maintenance.notified(payload));
    await channel.start();
    /** After a commit: wake this process's parked pops now, the other processes' through NOTIFY. */
    const wake = (signal: QueueSignal): void => {
      bus.signal(signal);
      channel.publish(signal);
    };

    const isProcedureError = (error: unknown): boolean =>
      (error instanceof pg.DatabaseError && !isStatementTimeout(error) && !isConnectivityError(error)) || error instanceof PayloadDecryptError;
    /** The push append function: pushes and the failover buffer's replay both write through it. */
    const append = sealAppend((items: AppendItem[], options?: AppendOptions) =>
      options?.replay === true ? segmentAppendReplay(pool, { items }) : segmentAppend(pool, { items }));
    buffer = new FailoverBuffer(
      { ...config.buffer, serverId: config.serverId, clusterId: await clusterIdRead(pool) },
      {
        append,
        wake,
        probe: async () => {
          await pool.query('SELECT 1');
        },
        classify: classifyFailure,
        pushMaintenance: () => maintenance.push,
        replayed: (queue, count) => metrics.recorder.written(queue, count),
        log: log.child({ component: 'buffer' }),
      },
    );
    const push = new PushService(append, wake, {
      maxInFlight: PUSH_MAX_IN_FLIGHT,
      maxItems: PUSH_MAX_ITEMS,
      isolateOnError: isProcedureError,
    }, buffer);
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
      () => maintenance.pop,
    );
    const ack = new AckService((items) => cursorAck(pool, { items }), wake);
    const streams = new StreamsService({
      register: (request) => queryRegister(pool, request),
      read: (request) => stateRead(pool, request),
      // Sink pushes go through the same sealing step as /push and transactions (API.md 9.6).
      run: (work) => streamsCycleRun(pool, (store) => work({ ...store, append: sealAppend(store.append) })),
      applyAlone: (params) => streamsCycleApply(pool, params),
      wake,
    });

    const services: Services = {
      config,
      log,
      version: VERSION,
      serverId: config.serverId,
      encryptionConfigured: cipher !== null,
      payloads,
      // Transaction pushes go through the same sealing step as /push (API.md 9.6).
      runTransaction: (work) => transactionRun(pool, { origin: config.serverId, work: (store) => work({ ...store, append: sealAppend(store.append) }) }),
      queueConfigCache: () => encryptionView.stats(),
      queueChanged: (signal) => {
        encryptionView.forget(signal.queue);
        channel.publish({ ...signal, config: true });
      },
      db: pool,
      push,
      pop,
      ack,
      streams,
      bus,
      wake,
      metrics,
      maintenance,
      buffer,
      health: {
        databaseReachable: () => databaseReachable(pool),
        draining: () => lifecycle.draining,
      },
    };

    await maintenance.start(); // the flags are known before the first request
    await buffer.start(); // leftover files of a previous run (and of dead processes) start replaying
    const routes = routeTable(services);
    const toReply = (error: unknown, route: Route): Reply => {
      metrics.recorder.failure(error);
      const mapped = toWireError(error, route.popShape === true);
      if (mapped instanceof HttpError) {
        if (mapped !== error && mapped.body.error === 'Internal server error') log.error({ err: error, route: `${route.method} ${route.path}` }, 'unexpected database error');
        return errorReply(mapped);
      }
      log.error({ err: mapped, route: `${route.method} ${route.path}` }, 'unexpected error');
      return { status: 500, body: { error: mapped instanceof Error ? mapped.message : String(mapped) } };
    };
    const httpServer = createHttpServer(routes, {
      maxPayloadBytes: config.maxPayloadBytes, maxJsonDepth: config.maxJsonDepth, ...config.http, log, toReply, draining: () => lifecycle.draining, observe: () => metrics.recorder.begin(),
      ...(auth !== undefined ? { auth } : {}),
      ...dashboardFallback(config, log),
    });
    const { server } = httpServer;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const jobDeps = { db: pool, onDatabaseError: (error: unknown) => metrics.recorder.failure(error) };
    const jobs = [
      new RetentionService(config.retention, log.child({ component: 'retention' }), jobDeps),
      new EvictionService(config.retention, log.child({ component: 'eviction' }), jobDeps),
    ];
    const broker = new Broker(config, log, httpServer, pool, channel, pop, embedded, lifecycle, metrics, jobs, maintenance, buffer);
    await metrics.start(broker.port); // the first heartbeat: /health knows the cluster from here on
    for (const job of jobs) await job.start();
    log.debug({ port: broker.port, host: config.host, database: config.database.kind }, 'Queen broker listening'); // main.ts prints the ready line
    return broker;
  }

  /** Stops in order: no new connections, parked pops answered, in-flight requests finished, pool, database. */
  async stop(): Promise<void> {
    this.lifecycle.draining = true;
    const closed = new Promise<void>((resolve) => this.http.server.close(() => resolve()));
    this.pop.shutdown();
    this.http.closeIdleConnections();
    const grace = setTimeout(() => this.http.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    await closed;
    clearTimeout(grace);
    await this.buffer.stop(); // replay stops after its batch; every acknowledged record is already fsync'd
    await this.maintenance.stop();
    await Promise.all(this.jobs.map((job) => job.stop())); // a cycle in progress ends its current chunk's work
    await this.metrics.stop(); // after the last request: the final flush holds every counter
    await this.channel.stop();
    await this.pool.end();
    if (this.embedded !== null) await this.embedded.stop();
    this.log.info('Queen broker stopped');
  }
}

/** The dashboard's static handler when DASHBOARD_ENABLED and the bundle was built (else a warning, API only). */
function dashboardFallback(config: Config, log: Logger): { fallback?: StaticHandler } {
  if (!config.dashboard.enabled) return {};
  const found = createStaticHandler(config.dashboard.dir);
  if ('handler' in found) return { fallback: found.handler };
  log.warn({ missing: found.missing }, 'dashboard not built (run npm run build): serving the API only');
  return {};
}

/** The JWT authorizer (before the database starts: a configuration that cannot work stops the start-up). */
function createAuthenticator(config: Config, log: Logger): Authenticator {
  const auth = new Authenticator(config.auth, {
    onJwksRefreshError: (error) => log.warn({ err: error }, 'JWKS refresh failed; the previous keys stay in use'),
  });
  if (auth.verifier.secretMissing) log.warn('JWT_SECRET is not set: HS256 tokens will get 500 "HS256 secret not configured"');
  log.info({ algorithm: config.auth.algorithm, jwks: config.auth.jwksUrl !== undefined }, 'JWT authentication enabled');
  return auth;
}

/**
 * Runs the first database step of start-up, retrying while PostgreSQL cannot be reached: a database that is
 * still starting (a container started alongside), or a connect slower than DB_POOL_ACQUIRE_TIMEOUT_MS on a
 * busy host, should delay the broker, not stop it. Other errors (a failed migration) stop it at once.
 */
async function whileStarting<T>(step: () => Promise<T>, log: Logger): Promise<T> {
  const giveUpAt = Date.now() + STARTUP_CONNECT_WINDOW_MS;
  for (let delayMs = 200; ; delayMs = Math.min(delayMs * 2, 2000)) {
    try {
      return await step();
    } catch (error) {
      if (!isDatabaseDown(error) || Date.now() + delayMs > giveUpAt) throw error;
      log.warn({ err: error, retryInMs: delayMs }, 'database not reachable yet; retrying');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
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
