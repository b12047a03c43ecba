/**
 * The broker process: start-up as a sequence of steps (boot/), each with its own stop, and shutdown as
 * the same stops in reverse (docs/api.md 9.8):
 *
 *   listen      bind the HTTP port (answers 503 until `serve`): a taken port stops start-up before anything else
 *   database    the embedded PostgreSQL when none is configured (and its first contact), the pool
 *   first contact  an external PostgreSQL's `SELECT 1`; when an attempt fails, the broker serves at once
 *               without the database (pushes buffered, the rest 503 + Retry-After, docs/api.md 9.8 rule 3),
 *               then waits for it (retried, DB_STARTUP_WAIT_MS)
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
import { applyMigrations, startDatabase } from './boot/database.js';
import { buildMove, startMoveWatch } from './boot/database-move.js';
import { reportRefusedNames } from './boot/refused-names.js';
import { createAuthenticator, listen } from './boot/listen.js';
import { buildMonitoring, startMonitoring, startRemovalJobs, startTracing } from './boot/monitoring.js';
import { buildReadPath } from './boot/read-path.js';
import { StartupSequence, type Defer } from './boot/sequence.js';
import { serve, type Served } from './boot/serve.js';
import { buildWritePath, startWritePath, type WritePath } from './boot/write-path.js';
import type { Config } from './config.js';
import { WakeBus } from './core/wake-bus.js';
import { createLogger, type Logger } from './logger.js';
import { guardDriverExceptions } from './store/driver-guard.js';

/** The broker's version (packages/server/package.json). */
export const VERSION = (JSON.parse(fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../package.json'), 'utf8')) as { version: string }).version;

/** How long the first contact with an external PostgreSQL may take before the broker serves without it. */
const FIRST_CONTACT_MS = 1000;

/**
 * Serves before the database answered (docs/api.md 9.8 rule 3): the buffer takes over this server id's
 * directory and buffers every push; the routes that need the database answer 503 until `online.now`.
 */
async function serveWithoutDatabase(options: Parameters<typeof serve>[0], port: number, defer: Defer): Promise<{ served: Served; online: { now: boolean } }> {
  const { write: { buffer }, log, database } = options;
  await buffer.hold();
  defer('failover buffer', () => buffer.stop());
  const online = { now: false };
  const served = serve({ ...options, online: () => online.now }, defer);
  log.warn({ port, directory: buffer.directory }, `PostgreSQL at ${database.where} is not reachable: serving without it; pushes are buffered until it answers and the schema is migrated`);
  return { served, online };
}

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
    if ((config.worker?.index ?? 0) === 0) { // said once, not by every worker (QUEEN_WORKERS)
      for (const warning of config.warnings) log.warn(warning);
      if (config.ignoredVariables.length > 0) log.info({ variables: config.ignoredVariables }, 'upstream tuning variables are accepted and ignored');
    }
    const auth = createAuthenticator(config, log);
    const sequence = new StartupSequence(log, signal);
    const lifecycle = { draining: false };
    // While draining, a terminal's Ctrl-C has also reached the embedded PostgreSQL: lost connections are expected.
    const warn = (error: Error, msg: string): void => (lifecycle.draining ? log.debug({ err: error }, msg) : log.warn({ err: error }, msg));
    const bus = new WakeBus();
    let write: WritePath | null = null; // the metrics read the buffer and the flags only when scraped

    const server = await sequence.step('listen', (defer) => listen(config, defer));
    const port = (server.address() as AddressInfo).port;
    const database = await sequence.step('database', (defer) => startDatabase({ config, log, warn, signal }, defer));
    const tracing = await sequence.step('tracing', (defer) => startTracing(config, VERSION, log, defer));
    // The services are made without the database; each starts its database work in its step below.
    const monitoring = buildMonitoring({
      config, log, database, bus, tracing,
      bufferedMessages: () => write?.buffer.bufferedCount ?? 0,
      bufferState: () => write?.buffer.state ?? 'idle',
      bufferBytes: () => ({ bytes: write?.buffer.bytes ?? 0, maxBytes: write?.buffer.maxBytes ?? 0 }),
      maintenance: () => ({ push: write?.maintenance.push ?? false, pop: write?.maintenance.pop ?? false }),
    });
    const { metrics } = monitoring;
    const writePath = buildWritePath({ config, log, database, bus, metrics, warn });
    write = writePath;
    const read = buildReadPath({ config, log, database, bus, metrics, write: writePath });
    const move = buildMove({ config, log, database });
    const serving = { config, log, version: VERSION, server, auth, database, monitoring, write: writePath, read, lifecycle, move };

    let early: { served: Served; online: { now: boolean } } | null = null;
    if (!(await sequence.step('first contact', () => database.contact(FIRST_CONTACT_MS)))) {
      early = await sequence.step('serve without the database', (defer) => serveWithoutDatabase(serving, port, defer));
      await sequence.step('first contact', () => database.contact(Number.POSITIVE_INFINITY));
    }
    await sequence.step('database move', (defer) => startMoveWatch(move, defer));
    await sequence.step('migrations', async () => {
      await applyMigrations(database, log, { where: database.where, waitMs: config.startupWaitMs, citus: config.citus, signal });
      await reportRefusedNames(database.store, log);
    });
    await sequence.step('monitoring', (defer) => startMonitoring(monitoring, port, defer));
    await sequence.step('write path', (defer) => startWritePath(writePath, database.store, defer));
    await sequence.step('read path', (defer) => defer('parked pops', () => read.pop.shutdown()));
    await sequence.step('serve', (defer) => {
      if (early === null) return void serve(serving, defer);
      defer('requests', early.served.drain); // drained first at shutdown, as the routes served from the start
      early.online.now = true;
      log.info({ port }, 'PostgreSQL reached and the schema migrated: serving every route');
    });
    await sequence.step('background services', (defer) => startRemovalJobs({ config, log, database, metrics }, defer));
    log.debug({ port, host: config.host, database: config.database.kind }, 'Queen broker listening'); // main.ts prints the ready line
    return new Broker(config, log, server, sequence);
  }

  /** Stops in order: no new connections, parked pops answered, in-flight requests finished, services, pool, database. */
  async stop(): Promise<void> {
    await this.sequence.unwind();
    this.log.info('Queen broker stopped');
  }
}
