/**
 * The broker as the commands see it: the SDK's API layer (`@queen/client/api`, one function per route) run
 * through {@link Api.http}, a requester on `@queen/client`'s transport with the CLI's rules on top (docs/cli.md,
 * §4): only reads are retried (writes are replayed only when no connection was ever opened), a 200 carrying
 * `X-Queen-Status: 404`, an `{error}` body or `{success:false}` is a failure, and every failure becomes a
 * {@link CliError} with a sentence and an exit code. Commands never spell a path.
 */
import type { HttpResponse, Queen, RequestSpec } from '@queen/client';
import type { ApiRequester, NotFoundBody } from '@queen/client/api';
import { CliError, EXIT, toCliError, userError } from './errors.js';

/** Options of one call. */
export interface CallOptions {
  /** Overrides the run's cancellation signal; `null` = not cancellable (acks after Ctrl-C). */
  signal?: AbortSignal | null;
  timeoutMillis?: number;
  longPoll?: boolean;
  /** Leave `{success:false}` bodies to the caller (ack, transaction, seek with their own messages). */
  allowFailure?: boolean;
  /** Leave a 200 with `X-Queen-Status: 404` to the caller (a look-up whose miss is an answer). */
  allowMissing?: boolean;
}

/** The broker API of one command run. */
export class Api {
  constructor(
    readonly queen: Queen,
    readonly server: string,
    /** Cancels every call when the user presses Ctrl-C (SIGINT/SIGTERM). */
    readonly signal?: AbortSignal,
  ) {}

  /** A requester for the API layer's functions, applying `options` and the CLI's rules to every request. */
  http(options: CallOptions = {}): ApiRequester {
    return { request: (spec) => this.send(spec, options) };
  }

  private async send(request: RequestSpec, options: CallOptions): Promise<HttpResponse> {
    const { method, path } = request;
    const spec: RequestSpec = { ...request };
    if (method !== 'GET') spec.replay = 'connect-only';
    const signal = options.signal === undefined ? this.signal : options.signal;
    if (signal) spec.signal = signal;
    if (options.timeoutMillis !== undefined) spec.timeoutMillis = options.timeoutMillis;
    if (options.longPoll) spec.longPoll = true;
    let res: HttpResponse;
    try {
      res = await this.queen.request(spec);
    } catch (error) {
      throw toCliError(error, { method, path });
    }
    const answer = res.body as Record<string, unknown> | null;
    const text = answer !== null && typeof answer === 'object' && !Array.isArray(answer) && typeof answer.error === 'string' ? answer.error : undefined;
    if (res.headers.get('x-queen-status') === '404') {
      if (options.allowMissing) return res;
      throw userError(`${text ?? 'Not found'} (${method} ${path.split('?')[0]})`);
    }
    if (!options.allowFailure && answer !== null && typeof answer === 'object' && !Array.isArray(answer)) {
      if (answer.success === false) throw new CliError(text ?? 'the server refused the operation', EXIT.user);
      if (text !== undefined && answer.success === undefined) throw new CliError(text, EXIT.user);
    }
    return res;
  }
}

/**
 * The answer of a look-up whose miss (`{error}` with `X-Queen-Status: 404`) was not left to the caller: the
 * requester has already turned a miss into a CliError, so this only narrows the type (and guards a broker
 * that would send the body without the header).
 */
export function found<T extends object>(body: T | NotFoundBody): T {
  if ('error' in body && typeof body.error === 'string') throw userError(body.error);
  return body as T;
}
