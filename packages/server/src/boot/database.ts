/**
 * The database steps of start-up: PostgreSQL (the embedded server when none is configured), the pool, and
 * the migrations. The first contact is retried while PostgreSQL cannot be reached: a database that is still
 * starting (a container started alongside), or a connect slower than DB_POOL_ACQUIRE_TIMEOUT_MS on a busy
 * host, should delay the broker, not stop it. Other errors (a failed migration) stop it at once.
 *
 * With an external PostgreSQL the first contact runs in the background (`contact`): a broker that cannot
 * reach it at once serves meanwhile, buffering pushes (docs/api.md 9.8 rule 3), for as long as
 * DB_STARTUP_WAIT_MS allows (no limit by default). The embedded server is waited for here, as before.
 */
import type pg from 'pg';
import type { Config, DatabaseEndpoint } from '../config.js';
import type { Logger } from '../logger.js';
import { describeHost, describeHosts } from '../database-address.js';
import { openConnections, type ConnectionSettings, type MovedDatabase } from '../store/connections.js';
import { isDatabaseDown, isTlsFailure } from '../store/database.js';
import { EMBEDDED_CREDENTIALS, runningServerOn, startEmbeddedPostgres, type EmbeddedServer } from '../store/embedded.js';
import type { CitusMode } from '../store/citus-schema.js';
import { migrate } from '../store/migrations.js';
import { Store } from '../store/index.js';
import { NoServerError } from '../store/primary.js';
import { StartupError, type Defer } from './sequence.js';

/** The started database: the pool, and dedicated sessions that follow the primary as the pool does. */
export interface Database {
  pool: pg.Pool;
  /** The store over the pool: how everything above reaches the database. */
  store: Store;
  /** A new, unconnected client for a dedicated session (the LISTEN connection). */
  newClient: () => pg.Client;
  /** The server new connections go to (`host:port`), or null while the broker looks for one. */
  server: () => string | null;
  /** The configured server(s), `host:port[, host:port]`, for messages. */
  where: string;
  /**
   * The first contact (`SELECT 1`, retried while PostgreSQL is unreachable): true once it answered; false when
   * an attempt failed or `withinMs` passed first (it goes on; Infinity waits for the answer); rejects with the
   * start-up failure (given up, TLS, credentials).
   */
  contact(withinMs: number): Promise<boolean>;
  /** The database the broker was configured with (or the embedded one): where a database move starts from; whether its sessions seal. */
  configured: Pick<ConnectionSettings, 'hosts' | 'user' | 'password' | 'database' | 'tls' | 'sealing'>;
  /** Points every connection at another database (a database move, core/database-move.ts). */
  moveTo: (target: MovedDatabase) => void;
}

/** What the database step needs besides the configuration. */
export interface DatabaseStepOptions {
  config: Config;
  log: Logger;
  /** Reports an idle connection's failure (quietly while shutting down). */
  warn: (error: Error, msg: string) => void;
  /** Aborted by SIGINT/SIGTERM during start-up: the wait for PostgreSQL ends at once. */
  signal?: AbortSignal | undefined;
}

