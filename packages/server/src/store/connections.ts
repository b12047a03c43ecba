/**
 * Every connection the broker opens to PostgreSQL: the pool, the LISTEN connection and the probes, all
 * opened to the server the locator (primary.ts) names, so all of them follow a failover.
 *
 * Every session is pinned to UTC (timestamps are rendered by PostgreSQL with a literal Z), and pool sessions
 * carry the statement and lock timeouts of the configuration. A broker holding QUEEN_ENCRYPTION_KEY also
 * sets `queen.sealing = on`: `queen.push_messages` then refuses plaintext for encrypted queues.
 *
 * A connection that reports what a failover looks like (read-only transaction 25006, administrator or crash
 * shutdown 57P01/57P02, cannot connect now 57P03) makes the locator check its server; until that check is
 * done, the pool hands out no connection, so an idle connection to a demoted server is not reused. Sockets
 * have TCP keepalive on; a server that stops answering altogether is noticed by the locator's probe.
 */
import pg from 'pg';
import type { DatabaseEndpoint, DatabaseHealth } from '../config.js';
import { describeHost, type HostAddress } from '../database-address.js';
import { isFailoverCode } from './database.js';
import { PrimaryLocator, queryStatus, watchStatus, type ReportedStatus } from './primary.js';

/** Where and how the broker connects. */
export interface ConnectionSettings extends DatabaseEndpoint {
  health: DatabaseHealth;
  poolSize: number;
  acquireTimeoutMs: number;
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  applicationName: string;
  /** The broker holds the encryption key: its sessions ask push_messages to refuse plaintext for encrypted queues. */
  sealing?: boolean;
}

/** The broker's connections. */
export interface Connections {
  pool: pg.Pool;
  locator: PrimaryLocator;
  /** A new, unconnected client for a dedicated session (the LISTEN connection): it follows the primary too. */
  newClient(): pg.Client;
  /** Stops the probe and closes the pool. */
  close(): Promise<void>;
  /** Points every connection, open or new, at another database (a database move): see PrimaryLocator.moveTo. */
  moveTo(target: MovedDatabase): void;
}

/** Where a moved deployment's database is now. */
export type MovedDatabase = Pick<DatabaseEndpoint, 'hosts' | 'user' | 'password' | 'database' | 'tls'>;

/** What the connections report. */
export interface ConnectionEvents {
  /** An idle pooled connection failed (a restarted server): reported, never thrown. */
  onIdleError: (error: Error) => void;
  /** The server of new connections changed (null: none fits right now). */
  onServerChange: (server: HostAddress | null, reason: string) => void;
}

/** The socket under a node-postgres client (not in its types). */
function socketOf(client: pg.Client): { destroyed: boolean; destroy(error?: Error): void } {
  return (client as unknown as { connection: { stream: { destroyed: boolean; destroy(error?: Error): void } } }).connection.stream;
}

