/**
 * Where an external PostgreSQL is: one host or, for a primary with standbys under an HA manager, a list of
 * hosts tried for the writable primary, as libpq reads them.
 *
 * node-postgres takes one host. This module reads the libpq forms it does not: a `DATABASE_URL` with several
 * `host:port` pairs (`postgres://u:p@h1:5432,h2:5433/db?target_session_attrs=read-write`) and a
 * comma-separated `PG_HOST` / `PG_PORT`. Everything else in a URL (credentials, database, sslmode and the
 * other parameters) is read by pg-connection-string, node-postgres' own parser, so a single-host URL means
 * exactly what it meant before. Pure: errors are thrown with a message the configuration wraps with the
 * variable's name; a password never appears in one.
 */
import { parse as parseConnectionString } from 'pg-connection-string';

/** One server of the list. */
export interface HostAddress {
  host: string;
  port: number;
}

/**
 * Which server a connection may settle on (libpq's `target_session_attrs`): `any` takes the first that
 * accepts a connection; `read-write` one that accepts writes (not in recovery, not default read-only);
 * `primary` one that is not in recovery. The broker writes, so libpq's standby-only values are refused.
 */
export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';

const SESSION_ATTRS: readonly TargetSessionAttrs[] = ['any', 'read-write', 'primary'];

/** What a DATABASE_URL says. `ssl` is node-postgres' reading of sslmode (undefined when the URL has none). */
export interface DatabaseAddress {
  hosts: HostAddress[];
  targetSessionAttrs: TargetSessionAttrs;
  user: string | undefined;
  password: string | undefined;
  database: string | undefined;
  ssl: ReturnType<typeof parseConnectionString>['ssl'];
  /** The URL's `options` parameter (server settings), kept beside the broker's own. */
  options: string | undefined;
  /** The URL's `connect_timeout` (seconds, as libpq), if any. */
  connectTimeoutSeconds: number | undefined;
}

const DEFAULT_PORT = 5432;

/** Reads `target_session_attrs`; several hosts default to `read-write` (a broker must find the primary). */
export function sessionAttrs(raw: string | undefined, hostCount: number): TargetSessionAttrs {
  if (raw === undefined || raw === '') return hostCount > 1 ? 'read-write' : 'any';
  const value = raw.trim().toLowerCase();
  if ((SESSION_ATTRS as readonly string[]).includes(value)) return value as TargetSessionAttrs;
  throw new Error(`target_session_attrs must be one of ${SESSION_ATTRS.join(', ')} (got ${raw}): the broker needs a server that accepts writes`);
}

/** Reads one `host[:port]` or `[ipv6][:port]` entry of a list. */
function hostEntry(entry: string, defaultPort: number): HostAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*))(?::(\d*))?$/.exec(entry.trim());
  const host = match?.[1] ?? match?.[2];
  if (match === null || host === undefined || host === '') throw new Error(`cannot read the host entry "${entry}" (host:port or [ipv6]:port)`);
  return { host: decodeURIComponent(host), port: match[3] === undefined || match[3] === '' ? defaultPort : port(match[3]) };
}

function port(raw: string): number {
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(value) || value < 1 || value > 65535) throw new Error(`port must be an integer between 1 and 65535 (got ${raw})`);
  return value;
}

/** libpq's connect_timeout: whole seconds, at least 1 (libpq treats 1 as 2; we take it as written). */
function seconds(raw: string): number {
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value < 1 || value > 3600) throw new Error(`connect_timeout must be whole seconds between 1 and 3600 (got ${raw})`);
  return value;
}

/** Reads a comma-separated PG_PORT: one port for every host, or one per host. */
export function portList(raw: string | undefined): number[] {
  return raw === undefined || raw.trim() === '' ? [] : raw.split(',').map(port);
}

/** Reads a comma-separated PG_HOST with the ports of PG_PORT (none: 5432; one: for every host; or one per host). */
export function hostList(hosts: string, ports: number[]): HostAddress[] {
  const names = hosts.split(',').map((name) => name.trim());
  if (ports.length > 1 && ports.length !== names.length) throw new Error(`lists ${names.length} hosts but PG_PORT lists ${ports.length} ports (give one port, or one per host)`);
  return names.map((name, index) => {
    if (name === '') throw new Error('has an empty host name in its list');
    return { host: name, port: ports[index] ?? ports[0] ?? DEFAULT_PORT };
  });
}

/** Reads a `postgres://` (or `postgresql://`) URL with one host or a comma-separated list of them. */
export function parseDatabaseUrl(url: string): DatabaseAddress {
  const parts = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/i.exec(url.trim());
  if (parts === null) throw new Error('is not a postgres:// URL (postgres://user:password@host:port[,host:port...]/database?parameters)');
  const [, scheme, userInfo, hostPart, rest] = parts as unknown as [string, string, string | undefined, string, string];
  const query = new URLSearchParams(rest.includes('?') ? rest.slice(rest.indexOf('?') + 1).split('#')[0] : '');
  const defaultPort = query.has('port') ? port(query.get('port')!) : DEFAULT_PORT;
  const hosts = hostPart === '' ? [] : hostPart.split(',').map((entry) => hostEntry(entry, defaultPort));
  // pg-connection-string reads everything but the host list: give it the first host (or the URL as it is).
  const single = hosts.length <= 1 ? url.trim() : `${scheme}${userInfo === undefined ? '' : `${userInfo}@`}${hostPart.split(',')[0]}${rest}`;
  try {
    new URL(single); // node-postgres' parser accepts some malformed URLs silently: the WHATWG parser does not
  } catch {
    throw new Error('is not a valid URL (postgres://user:password@host:port[,host:port...]/database?parameters)');
  }
  const parsed = parseConnectionString(single);
  const timeout = query.get('connect_timeout');
  return {
    hosts: hosts.length > 0 ? hosts : [{ host: parsed.host ?? 'localhost', port: parsed.port ? port(String(parsed.port)) : defaultPort }],
    targetSessionAttrs: sessionAttrs(query.get('target_session_attrs') ?? undefined, hosts.length),
    user: parsed.user,
    password: parsed.password,
    database: parsed.database ?? undefined,
    ssl: parsed.ssl,
    options: parsed.options,
    connectTimeoutSeconds: timeout === null || timeout === '' ? undefined : seconds(timeout),
  };
}

/** `h1:5432, h2:5433` for messages. */
export function describeHosts(hosts: readonly HostAddress[]): string {
  return hosts.map(describeHost).join(', ');
}

/** `host:port` (`[v6]:port`). */
export function describeHost({ host, port: number }: HostAddress): string {
  return `${host.includes(':') ? `[${host}]` : host}:${number}`;
}
