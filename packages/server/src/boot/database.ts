/**
 * The database steps of start-up: PostgreSQL (the embedded server when none is configured), the pool, and
 * the migrations. The first contact is retried while PostgreSQL cannot be reached: a database that is still
 * starting (a container started alongside), or a connect slower than DB_POOL_ACQUIRE_TIMEOUT_MS on a busy
 * host, should delay the broker, not stop it. Other errors (a failed migration) stop it at once.
 */
import type pg from 'pg';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { describeHost, describeHosts } from '../database-address.js';
import { openConnections, type ConnectionSettings } from '../store/connections.js';
import { isDatabaseDown, isTlsFailure } from '../store/database.js';
import { startEmbeddedPostgres } from '../store/embedded.js';
import { migrate } from '../store/migrations.js';
import { StartupError, type Defer } from './sequence.js';

/** How long start-up keeps retrying a database that cannot be reached. */
const STARTUP_CONNECT_WINDOW_MS = 60_000;

/** The started database: the pool, and dedicated sessions that follow the primary as the pool does. */
export interface Database {
  pool: pg.Pool;
  /** A new, unconnected client for a dedicated session (the LISTEN connection). */
  newClient: () => pg.Client;
  /** The server new connections go to (`host:port`), or null while the broker looks for one. */
  server: () => string | null;
}

/** What the database step needs besides the configuration. */
export interface DatabaseStepOptions {
  config: Config;
  log: Logger;
  /** Reports an idle connection's failure (quietly while shutting down). */
  warn: (error: Error, msg: string) => void;
}

/** Starts the embedded PostgreSQL if configured, opens the pool and waits until the database answers. */
export async function startDatabase({ config, log, warn }: DatabaseStepOptions, defer: Defer): Promise<Database> {
  let settings: Pick<ConnectionSettings, 'hosts' | 'targetSessionAttrs' | 'user' | 'password' | 'database' | 'tls' | 'options'>;
  if (config.database.kind === 'embedded') {
    const { dataDir, port } = config.database;
    log.info({ dataDir, port: port ?? 'auto' }, 'starting embedded PostgreSQL');
    const pgLog = log.child({ component: 'postgres' });
    // Its failure names the port, the data directory and PostgreSQL's own reason (store/embedded.ts).
    const embedded = await startEmbeddedPostgres(dataDir, port, (line) => pgLog.debug(line.trim()));
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
  const { pool, newClient, locator, close } = openConnections(connection, {
    onIdleError: (error) => warn(error, 'idle database connection failed'),
    onServerChange: (server, reason) => {
      if (server === null) serverLog.warn({ reason }, `PostgreSQL server lost (${reason}): looking for one among ${describeHosts(connection.hosts)}`);
      else if (connection.hosts.length > 1) serverLog.info({ server, reason }, `PostgreSQL primary is ${describeHosts([server])}`);
    },
  });
  defer('pool', close);
  await whileStarting(async () => {
    await pool.query('SELECT 1');
  }, log).catch((error: unknown) => {
    if (isTlsFailure(error)) {
      throw new StartupError(`TLS to PostgreSQL at ${describeHosts(connection.hosts)} failed: ${oneLine(error)}. Trust the server's certificate with PG_SSL_CA_FILE (or sslrootcert in DATABASE_URL), or turn verification off with PG_SSL_REJECT_UNAUTHORIZED=false`);
    }
    if (!isDatabaseDown(error)) throw error;
    const where = describeHosts(connection.hosts);
    throw new StartupError(`PostgreSQL at ${where} is not reachable after ${STARTUP_CONNECT_WINDOW_MS / 1000} s: ${oneLine(error)}`);
  });
  return { pool, newClient, server: () => (locator.known === null ? null : describeHost(locator.known)) };
}

/** Applies the missing migrations and the changed SQL functions (a connection lost meanwhile is retried like the first contact). */
export async function applyMigrations(pool: pg.Pool, log: Logger): Promise<void> {
  const applied = await whileStarting(() => migrate(pool), log);
  if (applied.migrations.length + applied.functions.length > 0) log.info(applied, 'schema updated');
}

/** Runs a database step of start-up, retrying while PostgreSQL cannot be reached. */
async function whileStarting<T>(step: () => Promise<T>, log: Logger): Promise<T> {
  const giveUpAt = Date.now() + STARTUP_CONNECT_WINDOW_MS;
  for (let delayMs = 200; ; delayMs = Math.min(delayMs * 2, 2000)) {
    try {
      return await step();
    } catch (error) {
      if (!isDatabaseDown(error) || isTlsFailure(error) || Date.now() + delayMs > giveUpAt) throw error;
      log.warn({ err: error, retryInMs: delayMs }, 'database not reachable yet; retrying');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/** An error's message on one line. */
function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
