/**
 * The classification of PostgreSQL failures, and their mapping to the broker's errors (errors.ts). The connections
 * themselves are opened in connections.ts.
 */
import pg from 'pg';
import { databaseFailure, databaseUnreachable, poolUnavailable, statementTimeout, type DomainError } from '../errors.js';

/** What a store statement runs on: the pool (a connection per statement) or one checked-out connection. */
export type Db = pg.Pool | pg.PoolClient;

/** SQLSTATEs a failover shows on a live connection: read-only transaction, administrator or crash shutdown, cannot connect now. */
const FAILOVER_CODES = new Set(['25006', '57P01', '57P02', '57P03']);

/** True for a SQLSTATE that a failover shows on a live connection. */
export function isFailoverCode(code: string | undefined): boolean {
  return code !== undefined && FAILOVER_CODES.has(code);
}
const CONNECTIVITY_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH']);

/** True when the error means PostgreSQL is unreachable or went away (not a statement failure). */
export function isConnectivityError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code;
  if (code !== undefined && CONNECTIVITY_CODES.has(code)) return true;
  // 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 08xxx connection exceptions, and
  // 25006 read-only transaction: the server was a primary and is a standby now (or is not the primary):
  // what a failover looks like from a live connection, retried on the new primary.
  if (code !== undefined && (code.startsWith('08') || isFailoverCode(code))) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(error.message);
}

/**
 * True when the pool had no free connection within DB_POOL_ACQUIRE_TIMEOUT_MS (pg-pool's wording). The
 * database may be perfectly healthy: this is `busy` (`pool`), never a failover (docs/api.md 9.5 rule 3).
 */
export function isPoolExhausted(error: unknown): boolean {
  return error instanceof Error && error.message === 'timeout exceeded when trying to connect';
}

/** True when PostgreSQL itself is unreachable or went away: a connectivity error other than pool exhaustion. */
export function isDatabaseDown(error: unknown): boolean {
  return isConnectivityError(error) && !isPoolExhausted(error);
}

/** Node's codes of a certificate the client refused (and its own TLS errors). */
const TLS_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|^ERR_TLS|^ERR_SSL/;

/**
 * True when TLS to PostgreSQL failed: a certificate refused, or a server without TLS asked for it. A
 * configuration fault, not an outage: start-up says so at once instead of retrying. An error that lists
 * the failures of several hosts (`causes`) is a TLS failure when all of them are.
 */
export function isTlsFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const causes = (error as { causes?: unknown[] }).causes;
  if (causes !== undefined && causes.length > 0) return causes.every(isTlsFailure);
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && TLS_CODE.test(code)) || /does not support SSL connections/.test(error.message);
}

/** True when a statement was cancelled by statement_timeout. */
export function isStatementTimeout(error: unknown): boolean {
  return error instanceof Error && (error as { code?: string }).code === '57014';
}

/** SQLSTATEs of a transaction that lost a conflict: running it again from the start resolves it. */
const CONFLICT_CODES = new Set(['40001', '40P01']); // serialization failure, deadlock detected

/**
 * SQLSTATEs of other conditions that pass by themselves: lock not available (55P03, lock_timeout). Class 53
 * (insufficient resources: too many connections, out of memory, disk full) is matched by its prefix.
 */
const PASSING_CODES = new Set(['55P03']);

/**
 * The one classification of database failures; every retry decision is made from it.
 * - `down`: PostgreSQL is unreachable, went away or is no longer the primary (the failover buffer takes over pushes).
 * - `busy`: no pooled connection within DB_POOL_ACQUIRE_TIMEOUT_MS; the database may be healthy.
 * - `timeout`: statement_timeout cancelled the statement.
 * - `conflict`: a serialization failure or deadlock; the whole transaction may simply be run again.
 * - `passing`: another condition that passes by itself (lock timeout, resources).
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
 * Maps a database failure to the broker's error: PostgreSQL unreachable (`down`) -> unavailable, no free
 * pooled connection (`busy`) -> busy, cancelled statement -> timeout, any other PostgreSQL error -> internal
 * (its text is logged, never sent: it can quote stored data or the schema). Anything else is returned unchanged.
 */
export function toDomainError(error: unknown): DomainError | unknown {
  if (isStatementTimeout(error)) return statementTimeout();
  if (isConnectivityError(error)) return isPoolExhausted(error) ? poolUnavailable() : databaseUnreachable();
  if (error instanceof pg.DatabaseError) return databaseFailure();
  return error;
}
