/**
 * The machinery of the API layer: a route is one operation of docs/api.md §3 (`operation`, `method`, an
 * OpenAPI-style path template, the access level), and `send` runs it through whatever carries requests (the
 * SDK's Transport, a `Queen`, or a caller's wrapper of them that adds its own rules, like the CLI's). Paths are
 * built only from the route's template, so a function cannot reach a path its route does not declare.
 */
import { queryString, seg, type HttpResponse, type RequestSpec } from '../http.js';
import type { QueryParams } from '../types.js';
import type { components, operations } from './wire.js';

/**
 * A named shape of the OpenAPI document (packages/server/openapi.json), as scripts/wire-types.mjs generates it
 * into wire.ts: the one declaration of every body on the wire, for the SDK, the server, the CLI and the dashboard.
 */
export type Wire<N extends keyof components['schemas']> = components['schemas'][N];

/** An operation of the document, by its operationId (the SDK's function names). */
export type Operation = keyof operations;

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<Op extends Operation> = operations[Op]['responses'];

/** The JSON body of operation `Op`'s success answer (its 2xx), as the document declares it. */
export type Reply<Op extends Operation> = JsonOf<Responses<Op>[Extract<keyof Responses<Op>, 200 | 201>]>;

/** The query parameters of operation `Op`, all optional as sent. */
export type Query<Op extends Operation> = NonNullable<operations[Op]['parameters']['query']>;

/** The JSON request body of operation `Op`. */
export type Body<Op extends Operation> = JsonOf<NonNullable<operations[Op]['requestBody']>>;

/** HTTP methods the broker serves (besides OPTIONS). */
export type ApiMethod = 'GET' | 'POST' | 'DELETE';

/** Access levels of docs/api.md §3 (a higher role satisfies a lower level). */
export type ApiAccess = 'PUBLIC' | 'READ_ONLY' | 'READ_WRITE' | 'ADMIN';

/** One operation of the API: its name, method and OpenAPI-style path template (`/api/v1/x/{name}`). */
export interface ApiRoute<P extends string = string, Op extends Operation = Operation> {
  readonly operation: Op;
  readonly method: ApiMethod;
  readonly path: P;
  readonly access: ApiAccess;
}

/** Anything that sends a request under the SDK's policy: the SDK's Transport, a `Queen`, or a wrapper. */
export interface ApiRequester {
  request(spec: RequestSpec): Promise<HttpResponse>;
}

/** Per-call transport settings: timeout, abort signal, long poll, replay rule, affinity key. */
export type CallOptions = Omit<RequestSpec, 'method' | 'path' | 'body'>;

/** The names in a path template: `'/a/{x}/b/{y}'` -> `'x' | 'y'`. */
export type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParamNames<Rest> : never;

/** The values a template needs, one string per name. */
export type PathParams<P extends string> = { [K in PathParamNames<P>]: string };

/** The `{error}` body a lookup that missed answers with 200 and `X-Queen-Status: 404` (docs/api.md §1.4). */
export type NotFoundBody = Wire<'NotFound'>;

/** The `{success:false, error}` body of an operation the broker refused without an HTTP error status. */
export type RefusedBody = Wire<'AdminFailure'>;

/**
 * Declares one route (the `const` parameters keep the literal template for typed path parameters); `operation`
 * is the document's operationId, so a route the document does not declare does not compile.
 */
export function route<const Op extends Operation, const P extends string>(operation: Op, method: ApiMethod, path: P, access: ApiAccess): ApiRoute<P, Op> {
  return { operation, method, path, access };
}

/** The path of `route` with its parameters percent-encoded, plus the query string of the defined entries. */
export function pathOf<P extends string>(route: ApiRoute<P>, params: PathParams<P>, query?: QueryParams): string {
  const values = params as Record<string, string>;
  const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (typeof value !== 'string') throw new TypeError(`${route.operation}: path parameter ${name} is required`);
    return seg(value);
  });
  return `${path}${queryString(query)}`;
}

/** What one call sends besides the path parameters. */
export interface SendInput {
  query?: QueryParams | undefined;
  body?: unknown;
}

/**
 * Runs `route` through `http` and resolves with the parsed body, typed by the route's documented answer (the
 * broker is trusted to keep docs/api.md; `null` for a 204).
 */
export async function send<T, P extends string>(http: ApiRequester, route: ApiRoute<P>, params: PathParams<P>, input: SendInput = {}, options: CallOptions = {}): Promise<T> {
  const res = await http.request({ ...options, method: route.method, path: pathOf(route, params, input.query), ...(input.body === undefined ? {} : { body: input.body }) });
  return res.body as T;
}

/** The route whose template matches `method` and `path` (a query string is ignored), or undefined. */
export function matchRoute(routes: readonly ApiRoute[], method: string, path: string): ApiRoute | undefined {
  const bare = path.split('?')[0]!;
  let best: ApiRoute | undefined;
  for (const candidate of routes) {
    if (candidate.method !== method) continue;
    const pattern = new RegExp(`^${candidate.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    // A literal segment beats a parameter (`/consumer-groups/lagging` over `/consumer-groups/{group}`).
    if (pattern.test(bare) && (best === undefined || literalLength(candidate.path) > literalLength(best.path))) best = candidate;
  }
  return best;
}

function literalLength(template: string): number {
  return template.replace(/\{[^}]+\}/g, '').length;
}

/** An ISO string of a Date; a string is sent as given. */
export const iso = (value: string | Date): string => (value instanceof Date ? value.toISOString() : value);

/** A requester that keeps the last answer it passed on, for callers that report its status, headers or URL. */
export interface RecordingRequester extends ApiRequester {
  last: HttpResponse | undefined;
}

/** Wraps `http` so that `.last` holds the last successful answer. */
export function recording(http: ApiRequester): RecordingRequester {
  const wrapper: RecordingRequester = {
    last: undefined,
    async request(spec) {
      const res = await http.request(spec);
      wrapper.last = res;
      return res;
    },
  };
  return wrapper;
}
