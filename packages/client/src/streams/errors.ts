/**
 * The error type of the streaming SDK. `code` is one of the upstream codes (docs/streams-sdk.md), so code that
 * branches on `err.code` ports unchanged; `status` and `body` keep the broker's answer when there was one.
 */

/** Failure classes of {@link StreamsError}. */
export type StreamsErrorCode =
  | 'STREAMS_CONFIG_HASH_MISMATCH'
  | 'STREAMS_REGISTER_FAILED'
  | 'STREAMS_CYCLE_FAILED'
  | 'STREAMS_STATE_GET_FAILED'
  | 'STREAMS_POP_FAILED'
  | 'STREAMS_HTTP';

/** Every error the streaming runtime reports or rejects with (user exceptions are passed on as they are). */
export class StreamsError extends Error {
  /** The failure class. */
  readonly code: StreamsErrorCode;
  /** HTTP status, when the broker answered. */
  readonly status: number | undefined;
  /** The parsed answer, when there was one. */
  readonly body: unknown;

  /** Creates an error of class `code`. */
  constructor(code: StreamsErrorCode, message: string, details: { status?: number; body?: unknown; cause?: unknown } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'StreamsError';
    this.code = code;
    this.status = details.status;
    this.body = details.body;
  }
}

/** The message of any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
