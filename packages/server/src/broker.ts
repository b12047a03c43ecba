/**
 * The broker process: start-up as a sequence of steps (boot/), each with its own stop, and shutdown as
 * the same stops in reverse (API.md 9.8):
 *
 *   listen      bind the HTTP port (answers 503 until `serve`): a taken port stops start-up before anything else
 *   database    the embedded PostgreSQL when none is configured, the pool, the first contact (retried)
 *   migrations  the schema (under an advisory lock)
 *   monitoring  heartbeat and stats flush (stopped after the last request: the final flush holds every counter)
 *   write path  sealing, wake connection, maintenance flags, failover buffer, push
 *   read path   pop, ack
 *   serve       the routes: stopped by draining (parked pops answered, in-flight requests finished)
 *   background  retention and eviction
 *
 * A failure at any step undoes the steps before it and surfaces as one StartupFailure (main.ts prints it
 * as one line).
 */
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { Authenticator } from './auth/index.js';
import { AdmissionGate, admittedPool } from './boot/admission.js';
import { createCatalog } from './boot/catalog.js';
import { applyMigrations, startDatabase } from './boot/database.js';
import { createMessageAdmin } from './boot/message-admin.js';
import { startReadPath } from './boot/read-path.js';
import { StartupError, StartupSequence } from './boot/sequence.js';
import { startWritePath, type WritePath } from './boot/write-path.js';
import type { Config } from './config.js';
import { StreamsService } from './core/streams/service.js';
import { WakeBus } from './core/wake-bus.js';
import { HttpError } from './errors.js';
import { bindHttpServer } from './http/listener.js';
import type { RouteContext } from './http/context.js';
import { createHttpServer, errorReply, internalError, type HttpServer } from './http/server.js';
import { createStaticHandler, type StaticHandler } from './http/static.js';
import type { Reply, Route } from './http/route.js';
import { routeTable } from './http/routes/index.js';
import { createLogger, type Logger } from './logger.js';
import { Metrics } from './metrics/index.js';
import { toWireError } from './store/database.js';
import { guardDriverExceptions } from './store/driver-guard.js';
import { EvictionService, RetentionService } from './services/retention.js';
import { queryRegister, stateRead, streamsCycleApply, streamsCycleRun } from './store/streams.js';
import { transactionRun } from './store/transaction.js';