/** Starts the embedded PostgreSQL if configured, opens the pool and waits until the database answers. */
export async function startDatabase({ config, log, warn, signal }: DatabaseStepOptions, defer: Defer): Promise<Database> {
  let settings: DatabaseEndpoint;
  const attached = config.database.kind === 'embedded' ? config.worker?.embeddedPort ?? null : null;
  if (attached !== null) {
    // A worker: the primary started the embedded PostgreSQL (boot/workers.ts) and stops it after the last worker.
    settings = { hosts: [{ host: 'localhost', port: attached }], targetSessionAttrs: 'any', ...EMBEDDED_CREDENTIALS, tls: false };
  } else if (config.database.kind === 'embedded') {
    const embedded = await startEmbedded(config, log);
    defer('embedded PostgreSQL', () => embedded.stop());
    settings = { hosts: [{ host: embedded.host, port: embedded.port }], targetSessionAttrs: 'any', user: embedded.user, password: embedded.password, database: embedded.database, tls: false };
  } else {
    settings = config.database;
  }
  const connection: ConnectionSettings = {
    ...settings,
    health: config.databaseHealth,
    poolSize: config.poolSize,
    acquireTimeoutMs: config.poolAcquireTimeoutMs,
    statementTimeoutMs: config.statementTimeoutMs,
    lockTimeoutMs: config.lockTimeoutMs,
    applicationName: `queen:${config.serverId}`.slice(0, 63),
    sealing: config.encryptionKey !== null,
  };
  const serverLog = log.child({ component: 'database' });
  const { pool, newClient, locator, close, moveTo } = openConnections(connection, {
    onIdleError: (error) => warn(error, 'idle database connection failed'),
    onServerChange: (server, reason) => {
      if (server === null) serverLog.warn({ reason }, `PostgreSQL server lost (${reason}): looking for one among ${describeHosts(connection.hosts)}`);
      else if (connection.hosts.length > 1) serverLog.info({ server, reason }, `PostgreSQL primary is ${describeHosts([server])}`);
    },
  });
  defer('pool', close);
  const where = describeHosts(connection.hosts);
  let failedOnce: () => void = () => undefined;
  const firstFailure = new Promise<false>((resolve) => (failedOnce = () => resolve(false)));
  const firstContact = whileStarting(async () => {
    await pool.query('SELECT 1');
  }, { log, signal, where, waitMs: config.startupWaitMs, onRetry: () => failedOnce() }).catch((error: unknown) => {
    if (error instanceof StartupError) throw error; // interrupted: its message says so
    if (isTlsFailure(error)) {
      throw new StartupError(`TLS to PostgreSQL at ${describeHosts(connection.hosts)} failed: ${oneLine(error)}. Trust the server's certificate with PG_SSL_CA_FILE (or sslrootcert in DATABASE_URL), or turn verification off with PG_SSL_REJECT_UNAUTHORIZED=false`);
    }
    if (!isDatabaseDown(error)) throw error;
    throw new StartupError(`PostgreSQL at ${where} is not reachable after ${Math.round(config.startupWaitMs / 100) / 10} s (${unreachableReason(error)}). ${hint(config)}`);
  });
  firstContact.catch(() => undefined); // awaited by `contact`; a failure in between is not unhandled
  if (config.database.kind === 'embedded') await firstContact;
  const contact = (withinMs: number): Promise<boolean> => {
    if (!Number.isFinite(withinMs)) return firstContact.then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const passed = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), withinMs)));
    return Promise.race([firstContact.then(() => true), firstFailure, passed]).finally(() => clearTimeout(timer));
  };
  return { pool, store: new Store(pool), newClient, server: () => (locator.known === null ? null : describeHost(locator.known)), where, contact, configured: connection, moveTo };
}

