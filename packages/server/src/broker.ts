/**
 * The broker process: start-up as a sequence of steps (boot/), each with its own stop, and shutdown as
 * the same stops in reverse (docs/api.md 9.8):
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
import { applyMigrations, startDatabase } from './boot/database.js';
import { reportRefusedNames } from './boot/refused-names.js';
import { createAuthenticator, listen } from './boot/listen.js';
import { startMonitoring, startRemovalJobs } from './boot/monitoring.js';
import { startReadPath } from './boot/read-path.js';
import { StartupSequence } from './boot/sequence.js';
import { serve } from './boot/serve.js';
import { startWritePath, type WritePath } from './boot/write-path.js';
import type { Config } from './config.js';
import { WakeBus } from './core/wake-bus.js';
import { createLogger, type Logger } from './logger.js';
import { guardDriverExceptions } from './store/driver-guard.js';

/** The broker's version (packages/server/package.json). */
export const VERSION = (JSON.parse(fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../package.json'), 'utf8')) as { version: string }).version;

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
    await sequence.step('migrations', async () => {
      await applyMigrations(database.pool, log, { where: database.where, waitMs: config.startupWaitMs, signal });
      await reportRefusedNames(database.store, log);
    });
    const monitoring = await sequence.step('monitoring', (defer) => startMonitoring({
      config, log, database, bus, port, version: VERSION,
      bufferedMessages: () => write?.buffer.bufferedCount ?? 0,
      bufferState: () => write?.buffer.state ?? 'idle',
      maintenance: () => ({ push: write?.maintenance.push ?? false, pop: write?.maintenance.pop ?? false }),
    }, defer));
    const { metrics } = monitoring;
    write = await sequence.step('write path', (defer) => startWritePath({ config, log, database, bus, metrics, warn }, defer));
    const writePath = write;
    const read = await sequence.step('read path', (defer) => startReadPath({ config, log, database, bus, metrics, write: writePath }, defer));
    await sequence.step('serve', (defer) => serve({ config, log, version: VERSION, server, auth, database, monitoring, write: writePath, read, lifecycle }, defer));
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