/** The broker's version (packages/server/package.json). */
export const VERSION = (JSON.parse(fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../package.json'), 'utf8')) as { version: string }).version;

const SHUTDOWN_GRACE_MS = 30_000;

/** A running broker. */
export class Broker {
  private constructor(
    readonly config: Config,
    readonly log: Logger,
    private readonly server: http.Server,
    private readonly sequence: StartupSequence,
  ) {}

  /** The port the HTTP server listens on. */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /**
   * Starts a broker step by step; on failure every step already started is undone and a StartupFailure is
   * thrown. `signal` (SIGTERM during start-up) stops the sequence at the next step.
   */
  static async start(config: Config, signal?: AbortSignal): Promise<Broker> {
    guardDriverExceptions(); // an exception in the database driver fails its connection, never the process
    const log = createLogger(config.logLevel, config.serverId, config.logFormat);
    for (const warning of config.warnings) log.warn(warning);
    if (config.ignoredVariables.length > 0) log.info({ variables: config.ignoredVariables }, 'upstream tuning variables are accepted and ignored');
    const auth = config.auth.enabled ? createAuthenticator(config, log) : undefined;
    const sequence = new StartupSequence(log, signal);
    const lifecycle = { draining: false };
    // While draining, a terminal's Ctrl-C has also reached the embedded PostgreSQL: lost connections are expected.
    const warn = (error: Error, msg: string): void => (lifecycle.draining ? log.debug({ err: error }, msg) : log.warn({ err: error }, msg));

    const server = await sequence.step('listen', async (defer) => {
      const bound = await bindHttpServer(config.port, config.host, config.http).catch((error: unknown) => {
        throw listenError(error, config);
      });
      defer('HTTP port', () => closeServer(bound));
      return bound;
    });
    const port = (server.address() as AddressInfo).port;
    const database = await sequence.step('database', (defer) => startDatabase({ config, log, warn, signal }, defer));
    const { pool } = database;
    await sequence.step('migrations', () => applyMigrations(pool, log, { where: database.where, waitMs: config.startupWaitMs, signal }));

    const bus = new WakeBus();
    let write: WritePath | null = null; // the metrics read the buffer and the flags only when scraped
    const metrics = await sequence.step('monitoring', async (defer) => {
      const started = new Metrics({
        config, db: pool, bus, log,
        bufferedMessages: () => write?.buffer.bufferedCount ?? 0,
        bufferState: () => write?.buffer.state ?? 'idle',
        maintenance: () => ({ push: write?.maintenance.push ?? false, pop: write?.maintenance.pop ?? false }),
      });
      await started.start(port); // the first heartbeat: /health knows the cluster from here on
      defer('heartbeat and stats', () => started.stop());
      return started;
    });
    const writePath = await sequence.step('write path', (defer) => startWritePath({ config, log, database, bus, metrics, warn }, defer));
    write = writePath;
    const { pop, ack } = await sequence.step('read path', (defer) => startReadPath({ config, log, database, bus, metrics, write: writePath }, defer));

    await sequence.step('serve', (defer) => {
      const { payloads, encryptionView, sealAppend, channel, wake, maintenance, buffer, push } = writePath;
      // Administrative routes hold at most their share of the pool, and stop when their client leaves.
      const admitted = admittedPool(pool, { gate: new AdmissionGate(config.bounds.adminConnections), waitMs: config.poolAcquireTimeoutMs });
      const context: RouteContext = {
        identity: { version: VERSION, serverId: config.serverId, encryptionConfigured: writePath.cipher !== null },
        log,
        popDefaults: config.pop,
        bounds: config.bounds,
        push,
        pop,
        ack,
        streams: new StreamsService({
          register: (request) => queryRegister(pool, request),
          read: (request) => stateRead(pool, request),
          // Sink pushes go through the same sealing step as /push and transactions (API.md 9.6).
          run: (work) => streamsCycleRun(pool, (store) => work({ ...store, append: sealAppend(store.append) })),
          applyAlone: (params) => streamsCycleApply(pool, params),
          wake,
        }),
        transactions: {
          // Transaction pushes go through the same sealing step as /push (API.md 9.6).
          run: (work) => transactionRun(pool, { origin: config.serverId, work: (store) => work({ ...store, append: sealAppend(store.append) }) }),
          signal: wake,
        },
        catalog: createCatalog(admitted, pool),
        messageAdmin: createMessageAdmin(admitted, config.serverId, wake),
        payloads,
        queueCache: {
          stats: () => encryptionView.stats(),
          changed: (queueSignal) => {
            encryptionView.forget(queueSignal.queue);
            channel.publish({ ...queueSignal, config: true });
          },
        },
        health: {
          databaseReachable: () => databaseReachable(pool),
          draining: () => lifecycle.draining,
          databaseServer: database.server,
        },
        metrics,
        maintenance,
        buffer,
      };
      const toReply = (error: unknown, route: Route): Reply => {
        metrics.recorder.failure(error);
        const mapped = toWireError(error, route.popShape === true);
        if (mapped instanceof HttpError) {
          if (mapped !== error && mapped.body.error === 'Internal server error') log.error({ err: error, route: `${route.method} ${route.path}` }, 'unexpected database error');
          return errorReply(mapped);
        }
        return internalError(log, mapped, `${route.method} ${route.path}`);
      };
      const httpServer = createHttpServer(routeTable(context), {
        maxPayloadBytes: config.maxPayloadBytes, bodyBytesInFlight: config.bounds.bodyBytesInFlight, maxJsonDepth: config.maxJsonDepth, ...config.http, log, toReply, draining: () => lifecycle.draining, observe: () => metrics.recorder.begin(),
        server,
        ...(auth !== undefined ? { auth } : {}),
        ...dashboardFallback(config, log),
      });
      defer('requests', async () => {
        lifecycle.draining = true;
        await drain(httpServer, () => pop.shutdown());
      });
    });

    await sequence.step('background services', async (defer) => {
      const jobDeps = { db: pool, onDatabaseError: (error: unknown) => metrics.recorder.failure(error) };
      for (const job of [
        new RetentionService(config.retention, log.child({ component: 'retention' }), jobDeps),
        new EvictionService(config.retention, log.child({ component: 'eviction' }), jobDeps),
      ]) {
        await job.start();
        defer(job.constructor.name, () => job.stop()); // a cycle in progress ends its current chunk's work
      }
    });
    log.debug({ port, host: config.host, database: config.database.kind }, 'Queen broker listening'); // main.ts prints the ready line
    return new Broker(config, log, server, sequence);
  }

  /** Stops in order: no new connections, parked pops answered, in-flight requests finished, services, pool, database. */
  async stop(): Promise<void> {
    await this.sequence.unwind();
    this.log.info('Queen broker stopped');
  }
}

/** The one-line reason a port could not be bound, for the errors an operator causes; others pass through. */
function listenError(error: unknown, config: Config): unknown {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new StartupError(`port ${config.port} is already in use (set PORT)`);
    case 'EACCES':
      return new StartupError(`port ${config.port} needs privileges this process does not have (set PORT)`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new StartupError(`HOST ${config.host} is not an address of this machine (set HOST)`);
    default:
      return error;
  }
}

/** Stops accepting connections, answers parked pops, lets in-flight requests finish (SHUTDOWN_GRACE_MS at most). */
async function drain(httpServer: HttpServer, answerParkedPops: () => void): Promise<void> {
  const closed = closeServer(httpServer.server);
  answerParkedPops();
  httpServer.closeIdleConnections();
  const grace = setTimeout(() => httpServer.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await closed;
  clearTimeout(grace);
}

/** Closes a listening server; resolves when its last connection is gone (at once when it is not listening). */
function closeServer(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The dashboard's static handler when DASHBOARD_ENABLED and the bundle was built (else a warning, API only). */
function dashboardFallback(config: Config, log: Logger): { fallback?: StaticHandler } {
  if (!config.dashboard.enabled) return {};
  const found = createStaticHandler(config.dashboard.dir, { oidc: config.dashboard.oidc });
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
