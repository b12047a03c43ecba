/**
 * The one error type of the SDK. `code` says what class of failure it was, so callers (and the retry policy)
 * branch on a stable string instead of on message texts; `status`/`body` keep the broker's exact answer.
 */

/** Failure classes of {@link QueenError}. */
export type QueenErrorCode =
  | 'HTTP'
  | 'NETWORK'
  | 'TIMEOUT'
  | 'ABORTED'
  | 'VALIDATION'
  | 'CLOSED'
  | 'PUSH_FAILED'
  | 'TRANSACTION_FAILED'
  | 'DATABASE';

/** Fields a {@link QueenError} can carry besides its code and message. */
export interface QueenErrorDetails {
  status?: number;
  body?: unknown;
  url?: string;
  results?: unknown[];
  cause?: unknown;
}

/** Every error the SDK throws or rejects with. */
export class QueenError extends Error {
  /** The failure class. */
  readonly code: QueenErrorCode;
  /** HTTP status when `code` is `HTTP`. */
  status?: number;
  /** Parsed response body, when there was one. */
  body?: unknown;
  /** Broker URL of the last attempt. */
  url?: string;
  /** Per-item results (`PUSH_FAILED`, `TRANSACTION_FAILED`). */
  results?: unknown[];

  /** Creates an error of class `code`. */
  constructor(code: QueenErrorCode, message: string, details: QueenErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'QueenError';
    this.code = code;
    if (details.status !== undefined) this.status = details.status;
    if (details.body !== undefined) this.body = details.body;
    if (details.url !== undefined) this.url = details.url;
    if (details.results !== undefined) this.results = details.results;
  }
}

/** The message of any thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
