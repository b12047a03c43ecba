/**
 * The broker's configuration: the only module that reads `process.env` (docs/api.md 10).
 *
 * Integers are decimal; an unset or empty value takes the default. A value that does not parse, or parses
 * but falls outside its range, stops the start-up with an error naming the variable and the allowed range.
 * The exceptions are the pop timeout chain (docs/api.md 5.2: a malformed value counts as unset) and an unknown
 * DEFAULT_SUBSCRIPTION_MODE (counts as `all`): `warnings` says so once at start-up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseHealth, externalDatabase, type DatabaseHealth, type DatabaseTarget } from './config-database.js';
import { tracingConfig, type TracingConfig } from './config-tracing.js';
import { boolean, ConfigError, decimal, integer, optionalTimeout, parseCorsOrigins, text, type Env } from './config-values.js';

export { ConfigError } from './config-values.js';
export type { DatabaseEndpoint, DatabaseHealth, DatabaseTarget, DatabaseTls, ExternalDatabase } from './config-database.js';
export type { TracingConfig, TracingSampler } from './config-tracing.js';

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
  /**
   * QUEEN_CITUS: `auto` distributes the schema and routes per partition when the database is a Citus coordinator
   * with workers (docs/scale-out.md section 8); `on` requires one; `off` treats any database as one PostgreSQL.
   */
  citus: 'auto' | 'on' | 'off';
  poolSize: number;
  poolAcquireTimeoutMs: number;
  /** How long start-up keeps retrying a database it cannot reach before it gives up (DB_STARTUP_WAIT_MS; Infinity: no limit). */
  startupWaitMs: number;
  /** How long the switch of a database move may take before it is rolled back (MIGRATION_SWITCH_TIMEOUT_MS). */
  migrationSwitchTimeoutMs: number;
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
  /** Retention, eviction and partition cleanup (docs/api.md 9.3): intervals (ms), batch sizes (messages), idle days. */
  retention: { intervalMs: number; batchSize: number; partitionCleanupDays: number; evictionIntervalMs: number; evictionBatchSize: number };
  /** The maintenance/failover buffer (docs/api.md 9.5): directory, replay pacing, records per file. */
  buffer: {
    dir: string; flushMs: number; maxBatch: number; eventsPerFile: number;
    /** Bytes the buffer's files may take (FILE_BUFFER_MAX_BYTES); null: 90 % of the volume's free space at start-up. */
    maxBytes: number | null;
  };
  /** OpenTelemetry span export (docs/monitoring.md "Tracing"); null when off: the SDK is then never loaded. */
  tracing: TracingConfig | null;
  /** Variables that were set but malformed and count as unset (docs/api.md 5.2): logged once at start-up. */
  warnings: string[];
  /** Upstream tuning variables that were set: accepted, ignored, logged once. */
  ignoredVariables: string[];
  /** QUEEN_ENCRYPTION_KEY as its 32 bytes, or null when unset (docs/api.md 9.6). */
  encryptionKey: Buffer | null;
  /** JWT authentication (docs/api.md 9.7); read by `auth/`. */
  auth: AuthConfig;
  /** The web dashboard served at `/` (docs/dashboard.md): DASHBOARD_ENABLED, DASHBOARD_DIR (the built bundle). */
  dashboard: { enabled: boolean; dir: string; oidc: DashboardOidc | null };
  /** Bounds on the work one request may cause (docs/configuration.md "Bounds"). */
  bounds: BoundsConfig;
  /**
   * Worker processes sharing the port (QUEEN_WORKERS; docs/configuration.md "Workers"): 1 runs one process
   * with no primary. Default: the CPUs the host or its cgroup limit allows.
   */
  workers: number;
  /** Set in a worker process by its primary (boot/workers.ts): its slot, and the embedded PostgreSQL's port. */
  worker: WorkerRole | null;
}

/** What a worker process is told by its primary: its slot (0-based, kept by a replacement) and where the embedded PostgreSQL listens. */
export interface WorkerRole {
  index: number;
  /** The port of the embedded PostgreSQL the primary started, or null with an external database. */
  embeddedPort: number | null;
}

