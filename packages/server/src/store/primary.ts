/**
 * Which server every new database connection goes to, and noticing when that server is gone.
 *
 * With several hosts (a primary and its standbys under an HA manager), the locator remembers the server that
 * last satisfied `target_session_attrs` and hands it to every new connection; connections check what the
 * server reports at start-up (`in_hot_standby`, `default_transaction_read_only`, PostgreSQL >= 14) and a
 * server that no longer fits is dropped. Finding a server asks every host at once, each within the connect
 * timeout, and takes the first that answers as a fitting server (libpq tries them one after the other; at
 * once, a stalled host does not cost its whole timeout, and an HA cluster has one primary).
 *
 * A server is *lost* when the liveness probe (a statement on a connection of its own every probe interval)
 * goes unanswered for the probe timeout, or when a connection reports what a failover looks like (read-only
 * transaction, administrator or crash shutdown) and a fresh connection cannot confirm the server. Losing it
 * closes every connection to it, those running a statement included: their statements fail as connectivity
 * errors (pushes go to the failover buffer, nothing hangs on a server that stopped answering), the pool
 * opens new connections, and those find the new primary. The probe keeps looking while none is found, so a
 * promoted standby is adopted within one probe interval.
 */
import pg from 'pg';
import { describeHost, describeHosts, type HostAddress, type TargetSessionAttrs } from '../database-address.js';

/** The server settings PostgreSQL (>= 14) reports at start-up that tell a primary from a standby. */
export interface ReportedStatus {
  inHotStandby: string | undefined;
  defaultReadOnly: string | undefined;
}

/** What a locator needs: the hosts, the attributes to meet, how to open a bare client, the bounds. */
export interface PrimaryLocatorParams {
  hosts: HostAddress[];
  targetSessionAttrs: TargetSessionAttrs;
  /** A new, unconnected client for `host` (the probes' connections; never pooled). */
  probeClient: (host: HostAddress) => pg.Client;
  /** Destroys a client's socket at once (ending it politely waits for a server that may never answer). */
  cut: (client: pg.Client, error: Error) => void;
  connectTimeoutMs: number;
  probeIntervalMs: number;
  probeTimeoutMs: number;
  /** The server every new connection goes to changed (null: none found). */
  onChange: (host: HostAddress | null, reason: string) => void;
}

/** The connections a locator may have to close: any object with its server and a way to cut its socket. */
export interface TrackedConnection {
  readonly server: HostAddress | null;
  cut(reason: Error): void;
}

/** Thrown when no host is a fitting server: a connectivity failure (SQLSTATE 08001), so pushes are buffered. */
export class NoServerError extends Error {
  readonly code = '08001';

  /** `causes`: each host's failure (what store/database.ts reads to tell a TLS fault from an outage). */
  constructor(message: string, readonly causes: unknown[]) {
    super(message);
  }
}

const sameHost = (a: HostAddress | null, b: HostAddress | null): boolean => a !== null && b !== null && a.host === b.host && a.port === b.port;

/** Finds and watches the server every new connection goes to. */
export class PrimaryLocator {
  private current: HostAddress | null = null;
  private finding: Promise<HostAddress> | null = null;
  private readonly connections = new Set<TrackedConnection>();
  private probeTimer: NodeJS.Timeout | null = null;
  private probeConnection: pg.Client | null = null;
  private lastAnswerAt = Date.now();
  private probing = false;
  /** Set by stop(): a search still running gives up at its next recheck (start-up interrupted, shutdown). */
  private stopped = false;
  /** The connections of checks under way: stop() cuts them, as a silent host would hold one for the connect timeout. */
  private readonly checks = new Set<pg.Client>();
  /** The one server of a single-host `any` setting: used as it is, never searched for. */
  private fixed: HostAddress | null;
  /** Set while a suspect server is being checked: the pool waits for it before handing out a connection. */
  checking: Promise<void> | null = null;

  constructor(private readonly params: PrimaryLocatorParams) {
    this.fixed = params.hosts.length === 1 && params.targetSessionAttrs === 'any' ? params.hosts[0]! : null;
  }

  /** The server new connections go to right now, or null while none is known. */
  get known(): HostAddress | null {
    return this.current ?? this.fixed;
  }

  /** True when a connection must check what its server reports (several hosts, or attributes to meet). */
  get checksServers(): boolean {
    return this.params.targetSessionAttrs !== 'any';
  }

