/**
 * The connection pool and the classification of PostgreSQL failures into the broker's wire errors.
 *
 * Every session is pinned to UTC (timestamps are rendered by PostgreSQL with a literal Z), and carries the
 * statement and lock timeouts of the configuration. A broker holding QUEEN_ENCRYPTION_KEY also sets
 * `queen.sealing = on` on its sessions: `queen.push_messages` then refuses plaintext for encrypted queues
 * (sql/functions/push_messages.sql).
 */
import pg from 'pg';
import { HttpError, databaseUnreachable, poolUnavailable, statementTimeout } from '../errors.js';

/** Connection settings for the pool. */
export interface ConnectionSettings {
  connectionString?: string;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  poolSize: number;
  acquireTimeoutMs: number;
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  applicationName: string;
  /** The broker holds the encryption key: its sessions ask push_messages to refuse plaintext for encrypted queues. */
  sealing?: boolean;
}

/** Creates the pool. Idle-client errors (a restarted server) are reported, never thrown. */
export function createPool(settings: ConnectionSettings, onIdleError: (error: Error) => void): pg.Pool {
  const pool = new pg.Pool({
    ...(settings.connectionString !== undefined
      ? { connectionString: settings.connectionString }
      : { host: settings.host, port: settings.port, user: settings.user, password: settings.password, database: settings.database }),
    max: settings.poolSize,
    connectionTimeoutMillis: settings.acquireTimeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: settings.statementTimeoutMs || undefined,
    lock_timeout: settings.lockTimeoutMs || undefined,
    application_name: settings.applicationName,
    options: settings.sealing === true ? '-c TimeZone=UTC -c queen.sealing=on' : '-c TimeZone=UTC',
  } as pg.PoolConfig);
  pool.on('error', onIdleError);
  return pool;
}

const CONNECTIVITY_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH']);

/** True when the error means PostgreSQL is unreachable or went away (not a statement failure). */
export function isConnectivityError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code;
  if (code !== undefined && CONNECTIVITY_CODES.has(code)) return true;
  // 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 08xxx connection exceptions.
  if (code !== undefined && (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03')) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(error.message);
}

/**
 * True when the pool had no free connection within DB_POOL_ACQUIRE_TIMEOUT_MS (pg-pool's wording). The
 * database may be perfectly healthy: this is a 500 pool, never a failover (API.md 9.5 rule 3).
 */
export function isPoolExhausted(error: unknown): boolean {
  return error instanceof Error && error.message === 'timeout exceeded when trying to connect';
}

/** True when PostgreSQL itself is unreachable or went away: a connectivity error other than pool exhaustion. */
export function isDatabaseDown(error: unknown): boolean {
  return isConnectivityError(error) && !isPoolExhausted(error);
}

/** True when a statement was cancelled by statement_timeout. */
export function isStatementTimeout(error: unknown): boolean {
  return error instanceof Error && (error as { code?: string }).code === '57014';
}

/** SQLSTATEs of a transaction that lost a conflict: running it again from the start resolves it. */
const CONFLICT_CODES = new Set(['40001', '40P01']); // serialization failure, deadlock detected

/**
 * SQLSTATEs of other conditions that pass by themselves: lock not available (55P03, lock_timeout),
 * read-only transaction (25006: a standby not promoted yet). Class 53 (insufficient resources: too many
 * connections, out of memory, disk full) is matched by its prefix.
 */
const PASSING_CODES = new Set(['55P03', '25006']);

/**
 * The one classification of database failures; every retry decision is made from it.
 * - `down`: PostgreSQL is unreachable or went away (the failover buffer takes over pushes).
 * - `busy`: no pooled connection within DB_POOL_ACQUIRE_TIMEOUT_MS; the database may be healthy.
 * - `timeout`: statement_timeout cancelled the statement.
 * - `conflict`: a serialization failure or deadlock; the whole transaction may simply be run again.
 * - `passing`: another condition that passes by itself (lock timeout, read-only standby, resources).
 * - `procedure`: any other error PostgreSQL reported: the statement (or its input) is at fault.
 * - `other`: not a database failure at all.
 */
export type DatabaseFailure = 'down' | 'busy' | 'timeout' | 'conflict' | 'passing' | 'procedure' | 'other';

/** Classifies a failure (see DatabaseFailure). */
export function classifyDatabaseError(error: unknown): DatabaseFailure {
  if (isConnectivityError(error)) return isPoolExhausted(error) ? 'busy' : 'down';
  if (isStatementTimeout(error)) return 'timeout';
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && CONFLICT_CODES.has(code)) return 'conflict';
  if (typeof code === 'string' && (PASSING_CODES.has(code) || code.startsWith('53'))) return 'passing';
  return error instanceof pg.DatabaseError ? 'procedure' : 'other';
}

/** True when PostgreSQL refused a value itself (SQLSTATE class 22, data exception: bad text, out of range). */
export function isDataException(error: unknown): boolean {
  return error instanceof pg.DatabaseError && typeof error.code === 'string' && error.code.startsWith('22');
}

/**
 * Maps a database failure to the broker's wire error: PostgreSQL unreachable (`down`) -> 503 with
 * Retry-After, no free pooled connection (`busy`) -> 500 pool, cancelled statement ->
 * 500 pop failed / statement timeout, any other PostgreSQL error -> 500 `Internal server error` (its text
 * is logged, never sent: it can quote stored data or the schema). Anything else is returned unchanged.
 */
export function toWireError(error: unknown, onPop: boolean): unknown {
  if (error instanceof HttpError) return error;
  if (isStatementTimeout(error)) return statementTimeout(onPop);
  if (isConnectivityError(error)) return isPoolExhausted(error) ? poolUnavailable() : databaseUnreachable();
  if (error instanceof pg.DatabaseError) return new HttpError(500, { error: 'Internal server error' });
  return error;
}
