/**
 * The session: the bearer token (kept in sessionStorage), the role it grants, and whether the broker asks for
 * one at all. The role gates buttons only; the broker still decides (a 403 shows "needs ADMIN").
 */
import { createStore } from './store.js';

/** Access levels of the API (API.md 3), lowest first. */
export type Role = 'READ_ONLY' | 'READ_WRITE' | 'ADMIN';

const RANK: Record<Role, number> = { READ_ONLY: 0, READ_WRITE: 1, ADMIN: 2 };
const TOKEN_KEY = 'queen.dashboard.token';

/** What the UI knows about the caller. */
export interface Session {
  /** The pasted token, or null. */
  token: string | null;
  /** `unknown` until the first API answer; `open` when the broker needs no token; `needed` after a 401. */
  auth: 'unknown' | 'open' | 'token' | 'needed';
  /** The role of the token (ADMIN when auth is off). */
  role: Role;
  /** Subject of the token, for the sidebar. */
  subject: string | null;
}

function readToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
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
export const session = createStore<Session>(sessionFor(readToken(), 'unknown'));

function sessionFor(token: string | null, auth: Session['auth']): Session {
  if (token === null) return { token: null, auth, role: 'ADMIN', subject: null };
  const sub = tokenClaims(token)?.sub;
  return { token, auth: auth === 'unknown' ? 'unknown' : 'token', role: tokenRole(token), subject: typeof sub === 'string' ? sub : null };
}

/** Stores a pasted token (or clears it with null). */
export function setToken(token: string | null): void {
  try {
    if (token === null) sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    // storage unavailable: the token lives in memory only
  }
  session.set(sessionFor(token, token === null ? 'needed' : 'token'));
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
