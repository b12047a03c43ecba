/**
 * The broker's configuration: the only module that reads `process.env` (API.md 10).
 *
 * Integers are decimal; an unset, empty or unparsable value takes the default. Values that parse but fall
 * outside their range stop the start-up with an error naming the variable and the allowed range.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** How the broker reaches PostgreSQL: an external server, or an embedded one it starts itself. */
export type DatabaseTarget =
  | { kind: 'external'; connectionString?: string; host: string; port: number; user: string; password: string; database: string }
  | { kind: 'embedded'; dataDir: string; port: number };

/** Every setting the broker reads, typed and defaulted. */
export interface Config {
  port: number;
  host: string;
  serverId: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  maxPayloadBytes: number;
  dataDir: string;
  database: DatabaseTarget;
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
  /** Upstream tuning variables that were set: accepted, ignored, logged once. */
  ignoredVariables: string[];
  /** QUEEN_ENCRYPTION_KEY as its 32 bytes, or null when unset (API.md 9.6). */
  encryptionKey: Buffer | null;
  /** JWT authentication (API.md 9.7); read by `auth/`. */
  auth: AuthConfig;
  /** The web dashboard served at `/` (DASHBOARD.md 1): DASHBOARD_ENABLED, DASHBOARD_DIR (the built bundle). */
  dashboard: { enabled: boolean; dir: string };
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
  if (raw === undefined || !/^[+-]?\d+$/.test(raw.trim())) return fallback;
  const value = Number(raw.trim());
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got ${raw})`);
  }
  return value;
}

function decimal(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  const value = raw === undefined ? NaN : Number(raw);
  if (!Number.isFinite(value)) return fallback;
  if (value < min || value > max) {
    throw new ConfigError(`${name} must be a number between ${min} and ${max} (got ${raw})`);
  }
  return value;
}

/** A timeout variable that counts as unset unless it is a non-negative integer (API.md 5.2). */
function optionalTimeout(env: Env, name: string): number | undefined {
  const raw = text(env, name);
  return raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : undefined;
}

const JWT_ALGORITHMS = ['HS256', 'RS256', 'EdDSA', 'auto'] as const;

/** The JWT_* variables; JWT_ALGORITHM is case-insensitive and only checked when auth is on. */
function authConfig(env: Env): AuthConfig {
  const enabled = /^(true|1)$/i.test(text(env, 'JWT_ENABLED')?.trim() ?? '');
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

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const DATABASE_VARIABLES = ['DATABASE_URL', 'PG_HOST', 'PG_PORT', 'PG_USER', 'PG_PASSWORD', 'PG_DB'];
const IGNORED_PATTERNS = [/^NUM_WORKERS$/, /^QUEEN_.*_MAX_HOLD_MS$/, /^QUEEN_.*_BATCH_SIZE$/, /^QUEEN_UDP_/,
  /^QUEEN_SYNC_/, /^SIDECAR_/, /^LIBQUEEN_/, /^WEBAPP_ROOT$/];

/** The dashboard bundle built by `npm run build`: packages/dashboard/dist beside this package (src/ or dist/). */
const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));

/** Reads the configuration from an environment (default: the process environment). */
export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(text(env, 'QUEEN_DATA_DIR') ?? './.queen');
  const external = DATABASE_VARIABLES.some((name) => text(env, name) !== undefined);
  const pgPort = integer(env, 'PG_PORT', 5432, 1, 65535);
  const database: DatabaseTarget = external
    ? {
        kind: 'external',
        ...(text(env, 'DATABASE_URL') !== undefined ? { connectionString: text(env, 'DATABASE_URL') } : {}),
        host: text(env, 'PG_HOST') ?? 'localhost',
        port: pgPort,
        user: text(env, 'PG_USER') ?? 'postgres',
        password: text(env, 'PG_PASSWORD') ?? 'postgres',
        database: text(env, 'PG_DB') ?? 'postgres',
      }
    : { kind: 'embedded', dataDir: path.join(dataDir, 'pgdata'), port: integer(env, 'QUEEN_EMBEDDED_PG_PORT', 6633, 1, 65535) };

  const logLevel = (text(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${logLevel})`);
  }
  const subscriptionMode = (text(env, 'DEFAULT_SUBSCRIPTION_MODE') ?? 'all').toLowerCase();

  return {
    port: integer(env, 'PORT', 6632, 0, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    serverId: text(env, 'SERVER_ID') ?? `${os.hostname()}:${process.pid}`,
    logLevel: logLevel as Config['logLevel'],
    maxPayloadBytes: integer(env, 'MAX_PAYLOAD_BYTES', 10_485_760, 1, 2 ** 31),
    dataDir,
    database,
    poolSize: integer(env, 'DB_POOL_SIZE', 20, 2, 10_000),
    poolAcquireTimeoutMs: integer(env, 'DB_POOL_ACQUIRE_TIMEOUT_MS', 5000, 1, 3_600_000),
    statementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT', 30_000, 0, 86_400_000),
    lockTimeoutMs: integer(env, 'DB_LOCK_TIMEOUT', 10_000, 0, 86_400_000),
    pop: {
      defaultTimeoutMs: optionalTimeout(env, 'DEFAULT_TIMEOUT') ?? optionalTimeout(env, 'POP_DEFAULT_TIMEOUT_MS') ?? 30_000,
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
    ignoredVariables: Object.keys(env).filter((name) => IGNORED_PATTERNS.some((p) => p.test(name))).sort(),
    auth: authConfig(env),
    encryptionKey: encryptionKey(env),
    dashboard: {
      enabled: !/^(false|0|off|no)$/i.test(text(env, 'DASHBOARD_ENABLED')?.trim() ?? ''),
      dir: path.resolve(text(env, 'DASHBOARD_DIR') ?? DEFAULT_DASHBOARD_DIR),
    },
  };
}
