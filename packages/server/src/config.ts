/**
 * The broker's configuration: the only module that reads `process.env` (API.md 10).
 *
 * Integers are decimal; an unset or empty value takes the default. A value that does not parse, or parses
 * but falls outside its range, stops the start-up with an error naming the variable and the allowed range.
 * The exceptions are the pop timeout chain (API.md 5.2: a malformed value counts as unset) and an unknown
 * DEFAULT_SUBSCRIPTION_MODE (counts as `all`): `warnings` says so once at start-up.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCorsOrigins } from './http/cors.js';
import fs from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { hostList, parseDatabaseUrl, portList, sessionAttrs, type HostAddress, type TargetSessionAttrs } from './database-address.js';

/** TLS to PostgreSQL: off, or node's TLS options (sslmode of DATABASE_URL, or PG_USE_SSL and its companions). */
export type DatabaseTls = false | TlsOptions;

/** An external PostgreSQL: one host, or the hosts of a primary and its standbys (database-address.ts). */
export interface ExternalDatabase {
  kind: 'external';
  /** The variable that named the hosts, for messages. */
  source: 'DATABASE_URL' | 'PG_HOST';
  hosts: HostAddress[];
  targetSessionAttrs: TargetSessionAttrs;
  user: string;
  password: string;
  database: string;
  tls: DatabaseTls;
  /** Server settings the URL's `options` parameter asked for. */
  options: string | undefined;
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

/** Every setting the broker reads, typed and defaulted. */
export interface Config {
  port: number;
  host: string;
  serverId: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `pretty`: one human line per record; `json`: pino's JSON lines; `auto`: pretty on a terminal, else JSON. */
  logFormat: 'auto' | 'json' | 'pretty';
  maxPayloadBytes: number;
  /** Deepest nesting of a JSON request body (the body object is level 1); deeper bodies are a 400. */
  maxJsonDepth: number;
  /** Slow clients: headers must arrive within headersTimeoutMs, the whole request (headers and body) within requestTimeoutMs. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; corsOrigins: string[] };
  dataDir: string;
  database: DatabaseTarget;
  databaseHealth: DatabaseHealth;
  poolSize: number;
  poolAcquireTimeoutMs: number;
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  pop: {
    defaultTimeoutMs: number;
    defaultBatchSize: number;
    maxBatchSize: number;
    waitInitialIntervalMs: number;
    waitBackoffThreshold: number;
    waitBackoffMultiplier: number;
    waitMaxIntervalMs: number;
    defaultSubscriptionMode: 'all' | 'new';
  };
  /** Monitoring: counter flush interval (ms), heartbeat interval (ms), days of metrics kept. */
  stats: { intervalMs: number; heartbeatIntervalMs: number; metricsRetentionDays: number };
  /** Retention, eviction and partition cleanup (API.md 9.3): intervals (ms), batch sizes (messages), idle days. */
  retention: { intervalMs: number; batchSize: number; partitionCleanupDays: number; evictionIntervalMs: number; evictionBatchSize: number };
  /** The maintenance/failover buffer (API.md 9.5): directory, replay pacing, records per file. */
  buffer: { dir: string; flushMs: number; maxBatch: number; eventsPerFile: number };
  /** Variables that were set but malformed and count as unset (API.md 5.2): logged once at start-up. */
  warnings: string[];
  /** Upstream tuning variables that were set: accepted, ignored, logged once. */
  ignoredVariables: string[];
  /** QUEEN_ENCRYPTION_KEY as its 32 bytes, or null when unset (API.md 9.6). */
  encryptionKey: Buffer | null;
  /** JWT authentication (API.md 9.7); read by `auth/`. */
  auth: AuthConfig;
  /** The web dashboard served at `/` (DASHBOARD.md 1): DASHBOARD_ENABLED, DASHBOARD_DIR (the built bundle). */
  dashboard: { enabled: boolean; dir: string };
  /** Bounds on the work one request may cause (docs/configuration.md "Bounds"). */
  bounds: BoundsConfig;
}

/** Bounds on the work one request may cause: bytes of a listing, operations, pool share, bodies, series. */
export interface BoundsConfig {
  /** Payload bytes one listing page carries (DLQ, traces by name); payloads past it are omitted and flagged. */
  listingMaxBytes: number;
  /** Operations (push items + acks) one transaction may hold; more is a 413. */
  transactionMaxOperations: number;
  /** Connections the administrative reads (listings, status, resources) may hold at once. */
  adminConnections: number;
  /** Bytes of request bodies being read at once; past it a new body is refused with 503 + Retry-After. */
  bodyBytesInFlight: number;
  /** Queues with their own series in /metrics/prometheus; the others share queue="__other__". */
  metricsMaxQueues: number;
}

/** The JWT_* variables (API.md 9.7, 10). Keys and URLs are checked when the broker builds its verifier. */
export interface AuthConfig {
  enabled: boolean;
  algorithm: 'HS256' | 'RS256' | 'EdDSA' | 'auto';
  secret: string | undefined;
  /** PEM text (a `\\n` escape in the variable counts as a newline). */
  publicKey: string | undefined;
  jwksUrl: string | undefined;
  issuer: string | undefined;
  audience: string | undefined;
  clockSkewSeconds: number;
  /** Entries of JWT_SKIP_PATHS, trimmed, empty ones dropped. */
  skipPaths: string[];
  rolesClaim: string;
  rolesArrayClaim: string;
  roles: { admin: string; readWrite: string; readOnly: string };
  jwksRefreshIntervalSeconds: number;
  jwksTimeoutMs: number;
}

/** Thrown when a variable is set to a value outside its allowed range. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = /^[+-]?\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got ${raw})`);
  }
  return value;
}

function decimal(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = raw.trim() === '' ? NaN : Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number between ${min} and ${max} (got ${raw})`);
  }
  return value;
}

/** A timeout variable that counts as unset unless it is a non-negative integer (API.md 5.2); a malformed one is reported in `warnings`. */
function optionalTimeout(env: Env, name: string, warnings: string[]): number | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw.trim()) && Number.isSafeInteger(Number(raw.trim()))) return Number(raw.trim());
  warnings.push(`${name} is not a non-negative integer (got ${raw}): ignored, as if unset`);
  return undefined;
}

