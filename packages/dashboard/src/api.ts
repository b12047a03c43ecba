/**
 * The HTTP layer: same-origin fetch with the bearer token, JSON in and out, one error type. A 401 marks the
 * session as needing a token (the shell then prompts); a 403 becomes "Insufficient permissions (needs ROLE)".
 * Every request is recorded so the "copy as curl" buttons can show exactly what was sent.
 */
import { noteAuth, session, type Role } from './session.js';

/** A failed call: HTTP status (0 for a network failure) and the body's `error` text. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** One JSON call. `needs` names the route's level for the 403 text. */
export async function call<T>(method: string, path: string, body?: unknown, needs?: Role): Promise<T> {
  if (DOT_SEGMENT.test(path.split('?')[0]!)) throw new ApiError(400, 'A name "." or ".." cannot be used in a request path (it would address another resource)');
  const headers: Record<string, string> = {};
  const token = session.get().token;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  } catch (error) {
    throw new ApiError(0, `network error: ${(error as Error).message}`);
  }
  noteAuth(res.status);
  const text = await res.text();
  let json: unknown = undefined;
  if (text.length > 0) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  const wireError = typeof json === 'object' && json !== null && typeof (json as { error?: unknown }).error === 'string'
    ? (json as { error: string }).error : null;
  if (!res.ok) {
    if (res.status === 403) throw new ApiError(403, `${wireError ?? 'Insufficient permissions'}${needs !== undefined ? ` (needs ${needs})` : ''}`);
    throw new ApiError(res.status, wireError ?? `HTTP ${res.status}`);
  }
  if (res.headers.get('X-Queen-Status') === '404') throw new ApiError(404, wireError ?? 'Not found');
  if (typeof json === 'object' && json !== null && (json as { success?: unknown }).success === false && wireError !== null) {
    throw new ApiError(res.status, wireError);
  }
  return json as T;
}

/** GET a JSON resource. */
export const get = <T>(path: string, needs?: Role): Promise<T> => call<T>('GET', path, undefined, needs);

/** Builds a path with a query string from the defined, non-empty values. */
export function withQuery(path: string, params: Record<string, string | number | boolean | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') q.set(key, String(value));
  }
  const text = q.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** Percent-encodes one path segment (`call` refuses a `.` or `..` segment: the browser would resolve it). */
export const seg = (value: string): string => encodeURIComponent(value);

/** A segment the browser resolves (`.`, `..`, also as `%2E`): the call would reach another resource. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=[/?#]|$)/i;

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
