/**
 * The broker's errors, free of any transport: a kind (what went wrong, as a client must react to it) and the
 * exact text of docs/api.md 1.4/1.5. Every layer below http/ raises these; http/errors.ts alone maps a kind
 * to a status, a body and headers (one table), so core, store, auth, buffer and services never name a status.
 */

/**
 * What went wrong, in the terms a caller reacts to:
 * - `invalid`: the request's input is at fault (sending it again fails again).
 * - `unauthenticated` / `forbidden`: no acceptable credentials / credentials below the operation's level.
 * - `notFound`: the named thing does not exist.   `conflict`: the request contradicts stored state.
 * - `unsuitable`: well-formed, but what it names cannot serve (a database move's target or source that does not qualify).
 * - `tooLarge`: the request exceeds a configured bound.   `cancelled`: its client left before the answer.
 * - `unavailable`: the database (or the buffer standing in for it) cannot take the work now; retry soon.
 * - `busy`: no pooled connection became free in time.   `timeout`: the statement was cancelled by its timeout.
 * - `internal`: a fault of the broker or its configuration (the text never quotes internals).
 */
export type ErrorKind =
  | 'invalid' | 'unauthenticated' | 'forbidden' | 'notFound' | 'conflict' | 'unsuitable' | 'tooLarge' | 'cancelled'
  | 'unavailable' | 'busy' | 'timeout' | 'internal';

/** An error of the broker: its kind, its wire text (`message`) and fields the answer carries besides the text. */
export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    text: string,
    /** Fields of the answer written before `error` (e.g. the streams conflict's `success`, `query_id`, `name`). */
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(text);
  }
}

/**
 * One input value the parsing layer refused (malformed escape, unstorable text, integer out of range) before
 * the route knows its shape; a subclass per reason lets callers tell them apart.
 */
export class InvalidInput extends DomainError {
  constructor(text: string) {
    super('invalid', text);
  }
}

/** The request's input is at fault: `text` is the answer's `error`. */
export const invalid = (text: string): DomainError => new DomainError('invalid', text);

/** The database answers, but no pooled connection became free in time (`pool`). */
export const poolUnavailable = (): DomainError => new DomainError('busy', 'pool');

/** Seconds a client is asked to wait before retrying an `unavailable` (the broker probes the database every second). */
export const RETRY_AFTER_SECONDS = 1;

/** The text while PostgreSQL is unreachable (docs/decisions.md: outage answers). */
export const DATABASE_UNREACHABLE = 'Service Unavailable: the database is unreachable';

/** The text of a push that had to be buffered while the buffer is full (FILE_BUFFER_MAX_BYTES). */
export const BUFFER_FULL = 'Service Unavailable: the failover buffer is full';

/** The push's items had to be buffered and the buffer has no room (none was kept). */
export const bufferFull = (): DomainError => new DomainError('unavailable', BUFFER_FULL);

/** PostgreSQL is unreachable or went away; pushes are still buffered. */
export const databaseUnreachable = (): DomainError => new DomainError('unavailable', DATABASE_UNREACHABLE);

/** A statement cancelled by statement_timeout (the pop routes word it `pop failed`, http/errors.ts). */
export const statementTimeout = (): DomainError => new DomainError('timeout', 'statement timeout');

/** Any other failure PostgreSQL reported: its text is logged, never sent (it can quote stored data or the schema). */
export const databaseFailure = (): DomainError => new DomainError('internal', 'Internal server error');

/** Work whose client left: nobody reads the answer, the server writes nothing on a closed connection. */
export const clientLeft = (): DomainError => new DomainError('cancelled', 'Client closed request');

/** A transaction with more operations (push items + acks) than TRANSACTION_MAX_OPERATIONS allows. */
export const transactionTooLarge = (count: number, max: number): DomainError =>
  new DomainError('tooLarge', `Transaction too large: ${count} operations, at most ${max} (TRANSACTION_MAX_OPERATIONS)`);