/** A boolean variable: true/1 or false/0 (any case); anything else stops the start-up. */
function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.trim().toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false (got ${text(env, name)})`);
}

const JWT_ALGORITHMS = ['HS256', 'RS256', 'EdDSA', 'auto'] as const;

/** The JWT_* variables; JWT_ALGORITHM is case-insensitive and only checked when auth is on. */
function authConfig(env: Env): AuthConfig {
  const enabled = boolean(env, 'JWT_ENABLED', false);
  const rawAlgorithm = text(env, 'JWT_ALGORITHM')?.trim() ?? 'HS256';
  const algorithm = JWT_ALGORITHMS.find((name) => name.toLowerCase() === rawAlgorithm.toLowerCase());
  if (algorithm === undefined && enabled) {
    throw new ConfigError(`JWT_ALGORITHM must be one of ${JWT_ALGORITHMS.join(', ')} (got ${rawAlgorithm})`);
  }
  return {
    enabled,
    algorithm: algorithm ?? 'HS256',
    secret: text(env, 'JWT_SECRET'),
    publicKey: text(env, 'JWT_PUBLIC_KEY')?.replace(/\\n/g, '\n'),
    jwksUrl: text(env, 'JWT_JWKS_URL')?.trim(),
    issuer: text(env, 'JWT_ISSUER'),
    audience: text(env, 'JWT_AUDIENCE'),
    clockSkewSeconds: integer(env, 'JWT_CLOCK_SKEW', 30, 0, 86_400),
    skipPaths: (text(env, 'JWT_SKIP_PATHS') ?? '/health,/metrics/prometheus,/metrics,/').split(',').map((p) => p.trim()).filter((p) => p !== ''),
    rolesClaim: text(env, 'JWT_ROLES_CLAIM') ?? 'role',
    rolesArrayClaim: text(env, 'JWT_ROLES_ARRAY_CLAIM') ?? 'roles',
    roles: {
      admin: text(env, 'JWT_ROLE_ADMIN') ?? 'admin',
      readWrite: text(env, 'JWT_ROLE_READ_WRITE') ?? 'read-write',
      readOnly: text(env, 'JWT_ROLE_READ_ONLY') ?? 'read-only',
    },
    jwksRefreshIntervalSeconds: integer(env, 'JWT_JWKS_REFRESH_INTERVAL', 3600, 1, 31_536_000),
    jwksTimeoutMs: integer(env, 'JWT_JWKS_TIMEOUT_MS', 5000, 1, 600_000),
  };
}

/** QUEEN_ENCRYPTION_KEY: unset or empty means no key; anything but 64 hex characters stops the start-up. */
function encryptionKey(env: Env): Buffer | null {
  const raw = text(env, 'QUEEN_ENCRYPTION_KEY')?.trim();
  if (raw === undefined || raw === '') return null;
  if (!/^[0-9a-fA-F]{64}$/.test(raw)) {
    throw new ConfigError(`QUEEN_ENCRYPTION_KEY must be 64 hexadecimal characters (a 32-byte key; generate one with: openssl rand -hex 32), got ${raw.length} characters`);
  }
  return Buffer.from(raw, 'hex');
}

/** The bounds on one request's work (docs/configuration.md "Bounds"). */
function boundsConfig(env: Env, poolSize: number): BoundsConfig {
  return {
    listingMaxBytes: integer(env, 'LISTING_MAX_BYTES', 8 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    transactionMaxOperations: integer(env, 'TRANSACTION_MAX_OPERATIONS', 10_000, 1, 1_000_000),
    adminConnections: integer(env, 'DB_POOL_ADMIN_CONNECTIONS', Math.max(1, Math.floor(poolSize / 2)), 1, poolSize - 1),
    bodyBytesInFlight: integer(env, 'MAX_BODY_BYTES_IN_FLIGHT', 128 * 1024 * 1024, 1024, 2 ** 40),
    metricsMaxQueues: integer(env, 'METRICS_MAX_QUEUES', 1000, 0, 1_000_000),
  };
}

const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const DATABASE_VARIABLES = ['DATABASE_URL', 'PG_HOST', 'PG_PORT', 'PG_USER', 'PG_PASSWORD', 'PG_DB'];

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
function externalDatabase(env: Env): ExternalDatabase {
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
function databaseHealth(env: Env): DatabaseHealth {
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
const IGNORED_PATTERNS = [/^NUM_WORKERS$/, /^QUEEN_.*_MAX_HOLD_MS$/, /^QUEEN_.*_BATCH_SIZE$/, /^QUEEN_UDP_/,
  /^QUEEN_SYNC_/, /^SIDECAR_/, /^LIBQUEEN_/, /^WEBAPP_ROOT$/];

/** The dashboard bundle built by `npm run build`: packages/dashboard/dist beside this package (src/ or dist/). */
const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));

/** Reads the configuration from an environment (default: the process environment). */
export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(text(env, 'QUEEN_DATA_DIR') ?? './.queen');
  const external = DATABASE_VARIABLES.some((name) => text(env, name) !== undefined);
  const database: DatabaseTarget = external
    ? externalDatabase(env)
    : { kind: 'embedded', dataDir: path.join(dataDir, 'pgdata'), port: text(env, 'QUEEN_EMBEDDED_PG_PORT') === undefined ? null : integer(env, 'QUEEN_EMBEDDED_PG_PORT', 0, 1, 65535) };

  const logLevel = (text(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${logLevel})`);
  }
  const subscriptionMode = (text(env, 'DEFAULT_SUBSCRIPTION_MODE') ?? 'all').toLowerCase();
  const logFormat = (text(env, 'LOG_FORMAT') ?? 'auto').toLowerCase();
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) {
    throw new ConfigError(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')} (got ${logFormat})`);
  }
  const warnings: string[] = [];
  // Like the pop parameter it defaults (API.md 5.2 "other values = all"), an unknown mode counts as `all`: said once.
  if (!['all', 'new', 'new-only'].includes(subscriptionMode)) warnings.push(`DEFAULT_SUBSCRIPTION_MODE is not all, new or new-only (got ${subscriptionMode}): all applies`);
  const poolSize = integer(env, 'DB_POOL_SIZE', 20, 2, 10_000);
  const requestTimeoutMs = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 60_000, 1000, 3_600_000);
  const headersTimeoutMs = integer(env, 'HTTP_HEADERS_TIMEOUT_MS', Math.min(30_000, requestTimeoutMs), 1000, requestTimeoutMs);
  const corsOrigins = parseCorsOrigins(text(env, 'CORS_ORIGINS'));
  if (!Array.isArray(corsOrigins)) throw new ConfigError(`CORS_ORIGINS must be * or comma-separated origins like https://ops.example.com (got ${corsOrigins.invalid})`);

  return {
    port: integer(env, 'PORT', 6632, 0, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    serverId: text(env, 'SERVER_ID') ?? `${os.hostname()}:${process.pid}`,
    logLevel: logLevel as Config['logLevel'],
    logFormat: logFormat as Config['logFormat'],
    maxPayloadBytes: integer(env, 'MAX_PAYLOAD_BYTES', 10_485_760, 1, 2 ** 31),
    maxJsonDepth: integer(env, 'MAX_JSON_DEPTH', 512, 8, 2048),
    http: { headersTimeoutMs, requestTimeoutMs, corsOrigins },
    dataDir,
    database,
    databaseHealth: databaseHealth(env),
    poolSize,
    poolAcquireTimeoutMs: integer(env, 'DB_POOL_ACQUIRE_TIMEOUT_MS', 5000, 1, 3_600_000),
    statementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT', 30_000, 0, 86_400_000),
    lockTimeoutMs: integer(env, 'DB_LOCK_TIMEOUT', 10_000, 0, 86_400_000),
    pop: {
      defaultTimeoutMs: optionalTimeout(env, 'DEFAULT_TIMEOUT', warnings) ?? optionalTimeout(env, 'POP_DEFAULT_TIMEOUT_MS', warnings) ?? 30_000,
      defaultBatchSize: integer(env, 'DEFAULT_BATCH_SIZE', 1, 1, 1_000_000),
      maxBatchSize: integer(env, 'POP_MAX_BATCH_SIZE', 10_000, 1, 1_000_000),
      waitInitialIntervalMs: integer(env, 'POP_WAIT_INITIAL_INTERVAL_MS', 100, 1, 600_000),
      waitBackoffThreshold: integer(env, 'POP_WAIT_BACKOFF_THRESHOLD', 3, 0, 1_000_000),
      waitBackoffMultiplier: decimal(env, 'POP_WAIT_BACKOFF_MULTIPLIER', 2.0, 1, 1000),
      waitMaxIntervalMs: integer(env, 'POP_WAIT_MAX_INTERVAL_MS', 1000, 1, 600_000),
      defaultSubscriptionMode: subscriptionMode === 'new' || subscriptionMode === 'new-only' ? 'new' : 'all',
    },
    stats: {
      intervalMs: integer(env, 'STATS_INTERVAL_MS', 10_000, 100, 3_600_000),
      heartbeatIntervalMs: integer(env, 'QUEEN_HEARTBEAT_INTERVAL_MS', 5000, 100, 60_000),
      metricsRetentionDays: integer(env, 'METRICS_RETENTION_DAYS', 90, 1, 36_500),
    },
    retention: {
      intervalMs: integer(env, 'RETENTION_INTERVAL', 300_000, 10, 2_147_483_647),
      batchSize: integer(env, 'RETENTION_BATCH_SIZE', 1000, 1, 1_000_000),
      partitionCleanupDays: integer(env, 'PARTITION_CLEANUP_DAYS', 30, 1, 36_500),
      evictionIntervalMs: integer(env, 'EVICTION_INTERVAL', 60_000, 10, 2_147_483_647),
      evictionBatchSize: integer(env, 'EVICTION_BATCH_SIZE', 1000, 1, 1_000_000),
    },
    buffer: {
      dir: path.resolve(text(env, 'FILE_BUFFER_DIR') ?? path.join(dataDir, 'buffer')),
      flushMs: integer(env, 'FILE_BUFFER_FLUSH_MS', 100, 1, 3_600_000),
      maxBatch: integer(env, 'FILE_BUFFER_MAX_BATCH', 100, 1, 100_000),
      eventsPerFile: integer(env, 'FILE_BUFFER_EVENTS_PER_FILE', 10_000, 1, 100_000_000),
    },
    warnings,
    ignoredVariables: Object.keys(env).filter((name) => IGNORED_PATTERNS.some((p) => p.test(name))).sort(),
    auth: authConfig(env),
    encryptionKey: encryptionKey(env),
    dashboard: {
      enabled: !/^(false|0|off|no)$/i.test(text(env, 'DASHBOARD_ENABLED')?.trim() ?? ''),
      dir: path.resolve(text(env, 'DASHBOARD_DIR') ?? DEFAULT_DASHBOARD_DIR),
    },
    bounds: boundsConfig(env, poolSize),
  };
}