/** Opens the pool and starts the locator's probe. */
export function openConnections(settings: ConnectionSettings, events: ConnectionEvents): Connections {
  const base: pg.ClientConfig = {
    user: settings.user,
    password: settings.password,
    database: settings.database,
    ...(settings.tls === false ? {} : { ssl: settings.tls }),
    keepAlive: true,
    keepAliveInitialDelayMillis: settings.health.keepAliveIdleMs,
    application_name: settings.applicationName,
  };
  const utc = `${settings.options === undefined ? '' : `${settings.options} `}-c TimeZone=UTC`;
  const locator = new PrimaryLocator({
    hosts: settings.hosts,
    targetSessionAttrs: settings.targetSessionAttrs,
    probeClient: (host) => new pg.Client({ ...base, ...host, options: utc }),
    cut: (client, error) => socketOf(client).destroy(error),
    connectTimeoutMs: settings.health.connectTimeoutMs,
    probeIntervalMs: settings.health.probeIntervalMs,
    probeTimeoutMs: settings.health.probeTimeoutMs,
    onChange: events.onServerChange,
  });

  /** A client that connects to the locator's server and checks it still fits. */
  class FailoverClient extends pg.Client {
    server: HostAddress | null = null;
    private readonly status: ReportedStatus = { inHotStandby: undefined, defaultReadOnly: undefined };

    constructor(config?: pg.ClientConfig) {
      super(config);
      watchStatus(this, this.status);
      // A lost connection also fails its statement, which is where it is handled; unheard, the event would
      // throw (node-postgres emits it on a checked-out client nobody listens to).
      this.on('error', () => {});
      (this as unknown as { connection: NodeJS.EventEmitter }).connection.on('errorMessage', (error: pg.DatabaseError) => {
        if (this.server !== null && isFailoverCode(error.code)) locator.suspect(this.server, `reported ${error.code} (${error.message})`);
      });
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error) => void): void;
    override connect(callback?: (err: Error) => void): Promise<pg.Client> | void {
      const opened = this.open();
      if (callback === undefined) return opened;
      // node-postgres' callback form: (null, client) on success, as pg-pool expects.
      const done = callback as (err: Error | null, client?: pg.Client) => void;
      opened.then((client) => done(null, client), (error: Error) => done(error));
    }

    cut(error: Error): void {
      socketOf(this).destroy(error);
    }

    private async open(): Promise<pg.Client> {
      const server = await locator.server();
      // The pool's acquire timeout destroys the socket of a client still connecting: do not revive it.
      if (socketOf(this).destroyed) throw new Error('Connection terminated due to connection timeout');
      this.server = server;
      this.host = server.host;
      this.port = server.port;
      const untrack = locator.track(this);
      this.once('end', untrack);
      try {
        await super.connect();
        if (locator.checksServers) {
          if (this.status.inHotStandby === undefined) Object.assign(this.status, await queryStatus(this));
          if (!locator.fits(this.status)) {
            locator.lose(server, 'is no longer a writable primary');
            throw Object.assign(new Error(`${describeHost(server)} does not accept writes (in recovery or read-only)`), { code: '25006' });
          }
        }
        return this;
      } catch (error) {
        untrack();
        this.cut(error as Error);
        throw error;
      }
    }
  }

  const pool = new (failoverPool(locator))({
    Client: FailoverClient,
    ...base,
    options: settings.sealing === true ? `${utc} -c queen.sealing=on` : utc,
    max: settings.poolSize,
    connectionTimeoutMillis: settings.acquireTimeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: settings.statementTimeoutMs || undefined,
    lock_timeout: settings.lockTimeoutMs || undefined,
  } as pg.PoolConfig);
  pool.on('error', events.onIdleError);
  locator.start();
  return {
    pool,
    locator,
    newClient: () => new FailoverClient({ ...base, options: utc }),
    close: async () => {
      locator.stop();
      await pool.end();
    },
    moveTo: (target) => {
      // New clients (pooled ones are made from the pool's options, the others from `base`) log in to the target.
      const login = { user: target.user, password: target.password, database: target.database, ssl: target.tls === false ? false : target.tls };
      Object.assign(base, login);
      Object.assign((pool as unknown as { options: pg.PoolConfig }).options, login);
      locator.moveTo(target.hosts);
    },
  };
}

/** A pool that hands out no connection while the locator checks a suspect server. */
function failoverPool(locator: PrimaryLocator): typeof pg.Pool {
  return class FailoverPool extends pg.Pool {
    override connect(): Promise<pg.PoolClient>;
    override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
    override connect(callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): Promise<pg.PoolClient> | void {
      const checking = locator.checking;
      if (checking === null) return callback === undefined ? super.connect() : super.connect(callback);
      const acquired = checking.then(() => super.connect());
      if (callback === undefined) return acquired;
      acquired.then((client) => callback(undefined, client, (release) => client.release(release as Error | undefined)), (error: Error) => callback(error, undefined, () => {}));
    }
  };
}
