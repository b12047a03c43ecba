/**
 * Cross-origin access (docs/decisions.md "Cross-origin by default"): which web pages may call the broker.
 *
 * CORS_ORIGINS lists the origins allowed besides the broker's own (`https://ops.example.com,...`), or `*`
 * for any. By default the list is empty: only same-origin pages (the dashboard the broker serves) may call
 * it. A request that carries an `Origin` header (browsers send one on every cross-origin request and on
 * same-origin writes) from an origin that is neither the broker's own nor allowed is answered 403 before its
 * route runs, so a page on another origin cannot cause a write even with a "simple" request that skips the
 * preflight. Requests without `Origin` (the SDK in Node, the CLI, curl, other services) are not affected.
 */
import type { IncomingMessage } from 'node:http';

const ALLOW = {
  'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization, traceparent, tracestate',
  'Access-Control-Expose-Headers': 'X-Queen-Empty-Reason, X-Queen-Status, Retry-After',
};

/** The 403 text of a request from an origin that is not allowed. */
export const ORIGIN_NOT_ALLOWED = 'Origin not allowed (set CORS_ORIGINS)';

/** The decision for one request: refused, or allowed with the CORS headers its responses carry. */
export type CorsDecision = { allowed: false } | { allowed: true; headers: Record<string, string> };

/** Decides cross-origin access from the configured origins (`*` = any). */
export class CorsPolicy {
  private readonly any: boolean;
  private readonly origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.any = origins.includes('*');
    this.origins = new Set(origins.filter((o) => o !== '*'));
  }

  /** The decision for a request, from its `Origin` and `Host` headers. */
  decide(req: IncomingMessage): CorsDecision {
    if (this.any) return { allowed: true, headers: { 'Access-Control-Allow-Origin': '*', ...ALLOW } }; // every response, as docs/api.md 1.3
    const origin = req.headers.origin;
    if (origin === undefined) return { allowed: true, headers: {} };
    if (this.origins.has(origin)) return { allowed: true, headers: { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', ...ALLOW } };
    return sameOrigin(origin, req.headers.host) ? { allowed: true, headers: {} } : { allowed: false };
  }
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false; // `null` (sandboxed frames, file:) or garbage
  }
}

/**
 * Headers of the dashboard's files: no framing by other pages, scripts from this origin only, connections to
 * this origin only, and, with OIDC sign-in, to the identity provider too (its issuer origin, and any https
 * origin its discovery document may name for the token and userinfo endpoints).
 */
export function dashboardSecurityHeaders(oidcIssuer: string | null): Record<string, string> {
  const provider = oidcIssuer === null ? '' : ` ${new URL(oidcIssuer).origin} https:`;
  return {
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'${provider}; object-src 'none'; base-uri 'none'; form-action 'self'${provider}; frame-ancestors 'none'`,
    'Referrer-Policy': 'same-origin',
  };
}