/** Starts the embedded PostgreSQL of QUEEN_DATA_DIR (a single broker, or the primary of its workers). */
export async function startEmbedded(config: Config, log: Logger): Promise<EmbeddedServer> {
  if (config.database.kind !== 'embedded') throw new Error('an external database is configured');
  const { dataDir, port } = config.database;
  log.info({ dataDir, port: port ?? 'auto' }, 'starting embedded PostgreSQL');
  // Another broker's PostgreSQL holds this directory: say so before touching anything in it (the port file).
  const running = runningServerOn(dataDir);
  if (running !== null) {
    throw new StartupError(
      `QUEEN_DATA_DIR ${config.dataDir} is in use by another broker's embedded PostgreSQL (pid ${running.pid}${running.port === null ? '' : `, port ${running.port}`}): ` +
        `give this broker its own QUEEN_DATA_DIR, or set DATABASE_URL${running.port === null ? '' : ` (postgres://postgres:postgres@localhost:${running.port}/postgres)`} to share that database`,
    );
  }
  const pgLog = log.child({ component: 'postgres' });
  // Its failure names the port, the data directory and PostgreSQL's own reason (store/embedded.ts).
  return startEmbeddedPostgres(dataDir, port, (line) => pgLog.debug(line.trim()), embeddedConnections(config));
}

/**
 * max_connections of the embedded PostgreSQL: 200, or more when the workers' pools (DB_POOL_SIZE each, plus
 * a LISTEN session, the liveness probe and the background jobs' sessions) need more.
 */
export function embeddedConnections(config: Config): number {
  return Math.max(200, config.workers * (config.poolSize + 6) + 20);
}

/**
 * Applies the missing migrations and the changed SQL functions (a connection lost meanwhile is retried like the
 * first contact); on a Citus coordinator (QUEEN_CITUS) distributes the schema once and turns the store's
 * per-partition routing on (docs/scale-out.md section 8).
 */
export async function applyMigrations(
  database: Pick<Database, 'pool' | 'store' | 'configured'>,
  log: Logger,
  wait: { where: string; waitMs: number; citus: CitusMode; signal?: AbortSignal | undefined },
): Promise<void> {
  const applied = await whileStarting(() => migrate(database.pool, undefined, undefined, wait.citus), { log, signal: wait.signal, where: wait.where, waitMs: wait.waitMs });
  const changed = applied.migrations.length + applied.functions.length;
  if (changed > 0) log.info(schemaLine(applied));
  if (applied.citus) {
    database.store.routeOnCitus({ sealing: database.configured.sealing === true });
    log.info('the database is a Citus coordinator: tables distributed by partition, single-partition calls delegated to their workers');
  }
}

/** The `schema updated` line: counts and the newest migration, not every file name. */
export function schemaLine(applied: { migrations: string[]; functions: string[] }): string {
  const parts: string[] = [];
  const newest = applied.migrations.at(-1);
  if (newest !== undefined) parts.push(`${applied.migrations.length} migration${applied.migrations.length === 1 ? '' : 's'} applied (up to ${newest})`);
  if (applied.functions.length > 0) parts.push(`${applied.functions.length} SQL function${applied.functions.length === 1 ? '' : 's'} installed`);
  return `schema updated: ${parts.join(', ')}`;
}

/** Where the database step waits, for its log lines and its interruption. */
interface WaitContext {
  log: Logger;
  signal: AbortSignal | undefined;
  /** The server(s) waited for, `host:port[, host:port]`. */
  where: string;
  /** How long to keep retrying (DB_STARTUP_WAIT_MS). */
  waitMs: number;
  /** Called after each attempt that failed and will be retried. */
  onRetry?: () => void;
}

/**
 * Runs a database step of start-up, retrying while PostgreSQL cannot be reached: one warning line per failed
 * attempt (where, why, when the next one is), no stack. A signal ends the wait at once, mid-attempt included.
 */
async function whileStarting<T>(step: () => Promise<T>, { log, signal, where, waitMs, onRetry }: WaitContext): Promise<T> {
  const giveUpAt = Date.now() + waitMs;
  let lastReason: string | null = null;
  const interrupted = (): StartupError =>
    new StartupError(`start-up interrupted by ${String(signal?.reason ?? 'a signal')} while waiting for PostgreSQL at ${where}${lastReason === null ? '' : ` (${lastReason})`}`);
  for (let attempt = 1, delayMs = 200; ; attempt++, delayMs = Math.min(delayMs * 2, 2000)) {
    try {
      return await untilAborted(step(), signal);
    } catch (error) {
      if (signal?.aborted === true) throw interrupted();
      if (!isDatabaseDown(error) || isTlsFailure(error) || Date.now() + delayMs > giveUpAt) throw error;
      lastReason = unreachableReason(error);
      // The line says it all; no fields, so the pretty format does not repeat it (the JSON record is the same line).
      log.warn(`PostgreSQL at ${where} not reachable (${lastReason}); attempt ${attempt} failed, next in ${delayMs / 1000} s`);
      onRetry?.();
      await untilAborted(new Promise((resolve) => setTimeout(resolve, delayMs)), signal).catch(() => {
        throw interrupted();
      });
    }
  }
}

/** `work`, or a rejection as soon as `signal` aborts (the work itself is left to the stops that follow). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Why PostgreSQL could not be reached, in a few words (the operating system's code spelled out). */
export function unreachableReason(error: unknown): string {
  if (error instanceof NoServerError && error.causes.length > 0) {
    // Several hosts: when every one failed the same way, say it once.
    const reasons = new Set(error.causes.map((cause) => systemReason(cause)));
    const [only] = reasons;
    if (reasons.size === 1 && only !== null && only !== undefined) return `${only} at every host`;
  }
  return systemReason(error) ?? oneLine(error);
}

/** The operating system's connection error in words, or null for any other error. */
function systemReason(error: unknown): string | null {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused: nothing listens there';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return null;
  }
}

/** What to check when the database stays unreachable. */
function hint(config: Config): string {
  if (config.database.kind === 'embedded') return `The embedded PostgreSQL under ${config.database.dataDir} stopped answering: check its log (LOG_LEVEL=debug)`;
  const variable = config.database.source === 'DATABASE_URL' ? 'DATABASE_URL' : 'PG_HOST/PG_PORT';
  return `Check that PostgreSQL runs there and accepts TCP connections, and check ${variable} (without DATABASE_URL and PG_HOST the broker starts an embedded PostgreSQL; DB_STARTUP_WAIT_MS waits longer)`;
}

/** An error's message on one line. */
function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
