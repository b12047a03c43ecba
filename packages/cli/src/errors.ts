/**
 * Exit codes and the one error type of the CLI (docs/cli.md). Every failure ends as a {@link CliError}: its
 * message is printed as `queenctl: <message>` on stderr and its code is the process exit code. SDK failures are
 * translated once, here, into sentences a person can act on (who could not be reached, which role is missing).
 */
import { QueenError } from '@queen/client';
import { routeFor } from '@queen/client/api';

/** The documented exit codes. */
export const EXIT = { ok: 0, user: 1, server: 2, auth: 3, noop: 4, cancelled: 130 } as const;

/** An exit code of docs/cli.md. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure with the exit code it ends the process with; `silent` errors print nothing (exit 4). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly silent = false,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A bad flag, argument, file, input or time: exit 1. */
export const userError = (message: string): CliError => new CliError(message, EXIT.user);

/** The server failed or refused an operation: exit 2. */
export const serverError = (message: string): CliError => new CliError(message, EXIT.server);

/** A successful no-op (empty pop, nothing pushed, nothing applied): exit 4, prints nothing. */
export const noop = (): CliError => new CliError('', EXIT.noop, true);

/** The role a route needs, from the access level of its entry in the SDK's route table (docs/api.md §3). */
export function requiredRole(method: string, path: string): 'read-only' | 'read-write' | 'admin' {
  const access = routeFor(method, path)?.access;
  if (access === 'ADMIN') return 'admin';
  if (access === 'READ_ONLY' || access === 'PUBLIC') return 'read-only';
  return 'read-write';
}

/** The most specific reason of a network failure: an errno code (ECONNREFUSED) or the innermost message. */
function networkCause(error: Error): string {
  let reason = error.message.replace(/^Network error: /, '');
  for (let e: unknown = error.cause; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && !code.startsWith('UND_')) return code;
    const inner = (e as { errors?: unknown[] }).errors?.find((x): x is NodeJS.ErrnoException => x instanceof Error && typeof (x as NodeJS.ErrnoException).code === 'string');
    if (inner?.code) return inner.code;
    reason = e.message;
  }
  return reason;
}

/** Translates anything thrown into a CliError; `where` names the request for the 401/403 and 404 sentences. */
export function toCliError(error: unknown, where?: { method: string; path: string }): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof QueenError) {
    const url = error.url ?? 'the server';
    switch (error.code) {
      case 'NETWORK':
        return serverError(`cannot reach ${url}: ${networkCause(error)} (is the broker running? check --server, $QUEEN_SERVER or the context)`);
      case 'TIMEOUT':
        return serverError(`${url} did not answer in time (${error.message})`);
      case 'ABORTED':
        return new CliError('cancelled', EXIT.cancelled, true);
      case 'HTTP': {
        const status = error.status ?? 0;
        if (status === 401) return new CliError(`unauthorized (401): ${error.message}; give a token with --token, $QUEEN_TOKEN or 'queenctl login'`, EXIT.auth);
        if (status === 403) {
          const role = where ? requiredRole(where.method, where.path) : 'a higher';
          return new CliError(`forbidden (403): ${error.message}; this command needs the ${role} role`, EXIT.auth);
        }
        if (status === 404) return userError(`not found (404): ${error.message}${where ? ` (${where.method} ${where.path.split('?')[0]})` : ''}`);
        if (status >= 400 && status < 500) return userError(`${error.message} (${status})`);
        return serverError(`server error (${status}): ${error.message}`);
      }
      default:
        return userError(error.message);
    }
  }
  if (error instanceof Error) return serverError(error.message);
  return serverError(String(error));
}