  /** The server for a new connection: the known one, or the first host found to fit. */
  server(): Promise<HostAddress> {
    const known = this.current ?? this.fixed;
    if (known !== null) return Promise.resolve(known);
    this.finding ??= this.find().finally(() => {
      this.finding = null;
    });
    return this.finding;
  }

  /** True when a server reporting `status` meets the attributes (always for `any`). */
  fits(status: ReportedStatus): boolean {
    if (this.params.targetSessionAttrs === 'any') return true;
    if (status.inHotStandby === 'on') return false;
    return this.params.targetSessionAttrs === 'primary' || status.defaultReadOnly !== 'on';
  }

  /** A connection's server reported what a failover looks like: confirm it with a fresh connection, or lose it. */
  suspect(server: HostAddress, reason: string): void {
    if (this.checking !== null || !sameHost(server, this.current ?? this.fixed)) return;
    this.checking = this.check(server).then((fits) => {
      this.checking = null;
      if (!fits) this.lose(server, reason);
    });
  }

  /** Closes every connection to `server` and forgets it; the next connection looks for a server again. */
  lose(server: HostAddress, reason: string): void {
    this.lastAnswerAt = Date.now(); // the next loss needs a silence of its own
    if (sameHost(server, this.current)) {
      this.current = null;
      this.params.onChange(null, reason);
    }
    const error = new Error(`Connection terminated: ${describeHost(server)} ${reason}`);
    for (const connection of this.connections) if (sameHost(connection.server, server)) connection.cut(error);
    if (sameHost(server, this.probeServer())) this.dropProbe();
  }

  /**
   * The deployment moved to other hosts (a database move, core/database-move.ts): forget the server, close
   * every connection, and look among `hosts` from now on, as after a lost primary.
   */
  moveTo(hosts: HostAddress[]): void {
    this.params.hosts = hosts;
    this.fixed = hosts.length === 1 && this.params.targetSessionAttrs === 'any' ? hosts[0]! : null;
    this.current = null;
    this.lastAnswerAt = Date.now();
    this.params.onChange(this.fixed, `moved to ${describeHosts(hosts)}`);
    const error = new Error(`Connection terminated: the database moved to ${describeHosts(hosts)}`);
    for (const connection of this.connections) connection.cut(error);
    this.dropProbe();
  }

  /** Tracks a connection until it ends, so losing its server closes it. */
  track(connection: TrackedConnection): () => void {
    this.connections.add(connection);
    return () => this.connections.delete(connection);
  }

  /** Starts the liveness probe. */
  start(): void {
    this.lastAnswerAt = Date.now();
    this.probeTimer = setInterval(() => void this.probe(), this.params.probeIntervalMs);
    this.probeTimer.unref();
  }

  /** Stops the probe and closes its connection. */
  stop(): void {
    this.stopped = true;
    if (this.probeTimer !== null) clearInterval(this.probeTimer);
    this.probeTimer = null;
    this.dropProbe();
    for (const client of this.checks) this.params.cut(client, new Error('Connection terminated: stopped'));
  }

  /** One probe tick: a statement on the probe connection; a server silent for the probe timeout is lost. */
  private async probe(): Promise<void> {
    const server = this.current ?? this.fixed;
    if (server !== null && Date.now() - this.lastAnswerAt >= this.params.probeTimeoutMs) {
      this.lose(server, `did not answer for ${Math.round((Date.now() - this.lastAnswerAt) / 1000)} s`);
    }
    if (this.probing) return; // the previous statement is still out: its silence is counted above
    this.probing = true;
    try {
      const target = await this.server(); // while none is known, this is the search for one
      if (!sameHost(target, this.probeServer())) {
        this.dropProbe();
        const client = this.params.probeClient(target);
        client.on('error', () => {
          if (this.probeConnection === client) this.dropProbe();
        });
        this.probeConnection = client;
        await withTimeout(client.connect(), this.params.connectTimeoutMs, () => this.dropProbe());
      }
      await this.probeConnection!.query('SELECT 1');
      if (sameHost(target, this.current ?? this.fixed)) this.lastAnswerAt = Date.now();
    } catch {
      this.dropProbe(); // unanswered: the silence counts from the last answer
    } finally {
      this.probing = false;
    }
  }

  private probeServer(): HostAddress | null {
    const client = this.probeConnection;
    return client === null ? null : { host: client.host, port: client.port };
  }

  private dropProbe(): void {
    const client = this.probeConnection;
    this.probeConnection = null;
    if (client !== null) this.params.cut(client, new Error('Connection terminated: probe connection closed'));
  }

