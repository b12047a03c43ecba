/**
 * The `serve` step of start-up: the routes' context (the core services over the store: routes see no pool
 * and no store/ module) and the HTTP server on the bound port. Its stop drains: no new connections, parked
 * pops answered, in-flight requests finished (SHUTDOWN_GRACE_MS at most).
 *
 * A broker that cannot reach PostgreSQL at start-up serves before the database steps, with `online` false
 * until they are done: meanwhile only the routes of SERVED_WITHOUT_DATABASE answer (pushes are buffered), the
 * others 503 with Retry-After, and /health says `disconnected` (docs/api.md 9.8 rule 3).
 */
import type http from 'node:http';
import type { Authenticator } from '../auth/index.js';
import type { Config } from '../config.js';
import type { MoveService } from '../core/database-move.js';
import { MessageAdmin } from '../core/message-admin.js';
import { StreamsService } from '../core/streams/service.js';
import { DomainError } from '../errors.js';
import type { RouteContext } from '../http/context.js';
import type { Reply, Route } from '../http/route.js';
import { routeTable } from '../http/routes/index.js';
import { createHttpServer, errorReply, internalError, type HttpServer } from '../http/server.js';
import { createStaticHandler, type StaticHandler } from '../http/static.js';
import type { Logger } from '../logger.js';
import { toDomainError } from '../store/database.js';
import { Store } from '../store/index.js';
import { AdmissionGate, admittedPool } from './admission.js';
import type { Database } from './database.js';
import { closeServer } from './listen.js';
import type { Monitoring } from './monitoring.js';
import type { ReadPath } from './read-path.js';
import type { Defer } from './sequence.js';
import { joinWorkers } from './worker-peers.js';
import type { WritePath } from './write-path.js';

const SHUTDOWN_GRACE_MS = 30_000;
/** How long `/health` waits for the database's answer. */
const REACHABLE_WAIT_MS = 2000;

/** What serving needs: everything started before it. */
export interface ServeOptions {
  config: Config;
  log: Logger;
  version: string;
  server: http.Server;
  auth: Authenticator | undefined;
  database: Database;
  monitoring: Monitoring;
  write: WritePath;
  read: ReadPath;
  /** Set when shutdown begins (the stop below sets it). */
  lifecycle: { draining: boolean };
  /** Moving the deployment to another PostgreSQL (the migration routes). */
  move: MoveService;
  /** False while the database steps are not done (a start without the database); absent: they are. */
  online?: () => boolean;
}

/** The routes being served: `drain` is the stop (registered by `serve`, again by a later step that must drain first). */
export interface Served {
  drain(): Promise<void>;
}

/** Builds the route context and serves the routes on the bound port. */
export function serve(options: ServeOptions, defer: Defer): Served {
  const { config, log, server, auth, monitoring: { metrics }, read, lifecycle, online } = options;
  const toReply = (error: unknown, route: Route): Reply => {
    metrics.recorder.failure(error);
    const mapped = toDomainError(error);
    if (mapped instanceof DomainError) {
      if (mapped.kind === 'internal') log.error({ err: error, route: `${route.method} ${route.path}` }, 'unexpected database error');
      return errorReply(mapped, route.popShape);
    }
    return internalError(log, mapped, `${route.method} ${route.path}`);
  };
  const httpServer = createHttpServer(routeTable(routeContext(options), online), {
    maxPayloadBytes: config.maxPayloadBytes, bodyBytesInFlight: config.bounds.bodyBytesInFlight, maxJsonDepth: config.maxJsonDepth, ...config.http, log, toReply, draining: () => lifecycle.draining, observe: () => metrics.recorder.begin(),
    server,
    ...(auth !== undefined ? { auth } : {}),
    ...dashboardFallback(config, log),
    queryBounds: { batch: { default: config.pop.defaultBatchSize, maximum: config.pop.maxBatchSize }, timeout: { default: config.pop.defaultTimeoutMs } },
  });
  let draining: Promise<void> | null = null;
  const served = {
    drain: () => {
      lifecycle.draining = true;
      draining ??= drain(httpServer, () => read.pop.shutdown());
      return draining;
    },
  };
  defer('requests', served.drain);
  return served;
}

/** The core services as the routes see them. */
function routeContext({ config, log, version, database, monitoring, write, read, lifecycle, online, move }: ServeOptions): RouteContext {
  const { pool, store } = database;
  // Administrative routes hold at most their share of the pool, and stop when their client leaves.
  const admitted = store.over(admittedPool(pool, { gate: new AdmissionGate(config.bounds.adminConnections), waitMs: config.poolAcquireTimeoutMs }));
  const { payloads, encryptionView, sealing, channel, wake, maintenance, buffer, push } = write;
  const { metrics, heartbeat, stats, tracing } = monitoring;
  const context: RouteContext = {
    identity: { version, serverId: config.serverId, encryptionConfigured: write.cipher !== null },
    log,
    popDefaults: config.pop,
    bounds: config.bounds,
    push,
    pop: read.pop,
    ack: read.ack,
    // Sink pushes and transaction pushes go through the same sealing step as /push (docs/api.md 9.6).
    streams: new StreamsService({ store, sealing, wake }),
    transactions: { store, sealing, signal: wake },
    catalog: admitted,
    messageAdmin: new MessageAdmin({ store: admitted, origin: config.serverId, wake }),
    payloads,
    queueCache: {
      stats: () => encryptionView.stats(),
      changed: (queueSignal) => {
        encryptionView.forget(queueSignal.queue);
        channel.publish({ ...queueSignal, config: true });
      },
    },
    health: {
      databaseReachable: () => (online === undefined || online() ? reachable(store) : Promise.resolve(false)),
      draining: () => lifecycle.draining,
      databaseServer: database.server,
    },
    metrics: { recorder: metrics.recorder, prometheus: metrics.prometheus, summary: () => metrics.summary(), heartbeat, stats },
    maintenance,
    buffer,
    tracing,
    migration: move,
    workers: null,
  };
  // A worker (QUEEN_WORKERS > 1) answers /health, /ready and /metrics for every worker of the port.
  if (config.worker !== null) context.workers = joinWorkers(config.worker.index, () => context);
  return context;
}

/** True when the database answers within REACHABLE_WAIT_MS. */
async function reachable(store: Pick<Store, 'ping'>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), REACHABLE_WAIT_MS);
  });
  try {
    return await Promise.race([store.ping().then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
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

/** The dashboard's static handler when DASHBOARD_ENABLED and the bundle was built (else a warning, API only). */
function dashboardFallback(config: Config, log: Logger): { fallback?: StaticHandler } {
  if (!config.dashboard.enabled) return {};
  const found = createStaticHandler(config.dashboard.dir, { oidc: config.dashboard.oidc });
  if ('handler' in found) return { fallback: found.handler };
  log.warn({ missing: found.missing }, 'dashboard not built (run npm run build): serving the API only');
  return {};
}
