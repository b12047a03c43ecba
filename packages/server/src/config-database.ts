/**
 * The database part of the configuration: where PostgreSQL is (DATABASE_URL or the PG_* variables, one host
 * or several), TLS to it, and how fast a lost primary is noticed. Read by config.ts's loadConfig from the
 * environment it is given.
 */
import fs from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { boolean, ConfigError, integer, text, type Env } from './config-values.js';
import { hostList, parseDatabaseUrl, portList, sessionAttrs, type HostAddress, type TargetSessionAttrs } from './database-address.js';

/** TLS to PostgreSQL: off, or node's TLS options (sslmode of DATABASE_URL, or PG_USE_SSL and its companions). */
export type DatabaseTls = false | TlsOptions;

/** Where a PostgreSQL server is and how to log in: what the store connects with, whoever started the server. */
export interface DatabaseEndpoint {
  hosts: HostAddress[];
  targetSessionAttrs: TargetSessionAttrs;
  user: string;
  password: string;
  database: string;
  tls: DatabaseTls;
  /** Server settings the URL's `options` parameter asked for. */
  options?: string | undefined;
}

/** An external PostgreSQL: one host, or the hosts of a primary and its standbys (database-address.ts). */
export interface ExternalDatabase extends DatabaseEndpoint {
  kind: 'external';
  /** The variable that named the hosts, for messages. */
  source: 'DATABASE_URL' | 'PG_HOST';
}

/** How the broker reaches PostgreSQL: an external server, or an embedded one it starts itself. */
export type DatabaseTarget = ExternalDatabase | { kind: 'embedded'; dataDir: string; port: number | null };

/**
 * Noticing a lost primary: the connect bound per host, the sockets' TCP keepalive, and the broker's own
 * liveness probe (a statement every `probeIntervalMs` on a connection of its own; none answered for
 * `probeTimeoutMs` means the primary is gone).
 */
export interface DatabaseHealth {
  connectTimeoutMs: number;
  keepAliveIdleMs: number;
  probeIntervalMs: number;
  probeTimeoutMs: number;
}

/** Runs a parser of database-address.ts; its error becomes a ConfigError naming the variable. */
function address<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new ConfigError(`${name} ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** PG_USE_SSL, PG_SSL_REJECT_UNAUTHORIZED and PG_SSL_CA_FILE; false when TLS is off. */
function tlsFromVariables(env: Env): DatabaseTls {
  const caFile = text(env, 'PG_SSL_CA_FILE');
  if (!boolean(env, 'PG_USE_SSL', caFile !== undefined)) return false;
  const tls: TlsOptions = { rejectUnauthorized: boolean(env, 'PG_SSL_REJECT_UNAUTHORIZED', true) };
  if (caFile !== undefined) tls.ca = address('PG_SSL_CA_FILE', () => fs.readFileSync(caFile, 'utf8'));
  return tls;
}

/** DATABASE_URL (one host or several) or the PG_* variables (PG_HOST may list several hosts). */
export function externalDatabase(env: Env): ExternalDatabase {
  const url = text(env, 'DATABASE_URL');
  const variablesTls = tlsFromVariables(env);
  if (url !== undefined) {
    const parsed = address('DATABASE_URL', () => parseDatabaseUrl(url));
    const urlTls: DatabaseTls | undefined = parsed.ssl === undefined ? undefined : parsed.ssl === false ? false : typeof parsed.ssl === 'object' ? (parsed.ssl as TlsOptions) : {};
    return {
      kind: 'external',
      source: 'DATABASE_URL',
      hosts: parsed.hosts,
      targetSessionAttrs: parsed.targetSessionAttrs,
      user: parsed.user ?? text(env, 'PG_USER') ?? 'postgres',
      password: parsed.password ?? text(env, 'PG_PASSWORD') ?? 'postgres',
      database: parsed.database ?? text(env, 'PG_DB') ?? 'postgres',
      tls: urlTls ?? variablesTls, // sslmode in the URL wins over PG_USE_SSL
      options: parsed.options,
    };
  }
  const ports = address('PG_PORT', () => portList(text(env, 'PG_PORT')));
  const hosts = address('PG_HOST', () => hostList(text(env, 'PG_HOST') ?? 'localhost', ports));
  return {
    kind: 'external',
    source: 'PG_HOST',
    hosts,
    targetSessionAttrs: address('PG_TARGET_SESSION_ATTRS', () => sessionAttrs(text(env, 'PG_TARGET_SESSION_ATTRS'), hosts.length)),
    user: text(env, 'PG_USER') ?? 'postgres',
    password: text(env, 'PG_PASSWORD') ?? 'postgres',
    database: text(env, 'PG_DB') ?? 'postgres',
    tls: variablesTls,
    options: undefined,
  };
}

/** DB_CONNECT_TIMEOUT_MS (or the URL's connect_timeout), DB_KEEPALIVES_*, DB_TCP_USER_TIMEOUT_MS. */
export function databaseHealth(env: Env): DatabaseHealth {
  const url = text(env, 'DATABASE_URL');
  const urlTimeout = url === undefined ? undefined : address('DATABASE_URL', () => parseDatabaseUrl(url)).connectTimeoutSeconds;
  const intervalSeconds = integer(env, 'DB_KEEPALIVES_INTERVAL', 2, 1, 3600);
  const count = integer(env, 'DB_KEEPALIVES_COUNT', 3, 1, 100);
  return {
    connectTimeoutMs: urlTimeout !== undefined ? urlTimeout * 1000 : integer(env, 'DB_CONNECT_TIMEOUT_MS', 5000, 100, 600_000),
    keepAliveIdleMs: integer(env, 'DB_KEEPALIVES_IDLE', 10, 1, 86_400) * 1000,
    probeIntervalMs: intervalSeconds * 1000,
    probeTimeoutMs: integer(env, 'DB_TCP_USER_TIMEOUT_MS', intervalSeconds * count * 1000, 500, 3_600_000),
  };
}
