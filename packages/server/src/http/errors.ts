/**
 * The one mapping from the broker's errors (errors.ts: a kind and a text) to HTTP answers: status, body and
 * headers (docs/api.md 1.4, 1.5). Answers that exist only on the wire (a 200 flagged 404, the body reader's
 * 413/503) are HttpErrors built here and in body.ts.
 */
import { RETRY_AFTER_SECONDS, type DomainError, type ErrorKind } from '../errors.js';

/** An answer known only to the HTTP layer: its status, its JSON body and its headers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.error === 'string' ? body.error : `HTTP ${status}`);
  }
}

/** The status of each kind; 499 is never written (its client left), only counted. */
const STATUS: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  unsuitable: 422,
  tooLarge: 413,
  cancelled: 499,
  busy: 500,
  timeout: 500,
  internal: 500,
  unavailable: 503,
};

/**
 * The answer to a broker error. On the pop routes (`popShape`) a refused input has the pop shape
 * `{"success":false,"error":...,"messages":[]}` and a cancelled statement says `pop failed`; an
 * `unavailable` asks the client to retry after RETRY_AFTER_SECONDS.
 */
export function toHttpError(error: DomainError, popShape = false): HttpError {
  const status = STATUS[error.kind];
  if (popShape && error.kind === 'invalid') return new HttpError(status, { success: false, error: error.message, messages: [] });
  const text = popShape && error.kind === 'timeout' ? 'pop failed' : error.message;
  const headers: Record<string, string> = error.kind === 'unavailable' ? { 'Retry-After': String(RETRY_AFTER_SECONDS) } : {};
  return new HttpError(status, { ...error.details, error: text }, headers);
}

/** 200 with `X-Queen-Status: 404`: an admin look-up that missed (docs/api.md 1.4). */
export const adminNotFound = (body: Record<string, unknown>): HttpError =>
  new HttpError(200, body, { 'X-Queen-Status': '404' });
