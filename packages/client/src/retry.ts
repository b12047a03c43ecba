/**
 * The retry policy (docs/client.md) as pure functions, so the transport only asks "may I try again, and when".
 * Retriable: network errors, timeouts, 5xx and 429; every other 4xx is the caller's problem and is final.
 */
import { QueenError } from './errors.js';

/** Longest Retry-After honoured on a 429 or 503. */
export const MAX_RETRY_AFTER_MILLIS = 30_000;

/** True when another attempt may succeed. */
export function isRetriable(error: unknown): boolean {
  if (!(error instanceof QueenError)) return false;
  if (error.code === 'NETWORK' || error.code === 'TIMEOUT') return true;
  return error.code === 'HTTP' && error.status !== undefined && (error.status >= 500 || error.status === 429);
}

/** True for a caller mistake that no retry can fix: a VALIDATION error, or an HTTP 4xx other than 429. */
export function isCallerError(error: unknown): boolean {
  if (!(error instanceof QueenError)) return false;
  if (error.code === 'VALIDATION') return true;
  return error.code === 'HTTP' && error.status !== undefined && error.status < 500 && error.status !== 429;
}

/** Delay before attempt `attempt + 1` (attempt counts from 1): base x 2^(attempt-1). */
export function backoffMillis(baseMillis: number, attempt: number): number {
  return baseMillis * 2 ** (attempt - 1);
}

/** Milliseconds of a Retry-After header (seconds or HTTP date), capped at 30 s; undefined when absent. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  const millis = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(millis)) return undefined;
  return Math.min(Math.max(0, millis), MAX_RETRY_AFTER_MILLIS);
}

const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * True when a fetch failure proves that no connection was opened, so the request cannot have reached a broker
 * (the only case in which a transaction may be replayed). Browsers do not say; they get `false`.
 */
export function neverConnected(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECT_CODES.has(code)) return true;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => neverConnected(e))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Resolves after `millis`, or rejects with ABORTED when `signal` fires first. */
export function sleep(millis: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new QueenError('ABORTED', 'Request aborted'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new QueenError('ABORTED', 'Request aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, millis);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
