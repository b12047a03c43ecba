/**
 * The session: the bearer token (kept in sessionStorage), the role it grants, and whether the broker asks for
 * one at all. The role gates buttons only; the broker still decides (a 403 shows "needs ADMIN").
 */
import { createStore } from './store.js';

/** Access levels of the API (docs/api.md 3), lowest first. */
export type Role = 'READ_ONLY' | 'READ_WRITE' | 'ADMIN';

const RANK: Record<Role, number> = { READ_ONLY: 0, READ_WRITE: 1, ADMIN: 2 };
const TOKEN_KEY = 'queen.dashboard.token';
const SOURCE_KEY = 'queen.dashboard.token-source';

/** Where the token came from: pasted by hand, or the OpenID Connect sign-in (oidc.ts). */
export type TokenSource = 'pasted' | 'oidc';

/** What the UI knows about the caller. */
export interface Session {
  /** The pasted token, or null. */
  token: string | null;
  /** `unknown` until the first API answer; `open` when the broker needs no token; `needed` after a 401. */
  auth: 'unknown' | 'open' | 'token' | 'needed';
  /** The role of the token (ADMIN when auth is off). */
  role: Role;
  /** Who the token names, for the sidebar: `name`, `preferred_username`, `email`, else `sub`. */
  subject: string | null;
  source: TokenSource;
  /** Why the prompt is shown again (e.g. the sign-in expired), or null. */
  notice: string | null;
}

function readStored(key: string): string | null {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Decodes a JWT's payload without verifying it (the broker verifies; this only labels the UI). */
export function tokenClaims(token: string): Record<string, unknown> | null {
  const part = token.split('.')[1];
  if (part === undefined) return null;
  try {
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    const claims: unknown = JSON.parse(json);
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The highest role named by the default claims (`role`, `roles`) with the default role names. */
export function tokenRole(token: string): Role {
  const claims = tokenClaims(token) ?? {};
  const names: unknown[] = [claims.role, ...(Array.isArray(claims.roles) ? claims.roles : [])];
  const roles = names.filter((n): n is string => typeof n === 'string').map((n) => n.toLowerCase());
  if (roles.includes('admin')) return 'ADMIN';
  if (roles.includes('read-write') || roles.includes('read_write')) return 'READ_WRITE';
  return 'READ_ONLY';
}

/** The session store. */
export const session = createStore<Session>(sessionFor(readStored(TOKEN_KEY), 'unknown', readStored(SOURCE_KEY) === 'oidc' ? 'oidc' : 'pasted', null));

function sessionFor(token: string | null, auth: Session['auth'], source: TokenSource, notice: string | null): Session {
  if (token === null) return { token: null, auth, role: 'ADMIN', subject: null, source, notice };
  const claims = tokenClaims(token) ?? {};
  const name = [claims.name, claims.preferred_username, claims.email, claims.sub].find((v): v is string => typeof v === 'string' && v !== '');
  return { token, auth: auth === 'unknown' ? 'unknown' : 'token', role: tokenRole(token), subject: name ?? null, source, notice };
}

/**
 * Stores a token (or clears it with null, which shows the prompt, with `notice` when given). Kept in this
 * tab's sessionStorage (docs/decisions.md "Dashboard sign-in").
 */
export function setToken(token: string | null, source: TokenSource = 'pasted', notice: string | null = null): void {
  try {
    if (token === null) {
      sessionStorage.removeItem(TOKEN_KEY);
      sessionStorage.removeItem(SOURCE_KEY);
    } else {
      sessionStorage.setItem(TOKEN_KEY, token);
      sessionStorage.setItem(SOURCE_KEY, source);
    }
  } catch {
    // storage unavailable: the token lives in memory only
  }
  session.set(sessionFor(token, token === null ? 'needed' : 'token', source, notice));
}

/** Seconds since the epoch at which the token expires (`exp`), or null. */
export function tokenExpiry(token: string): number | null {
  const exp = tokenClaims(token)?.exp;
  return typeof exp === 'number' ? exp : null;
}

/** Records what an API answer said about authentication. */
export function noteAuth(status: number): void {
  const current = session.get();
  if (status === 401) {
    if (current.auth !== 'needed') session.set({ ...current, auth: 'needed' });
  } else if (current.auth === 'unknown' && status < 400) {
    session.set({ ...current, auth: current.token === null ? 'open' : 'token' });
  }
}

/** True when the session's role reaches `level`. */
export function allows(s: Session, level: Role): boolean {
  return RANK[s.role] >= RANK[level];
}
