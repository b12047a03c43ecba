/**
 * The HTTP layer: the SDK's API layer (`@queen/client/api`, one function per route) over the SDK's transport,
 * same origin, one attempt (an operator's click is not retried behind their back), with the session's bearer
 * token read at each request. A 401 marks the session as needing a token (the shell then prompts); a 403
 * becomes "Insufficient permissions (needs ROLE)"; a 200 with `X-Queen-Status: 404` or `{success:false, error}`
 * is an {@link ApiError} too. Views never spell a path: the "copy as curl" texts are built from the route table.
 */
import { createTransport, pathOf, QueenError, type ApiRequester, type ApiRoute, type HttpResponse, type PathParams, type Transport } from '@queen/client/api';
import { noteAuth, session, type Role } from './session.js';

export * as broker from '@queen/client/api';

/** A failed call: HTTP status (0 for a network failure) and the body's `error` text. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Every request carries the session's current token; every answer's status feeds the session's auth state. */
const sessionFetch: typeof fetch = async (input, init) => {
  const headers = new Headers(init?.headers);
  const token = session.get().token;
  if (token !== null) headers.set('Authorization', `Bearer ${token}`);
  const res = await fetch(input, { ...init, headers });
  noteAuth(res.status);
  return res;
};

let transport: Transport | undefined;

/** The SDK transport to this origin (created on first use: `location` exists only in the browser). */
function sameOrigin(): Transport {
  transport ??= createTransport({ url: location.origin, retryAttempts: 1, timeoutMillis: 120_000, fetch: sessionFetch, handleSignals: false });
  return transport;
}

function wireError(body: unknown): string | null {
  return typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : null;
}

/** The requester the views hand to the API layer's functions; `needs` names the route's level for the 403 text. */
export function http(needs?: Role): ApiRequester {
  return {
    async request(spec): Promise<HttpResponse> {
      let res: HttpResponse;
      try {
        res = await sameOrigin().request(spec);
      } catch (error) {
        if (!(error instanceof QueenError)) throw error;
        if (error.code === 'VALIDATION') throw new ApiError(400, error.message);
        if (error.code !== 'HTTP') throw new ApiError(0, `network error: ${error.message}`);
        const status = error.status ?? 0;
        const text = wireError(error.body);
        if (status === 403) throw new ApiError(403, `${text ?? 'Insufficient permissions'}${needs !== undefined ? ` (needs ${needs})` : ''}`);
        throw new ApiError(status, text ?? `HTTP ${status}`);
      }
      const text = wireError(res.body);
      if (res.headers.get('X-Queen-Status') === '404') throw new ApiError(404, text ?? 'Not found');
      if (typeof res.body === 'object' && res.body !== null && (res.body as { success?: unknown }).success === false && text !== null) throw new ApiError(res.status, text);
      return res;
    },
  };
}

/** Query values a view may hold: blank strings and nulls mean "no filter" and are left out. */
export function filters<T extends Record<string, string | number | boolean | null | undefined>>(params: T): { [K in keyof T]?: Exclude<T[K], null> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') out[key] = value;
  return out as { [K in keyof T]?: Exclude<T[K], null> };
}

/** What a confirmation shows and "copy as curl" prints: the method, path and body of a route. */
export function planned<P extends string>(route: ApiRoute<P>, params: PathParams<P>, query?: Record<string, string | number | boolean | undefined>, body?: unknown): { method: string; path: string; body?: unknown } {
  return { method: route.method, path: pathOf(route, params, query), ...(body === undefined ? {} : { body }) };
}

/** A planned call as a curl command line. */
export const curlOf = (call: { method: string; path: string; body?: unknown }): string => asCurl(call.method, call.path, call.body);

/** The request as a curl command line (with the token as a variable, never its value). */
export function asCurl(method: string, path: string, body?: unknown): string {
  const parts = [`curl -s -X ${method} "${location.origin}${path}"`];
  if (session.get().token !== null) parts.push('-H "Authorization: Bearer $QUEEN_TOKEN"');
  if (body !== undefined) parts.push(`-H 'Content-Type: application/json' -d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`);
  return parts.join(' ');
}

/**
 * A JSON call to another origin (the identity provider's discovery document and token endpoint): no bearer
 * token, the provider's error text (`error_description`, else `error`) on failure. `form` is sent as
 * application/x-www-form-urlencoded.
 */
export async function external<T>(url: string, form?: Record<string, string>): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, form === undefined ? {} : { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  } catch (error) {
    throw new ApiError(0, `cannot reach ${new URL(url, location.href).origin}: ${(error as Error).message}`);
  }
  let json: unknown = undefined;
  try {
    json = await res.json();
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const body = (typeof json === 'object' && json !== null ? json : {}) as { error?: unknown; error_description?: unknown };
    const text = typeof body.error_description === 'string' ? body.error_description : typeof body.error === 'string' ? body.error : `HTTP ${res.status}`;
    throw new ApiError(res.status, text);
  }
  return json as T;
}
