/**
 * The broker as the commands see it: `get`/`post`/`del` on `@queen/client`'s transport, with the CLI's rules on
 * top (CLI.md §1, §4): only reads are retried (writes are replayed only when no connection was ever opened), a
 * 200 carrying `X-Queen-Status: 404`, an `{error}` body or `{success:false}` is a failure, and every failure
 * becomes a {@link CliError} with a sentence and an exit code.
 */
import type { HttpResponse, Queen, RequestSpec } from '@queen/client';
import { CliError, EXIT, toCliError, userError } from './errors.js';

/** Query parameters; undefined values are left out. */
export type Params = Record<string, string | number | boolean | undefined>;

/** Builds `?a=1` from the defined entries. */
export function query(params: Params = {}): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) search.append(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Percent-encodes a path segment (the SDK refuses a `.` or `..` segment before sending). */
export const seg = (name: string): string => encodeURIComponent(name);

/** Options of one call. */
export interface CallOptions {
  /** Overrides the run's cancellation signal; `null` = not cancellable (acks after Ctrl-C). */
  signal?: AbortSignal | null;
  timeoutMillis?: number;
  longPoll?: boolean;
  /** Leave `{success:false}` bodies to the caller (ack, transaction, seek with their own messages). */
  allowFailure?: boolean;
}

/** The broker API of one command run. */
export class Api {
  constructor(
    readonly queen: Queen,
    readonly server: string,
    /** Cancels every call when the user presses Ctrl-C (SIGINT/SIGTERM). */
    readonly signal?: AbortSignal,
  ) {}

  /** A raw request: the SDK's answer, or a CliError. */
  async raw(method: RequestSpec['method'], path: string, body?: unknown, options: CallOptions = {}): Promise<HttpResponse> {
    const spec: RequestSpec = { method, path, ...(body === undefined ? {} : { body }) };
    if (method !== 'GET') spec.replay = 'connect-only';
    const signal = options.signal === undefined ? this.signal : options.signal;
    if (signal) spec.signal = signal;
    if (options.timeoutMillis !== undefined) spec.timeoutMillis = options.timeoutMillis;
    if (options.longPoll) spec.longPoll = true;
    try {
      return await this.queen.request(spec);
    } catch (error) {
      throw toCliError(error, { method, path });
    }
  }

  /** A request whose body is checked for the failure shapes of CLI.md §4. */
  async call(method: RequestSpec['method'], path: string, body?: unknown, options: CallOptions = {}): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- broker JSON (API.md)
    const res = await this.raw(method, path, body, options);
    const answer = res.body as Record<string, unknown> | null;
    const text = answer !== null && typeof answer === 'object' && !Array.isArray(answer) && typeof answer.error === 'string' ? answer.error : undefined;
    if (res.headers.get('x-queen-status') === '404') throw userError(`${text ?? 'Not found'} (${method} ${path.split('?')[0]})`);
    if (!options.allowFailure && answer !== null && typeof answer === 'object' && !Array.isArray(answer)) {
      if (answer.success === false) throw new CliError(text ?? 'the server refused the operation', EXIT.user);
      if (text !== undefined && answer.success === undefined) throw new CliError(text, EXIT.user);
    }
    return res.body;
  }

  /** GET with query parameters. */
  get(path: string, params?: Params, options?: CallOptions): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- broker JSON
    return this.call('GET', `${path}${query(params)}`, undefined, options);
  }

  /** POST a JSON body. */
  post(path: string, body: unknown = {}, options?: CallOptions): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- broker JSON
    return this.call('POST', path, body, options);
  }

  /** DELETE with query parameters. */
  del(path: string, params?: Params, options?: CallOptions): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- broker JSON
    return this.call('DELETE', `${path}${query(params)}`, undefined, options);
  }
}
