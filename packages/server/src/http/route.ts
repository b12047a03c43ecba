/** The shape every route module exports: method, path, access level, how it reads its body, its handler. */
import type { AccessLevel } from '../auth/access.js';
import type { Query } from './query.js';
import type { BodyMode } from './body.js';

export type { AccessLevel } from '../auth/access.js';

/** What a handler receives. */
export interface RequestContext {
  params: Record<string, string>;
  query: Query;
  /** The parsed body, its marked fields already type-checked against the document (validation.ts). */
  body: Record<string, unknown>;
  /** Aborted when the client goes away before the response is written. */
  signal: AbortSignal;
  /** When the request arrived (ms since the epoch). */
  arrivedAt: number;
  /** The caller's JWT subject when auth is on, else null. */
  subject: string | null;
  /** True when auth is off or the caller's role grants ADMIN (what a READ_ONLY caller may not see is redacted). */
  admin: boolean;
  /** The request's W3C `traceparent` header as sent (unchecked), or null. */
  traceparent: string | null;
  /** The request's W3C `tracestate` header as sent (unchecked), or null. */
  tracestate: string | null;
}

/** A body whose fields `K` the edge checked against the document (validation.ts); the others are read leniently. */
export type Checked<T, K extends keyof T> = Pick<T, K> & Record<string, unknown>;

/** What a handler answers. `body` is JSON text (written verbatim) or a value to serialise; absent for 204. */
export interface Reply {
  status: number;
  body?: string | unknown;
  headers?: Record<string, string>;
}

/**
 * A URL path of a route: its router template (`:name` parameters) with the parameters percent-encoded, and
 * optionally a query; for texts that tell an operator which request to send.
 */
export function routeUrl(template: string, params: Record<string, string>, query: Record<string, string> = {}): string {
  const path = template.replace(/:(\w+)/g, (_whole, name: string) => encodeURIComponent(params[name] ?? ''));
  const search = Object.entries(query).map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
  return search === '' ? path : `${path}?${search}`;
}

/** One row of the route table. */
export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  access: AccessLevel;
  /** How the body is read; absent: the route reads no body. */
  body?: BodyMode;
  /** 400s on this route use the pop shape `{"success":false,"error":...,"messages":[]}`. */
  popShape?: boolean;
  /** Its 200s count as transactions in the per-minute counters (metrics/recorder.ts). */
  transaction?: boolean;
  handle(ctx: RequestContext): Promise<Reply>;
}
