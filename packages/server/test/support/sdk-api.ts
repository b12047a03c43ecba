/**
 * The SDK's API layer (`@queen/client/api`) pointed at a test broker, for the suites of its users (the CLI and
 * the dashboard): they read and seed the broker through the layer's functions, so no test outside the server
 * spells an `/api/v1` path; where a test checks the wire itself it builds the path with `pathOf` from the route
 * table. One attempt per request (no retry hides a failure from a test); the requester keeps the last answer,
 * so a test can still assert the status or a header of what it called.
 */
import assert from 'node:assert/strict';
import { createTransport, recording, type ApiRequester, type NotFoundBody, type RecordingRequester, type Transport } from '@queen/client/api';

/** A requester on the broker at `url` (a function: read at the first request, after `before` started it). */
export function brokerApi(url: string | (() => string), headers: Record<string, string> = {}): RecordingRequester {
  let transport: Transport | undefined;
  return recording({
    request: (spec) => (transport ??= createTransport({ url: typeof url === 'string' ? url : url(), retryAttempts: 1, headers })).request(spec),
  });
}

/** The `{error}` text of a look-up that missed (200 + `X-Queen-Status: 404`), or undefined when it found. */
export function notFound<T extends object>(body: T | NotFoundBody): string | undefined {
  return 'error' in body && typeof body.error === 'string' ? body.error : undefined;
}

/** The body of a look-up that must find; fails the test with the broker's text when it missed. */
export function found<T extends object>(body: T | NotFoundBody): T {
  const missing = notFound(body);
  if (missing !== undefined) throw new Error(`expected a result, the broker answered: ${missing}`);
  return body as T;
}

/** Runs one call of the layer through `http` and checks the status the broker answered it with (200 unless given). */
export async function expectStatus<T>(http: ApiRequester, call: (http: ApiRequester) => Promise<T>, status = 200): Promise<T> {
  const seen = recording(http);
  const body = await call(seen);
  assert.equal(seen.last?.status, status, JSON.stringify(body));
  return body;
}

/** The `X-Queen-Status` header the broker answered one call of the layer with (null when absent). */
export async function queenStatus(http: ApiRequester, call: (http: ApiRequester) => Promise<unknown>): Promise<string | null> {
  const seen = recording(http);
  await call(seen);
  return seen.last?.headers.get('x-queen-status') ?? null;
}
