/**
 * queen-mq-proxy's sign-in routes: the proxy that may stand in front of a broker answers them, the broker does
 * not (they are not in openapi.json, so they have no operation and no `ApiRoute`). They are spelled here so that
 * no path lives outside the API layer; the CLI's `login --method password|google` uses them. Plain `fetch`: the
 * answer that matters is a cookie, and the broker's transport (retries, balancing, bearer token) does not apply.
 */

/** The proxy's routes, by name. */
export const proxyRoutes = {
  login: { method: 'POST', path: '/api/login' },
  authConfig: { method: 'GET', path: '/api/auth/config' },
  googleSignIn: { method: 'GET', path: '/api/auth/google' },
} as const;

/** The body of `POST /api/login`. */
export interface ProxyLoginRequest {
  username: string;
  password: string;
}

/** The sign-in methods `GET /api/auth/config` announces (only Google is read). */
export interface ProxyAuthConfig {
  google?: { enabled?: boolean };
}

/** An answer of the proxy: its status and what was read from it (null when the status was not 2xx or it had none). */
export interface ProxyAnswer<T> {
  status: number;
  value: T | null;
}

const url = (server: string, path: string): string => `${server.replace(/\/+$/, '')}${path}`;

/** Signs in with a user and a password: the proxy sets its JWT as the `token` cookie. Network failures reject. */
export async function proxyLogin(server: string, body: ProxyLoginRequest, signal?: AbortSignal): Promise<ProxyAnswer<string>> {
  const { method, path } = proxyRoutes.login;
  const res = await fetch(url(server, path), { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
  const cookie = res.headers.getSetCookie().map((c) => /^token=([^;]+)/.exec(c)?.[1]).find(Boolean);
  return { status: res.status, value: res.ok && cookie !== undefined ? decodeURIComponent(cookie) : null };
}

/** The proxy's sign-in configuration. Network failures reject. */
export async function proxyAuthConfig(server: string, signal?: AbortSignal): Promise<ProxyAnswer<ProxyAuthConfig>> {
  const { method, path } = proxyRoutes.authConfig;
  const res = await fetch(url(server, path), { method, ...(signal ? { signal } : {}) });
  const value = res.ok ? ((await res.json().catch(() => null)) as ProxyAuthConfig | null) : null;
  return { status: res.status, value };
}

/** Where a person signs in with Google through the proxy (a page for a browser, not an API call). */
export const proxyGoogleSignInUrl = (server: string): string => url(server, proxyRoutes.googleSignIn.path);
