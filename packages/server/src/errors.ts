/**
 * The one error type of the broker: an HTTP status plus the exact wire body (docs/api.md 1.4, 1.5).
 * Core code throws these; the HTTP layer writes them verbatim.
 */

/** An error that knows its HTTP status and its JSON body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.error === 'string' ? body.error : `HTTP ${status}`);
  }
}

/**
 * A 400 about one input value (malformed escape, unstorable text, integer out of range) raised by the
 * parsing layer before the route knows its shape: the server answers it as `{"error":text}`, or in the pop
 * shape on the pop routes.
 */
export class InvalidInput extends HttpError {
  constructor(text: string) {
    super(400, { error: text });
  }
}

/** 400 `{"error": text}`. */
export const badRequest = (text: string): HttpError => new HttpError(400, { error: text });

/** 400 in the pop routes' shape: `{"success":false,"error":text,"messages":[]}`. */
export const popBadRequest = (text: string): HttpError =>
  new HttpError(400, { success: false, error: text, messages: [] });

/** 500 `{"error":"pool"}`: the database answers, but no pooled connection became free in time. */
export const poolUnavailable = (): HttpError => new HttpError(500, { error: 'pool' });

/** Seconds a client is asked to wait before retrying a 503 (the broker probes the database every second). */
export const RETRY_AFTER_SECONDS = 1;

/** The 503 text while PostgreSQL is unreachable (docs/decisions.md: outage answers). */
export const DATABASE_UNREACHABLE = 'Service Unavailable: the database is unreachable';

/** The 503 text of a push that had to be buffered while the buffer is full (FILE_BUFFER_MAX_BYTES). */
export const BUFFER_FULL = 'Service Unavailable: the failover buffer is full';

/** 503 with `Retry-After`: the push's items had to be buffered and the buffer has no room (none was kept). */
export const bufferFull = (): HttpError => new HttpError(503, { error: BUFFER_FULL }, { 'Retry-After': String(RETRY_AFTER_SECONDS) });

/** 503 with `Retry-After`: PostgreSQL is unreachable or went away; pushes are still buffered. */
export const databaseUnreachable = (): HttpError =>
  new HttpError(503, { error: DATABASE_UNREACHABLE }, { 'Retry-After': String(RETRY_AFTER_SECONDS) });

/** 500 for a cancelled statement; the pop routes say `pop failed`, everything else `statement timeout`. */
export const statementTimeout = (onPop: boolean): HttpError =>
  new HttpError(500, { error: onPop ? 'pop failed' : 'statement timeout' });

/** 200 with `X-Queen-Status: 404`: an admin look-up that missed (docs/api.md 1.4). */
export const adminNotFound = (body: Record<string, unknown>): HttpError =>
  new HttpError(200, body, { 'X-Queen-Status': '404' });

/** 413: a transaction with more operations (push items + acks) than TRANSACTION_MAX_OPERATIONS allows. */
export const transactionTooLarge = (count: number, max: number): HttpError =>
  new HttpError(413, { error: `Transaction too large: ${count} operations, at most ${max} (TRANSACTION_MAX_OPERATIONS)` });

/** The error of work whose client left (499): nobody reads it, the server writes nothing on a closed response. */
export const clientLeft = (): HttpError => new HttpError(499, { error: 'Client closed request' });