/** The CPUs this process may use: the cgroup v2 quota (`/sys/fs/cgroup/cpu.max`, rounded up) when it is lower than the host's. */
export function availableCpus(cpuMax = readCpuMax()): number {
  const host = os.availableParallelism();
  const [quota, period] = (cpuMax ?? '').trim().split(/\s+/);
  if (quota === undefined || quota === 'max' || period === undefined) return host;
  const cpus = Math.ceil(Number(quota) / Number(period));
  return Number.isFinite(cpus) && cpus >= 1 ? Math.min(host, cpus) : host;
}

function readCpuMax(): string | null {
  try {
    return fs.readFileSync('/sys/fs/cgroup/cpu.max', 'utf8');
  } catch {
    return null;
  }
}

/** QUEEN_WORKER_INDEX and QUEEN_WORKER_PG_PORT: set by the primary for its workers, never by an operator. */
function workerRole(env: Env): WorkerRole | null {
  if (text(env, 'QUEEN_WORKER_INDEX') === undefined) return null;
  const port = integer(env, 'QUEEN_WORKER_PG_PORT', 0, 0, 65535);
  return { index: integer(env, 'QUEEN_WORKER_INDEX', 0, 0, 1024), embeddedPort: port === 0 ? null : port };
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

/**
 * The dashboard's OpenID Connect sign-in (DASHBOARD_OIDC_*): the provider's issuer (its discovery document is
 * `<issuer>/.well-known/openid-configuration`), the public client registered for the dashboard, the scopes
 * asked for, and an optional `audience` parameter (providers that issue JWT access tokens only for one).
 * Served to the browser as `/dashboard-config.json`; null when DASHBOARD_OIDC_ISSUER is unset.
 */
export interface DashboardOidc {
  issuer: string;
  clientId: string;
  scopes: string;
  audience: string | null;
}

function dashboardOidc(env: Env): DashboardOidc | null {
  const issuer = text(env, 'DASHBOARD_OIDC_ISSUER')?.trim() ?? '';
  if (issuer === '') return null;
  if (!/^https?:\/\/[^\s]+$/.test(issuer)) throw new ConfigError(`DASHBOARD_OIDC_ISSUER must be an http(s) URL (got ${issuer})`);
  const clientId = text(env, 'DASHBOARD_OIDC_CLIENT_ID')?.trim() ?? '';
  if (clientId === '') throw new ConfigError('DASHBOARD_OIDC_ISSUER is set but DASHBOARD_OIDC_CLIENT_ID is not: name the client registered for the dashboard');
  return {
    issuer: issuer.replace(/\/+$/, ''),
    clientId,
    scopes: text(env, 'DASHBOARD_OIDC_SCOPES')?.trim() || 'openid profile email',
    audience: text(env, 'DASHBOARD_OIDC_AUDIENCE')?.trim() || null,
  };
}

/** The JWT_* variables (docs/api.md 9.7, 10). Keys and URLs are checked when the broker builds its verifier. */
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

const JWT_ALGORITHMS = ['HS256', 'RS256', 'EdDSA', 'auto'] as const;
/** Listen addresses that only this host reaches. */
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost', '[::1]']);

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
const CITUS_MODES = ['auto', 'on', 'off'] as const;
const DATABASE_VARIABLES = ['DATABASE_URL', 'PG_HOST', 'PG_PORT', 'PG_USER', 'PG_PASSWORD', 'PG_DB'];

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
  const citus = (text(env, 'QUEEN_CITUS') ?? 'auto').trim().toLowerCase();
  if (!(CITUS_MODES as readonly string[]).includes(citus)) throw new ConfigError(`QUEEN_CITUS must be one of ${CITUS_MODES.join(', ')} (got ${citus})`);
  const warnings: string[] = [];
  // Like the pop parameter it defaults (docs/api.md 5.2 "other values = all"), an unknown mode counts as `all`: said once.
  if (!['all', 'new', 'new-only'].includes(subscriptionMode)) warnings.push(`DEFAULT_SUBSCRIPTION_MODE is not all, new or new-only (got ${subscriptionMode}): all applies`);
  const poolSize = integer(env, 'DB_POOL_SIZE', 20, 2, 10_000);
  const requestTimeoutMs = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 60_000, 1000, 3_600_000);
  const headersTimeoutMs = integer(env, 'HTTP_HEADERS_TIMEOUT_MS', Math.min(30_000, requestTimeoutMs), 1000, requestTimeoutMs);
  const corsOrigins = parseCorsOrigins(text(env, 'CORS_ORIGINS'));
  if (!Array.isArray(corsOrigins)) throw new ConfigError(`CORS_ORIGINS must be * or comma-separated origins like https://ops.example.com (got ${corsOrigins.invalid})`);

  const host = text(env, 'HOST') ?? '0.0.0.0';
  const port = integer(env, 'PORT', 6632, 0, 65535);
  const auth = authConfig(env);
  // Fine on a laptop; on a network anyone who reaches the port can read, push and delete (docs/deployment.md).
  if (!auth.enabled && !LOOPBACK.has(host.trim().toLowerCase())) {
    warnings.push(`authentication is off (JWT_ENABLED) and the broker listens on ${host}, beyond this host: anyone who reaches port ${port} can read, push and delete messages and queues. Before production see docs/deployment.md "Before production"; on a laptop set HOST=127.0.0.1`);
  }

  const worker = workerRole(env);
  const serverId = text(env, 'SERVER_ID');
  return {
    port,
    host,
    // A worker's own id (its buffer directory and heartbeat row): a set SERVER_ID gets the slot, kept by a replacement.
    serverId: serverId === undefined ? `${os.hostname()}:${process.pid}` : worker === null ? serverId : `${serverId}-w${worker.index}`,
    logLevel: logLevel as Config['logLevel'],
    logFormat: logFormat as Config['logFormat'],
    maxPayloadBytes: integer(env, 'MAX_PAYLOAD_BYTES', 10_485_760, 1, 2 ** 31),
    maxJsonDepth: integer(env, 'MAX_JSON_DEPTH', 512, 8, 2048),
    http: { headersTimeoutMs, requestTimeoutMs, corsOrigins },
    dataDir,
    database,
    databaseHealth: databaseHealth(env),
    citus: citus as Config['citus'],
    poolSize,
    poolAcquireTimeoutMs: integer(env, 'DB_POOL_ACQUIRE_TIMEOUT_MS', 5000, 1, 3_600_000),
    // No limit with an external PostgreSQL: the broker buffers pushes while it waits (docs/api.md 9.8 rule 3).
    migrationSwitchTimeoutMs: integer(env, 'MIGRATION_SWITCH_TIMEOUT_MS', 30_000, 1000, 3_600_000),
    startupWaitMs: integer(env, 'DB_STARTUP_WAIT_MS', database.kind === 'embedded' ? 60_000 : Number.POSITIVE_INFINITY, 0, 86_400_000),
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
      maxBytes: integer(env, 'FILE_BUFFER_MAX_BYTES', 0, 0, Number.MAX_SAFE_INTEGER) || null,
    },
    tracing: tracingConfig(env),
    warnings,
    ignoredVariables: Object.keys(env).filter((name) => IGNORED_PATTERNS.some((p) => p.test(name))).sort(),
    auth,
    encryptionKey: encryptionKey(env),
    dashboard: {
      enabled: !/^(false|0|off|no)$/i.test(text(env, 'DASHBOARD_ENABLED')?.trim() ?? ''),
      dir: path.resolve(text(env, 'DASHBOARD_DIR') ?? DEFAULT_DASHBOARD_DIR),
      oidc: dashboardOidc(env),
    },
    bounds: boundsConfig(env, poolSize),
    workers: integer(env, 'QUEEN_WORKERS', availableCpus(), 1, 1024),
    worker,
  };
}
