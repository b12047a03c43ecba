/**
 * The pure rules of authorization (docs/api.md 1.11, 9.7): reading the Authorization header, turning claims into an
 * access level, and the JWT_SKIP_PATHS matching. No I/O, no jose.
 */
import type { AuthConfig } from '../config.js';

/** Access levels of the route table (docs/api.md 3); READ_ONLY < READ_WRITE < ADMIN. */
export type AccessLevel = 'PUBLIC' | 'READ_ONLY' | 'READ_WRITE' | 'ADMIN';

/** The levels a token can grant, lowest first (docs/api.md 3: READ_ONLY < READ_WRITE < ADMIN). */
export type GrantedLevel = Exclude<AccessLevel, 'PUBLIC'>;

const RANK: Record<GrantedLevel, number> = { READ_ONLY: 1, READ_WRITE: 2, ADMIN: 3 };

/** True when a caller holding `granted` may use a route of level `required`. */
export function satisfies(granted: GrantedLevel, required: GrantedLevel): boolean {
  return RANK[granted] >= RANK[required];
}

/**
 * The token of an Authorization header: `Bearer <jwt>` with the scheme word in any case, or a bare token.
 * Null when there is none (absent, blank, or the scheme word alone).
 */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const value = header.trim();
  const match = /^bearer(?:\s+|$)/i.exec(value);
  const token = match === null ? value : value.slice(match[0].length);
  return token === '' ? null : token;
}

/**
 * A claim by name; a name with dots that is not itself a top-level claim is followed as a path
 * (`realm_access.roles`, as Keycloak nests its roles).
 */
function claim(claims: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(claims, name) || !name.includes('.')) return claims[name];
  let value: unknown = claims;
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * The caller's level: the highest recognised role among the string claim `rolesClaim` and the array claim
 * `rolesArrayClaim` (docs/api.md 9.7 rule 6); null when it holds none of the three role names.
 */
export function grantedLevel(claims: Record<string, unknown>, config: Pick<AuthConfig, 'rolesClaim' | 'rolesArrayClaim' | 'roles'>): GrantedLevel | null {
  const names: unknown[] = [];
  const single = claim(claims, config.rolesClaim);
  if (typeof single === 'string') names.push(single);
  const many = claim(claims, config.rolesArrayClaim);
  if (Array.isArray(many)) names.push(...many);
  if (names.includes(config.roles.admin)) return 'ADMIN';
  if (names.includes(config.roles.readWrite)) return 'READ_WRITE';
  if (names.includes(config.roles.readOnly)) return 'READ_ONLY';
  return null;
}

/** One trailing `/` is ignored, as the router does (docs/api.md 1.7 rule 2); the root stays `/`. */
const trimSlash = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);

/**
 * A matcher for JWT_SKIP_PATHS (docs/api.md 9.7 rule 2) over the raw request path (without the query): an entry
 * matches its path exactly; an entry ending in `/` (other than `/`) also matches every path below it; `/`
 * matches only the root. Paths are compared the way the router routes them, with one trailing `/` ignored, so
 * `/x` and `/x/` (one route) are either both skipped or both protected.
 */
export function skipPathMatcher(entries: readonly string[]): (rawPath: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const entry of entries) {
    exact.add(trimSlash(entry));
    if (entry.length > 1 && entry.endsWith('/')) prefixes.push(entry);
  }
  return (rawPath) => {
    const path = trimSlash(rawPath);
    if (exact.has(path)) return true;
    for (const prefix of prefixes) if (path.startsWith(prefix)) return true;
    return false;
  };
}