  /**
   * Asks every host at once; the first that fits becomes the server of every new connection. A host that
   * answers "no" (a standby, a refused connection) is asked again every RECHECK_MS until the connect timeout,
   * so a standby promoted meanwhile is found at once.
   */
  private async find(): Promise<HostAddress> {
    const failures = new Map<string, unknown>();
    const { hosts, connectTimeoutMs } = this.params;
    const deadline = Date.now() + connectTimeoutMs;
    let settled = false;
    const ask = async (host: HostAddress): Promise<HostAddress | null> => {
      while (!settled && !this.stopped) {
        if (await this.check(host, failures)) return host;
        if (Date.now() + RECHECK_MS >= deadline) return null;
        await new Promise((resolve) => setTimeout(resolve, RECHECK_MS));
      }
      return null;
    };
    const found = await new Promise<HostAddress | null>((resolve) => {
      let pending = hosts.length;
      for (const host of hosts) {
        void ask(host).then((fits) => {
          if (fits !== null) resolve(fits);
          else if (--pending === 0) resolve(null);
        });
      }
    });
    settled = true;
    if (found === null) {
      const why = hosts.map((host) => `${describeHost(host)}: ${reason(failures.get(describeHost(host)))}`).join('; ');
      throw new NoServerError(`no ${this.params.targetSessionAttrs === 'any' ? 'reachable' : this.params.targetSessionAttrs} server among ${describeHosts(hosts)} (${why})`, [...failures.values()]);
    }
    if (!sameHost(found, this.current)) {
      const previous = this.current;
      this.current = found;
      this.lastAnswerAt = Date.now();
      this.params.onChange(found, previous === null ? 'found' : `replaces ${describeHost(previous)}`);
      // Connections to any other server (a demoted primary still running) go: there is one primary.
      const moved = new Error(`Connection terminated: the primary is now ${describeHost(found)}`);
      for (const connection of this.connections) if (connection.server !== null && !sameHost(connection.server, found)) connection.cut(moved);
    }
    return found;
  }

  /** Connects to `host` within the connect timeout and tells whether it fits (the reason in `failures` if not). */
  private async check(host: HostAddress, failures?: Map<string, unknown>): Promise<boolean> {
    const client = this.params.probeClient(host);
    const status: ReportedStatus = { inHotStandby: undefined, defaultReadOnly: undefined };
    watchStatus(client, status);
    client.on('error', () => {});
    this.checks.add(client);
    try {
      if (this.stopped) throw new Error('stopped');
      await withTimeout(client.connect(), this.params.connectTimeoutMs, () => this.params.cut(client, new Error('Connection terminated: connect timeout')));
      if (status.inHotStandby === undefined && this.checksServers) Object.assign(status, await queryStatus(client));
      const fits = this.fits(status);
      if (!fits) failures?.set(describeHost(host), status.inHotStandby === 'on' ? 'a standby (in recovery)' : 'read-only');
      return fits;
    } catch (error) {
      failures?.set(describeHost(host), error);
      return false;
    } finally {
      this.checks.delete(client);
      void client.end().catch(() => {});
    }
  }
}

/** A host's failure in a few words. */
function reason(failure: unknown): string {
  if (failure === undefined) return 'no answer';
  return failure instanceof Error ? failure.message.replace(/\s+/g, ' ') : String(failure);
}

/** How often a host that answered "no" is asked again while a search for a server runs. */
const RECHECK_MS = 250;

/** Records the start-up status a server reports on `client` into `status`. */
export function watchStatus(client: pg.Client, status: ReportedStatus): void {
  (client as unknown as { connection: NodeJS.EventEmitter }).connection.on('parameterStatus', (message: { parameterName: string; parameterValue: string }) => {
    if (message.parameterName === 'in_hot_standby') status.inHotStandby = message.parameterValue;
    else if (message.parameterName === 'default_transaction_read_only') status.defaultReadOnly = message.parameterValue;
  });
}

/** The same facts by query, for a server that does not report them (PostgreSQL < 14). */
export async function queryStatus(client: pg.Client): Promise<ReportedStatus> {
  const { rows } = await client.query<{ recovery: boolean; readOnly: string }>(
    `SELECT pg_is_in_recovery() AS recovery, current_setting('default_transaction_read_only') AS "readOnly"`,
  );
  return { inHotStandby: rows[0]!.recovery ? 'on' : 'off', defaultReadOnly: rows[0]!.readOnly };
}

/** `promise`, or a rejection after `ms` (calling `onTimeout` first). */
function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
