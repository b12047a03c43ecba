/**
 * The HTTP server: node:http, one dispatcher. It answers every request (never drops a connection instead),
 * applies the cross-origin policy (cors.ts: CORS_ORIGINS), reads bodies for the routes that want one and checks
 * them against the OpenAPI document (validation.ts), maps
 * errors to their exact wire bodies, and keeps keep-alive connections open long enough for parked pops.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Authenticator } from '../auth/index.js';
import { CorsPolicy, ORIGIN_NOT_ALLOWED } from './cors.js';
import { withRequestSignal } from '../core/request-scope.js';
import { DomainError } from '../errors.js';
import { HttpError, toHttpError } from './errors.js';
import type { Logger } from '../logger.js';
import type { RequestEnd } from '../metrics/recorder.js';
import { BodyBudget, parseJsonObject, readBody } from './body.js';
import { newHttpServer, takeOverRequests } from './listener.js';
import { Query, decodeSegment } from './query.js';
import { assertStorableBody, assertStorableParam } from './text.js';
import type { Reply, Route } from './route.js';
import { Router } from './router.js';
import type { StaticHandler } from './static.js';
import { documentQueryRules, documentValidators, type BodyCheck } from './validation.js';
import type { ConfiguredBounds, QueryCheck } from './query-rules.js';

/** The bytes `\u`: the only way a JSON body can carry text PostgreSQL cannot store (text.ts). */
const UNICODE_ESCAPE = Buffer.from('\\u');

/** The 404 of a method and path no route serves: both named, so a typo or a wrong method shows (path capped). */
function notFound(method: string, rawPath: string): string {
  const shown = rawPath.length > 200 ? `${rawPath.slice(0, 200)}...` : rawPath;
  return JSON.stringify({ error: `Not Found: no route for ${method} ${shown}` });
}

/** What the server needs besides its routes. */
export interface ServerOptions {
  maxPayloadBytes: number;
  /** Bytes of request bodies held at once (MAX_BODY_BYTES_IN_FLIGHT); past it a new body gets 503 + Retry-After. */
  bodyBytesInFlight: number;
  /** Deepest nesting of arrays and objects a JSON body may have (checked before it is parsed). */
  maxJsonDepth: number;
  /**
   * Slow clients: the headers must arrive within `headersTimeoutMs` and the whole request within
   * `requestTimeoutMs` (else 408 and the connection closes). Both end when the request is received, so a
   * parked pop (docs/api.md 1.1 rule 2) is never cut: the wait happens after its request is complete.
   */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** CORS_ORIGINS: origins allowed besides the broker's own; `*` = any; empty = same-origin only. */
  corsOrigins: readonly string[];
  log: Logger;
  /** Maps a thrown error to a reply (database failures become `pool`, `pop failed`, ...). */
  toReply: (error: unknown, route: Route) => Reply;
  /** True while the broker shuts down: responses then close their keep-alive connection. */
  draining: () => boolean;
  /** Called when a request (not OPTIONS) starts; the returned function gets its route pattern, method and status (499: client left). */
  observe?: () => RequestEnd;
  /** Present when JWT_ENABLED=true: protected routes need a token before anything else of the request is read. */
  auth?: Authenticator;
  /** A server already bound by start-up (`http/listener.ts`, with the same timeouts); a new unbound one when absent. */
  server?: http.Server;
  /** Answers GET/HEAD requests that match no route (the dashboard, `static.ts`); false leaves them to the 404. */
  fallback?: StaticHandler;
  /** The configured default and maximum of the query parameters the document marks `configured` (query-rules.ts). */
  queryBounds?: ConfiguredBounds;
}

/** Writes a reply (the CORS headers of the request were set on `res` before). */
function send(res: ServerResponse, reply: Reply, closeConnection = false): void {
  const headers: Record<string, string | number> = { ...reply.headers };
  if (closeConnection) headers.Connection = 'close';
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  headers['Content-Type'] ??= 'application/json';
  headers['Content-Length'] = Buffer.byteLength(text);
  res.writeHead(reply.status, headers);
  res.end(text);
}

/** A header's value as a string; Node joins a repeated traceparent with ", ", which then fails its check. */
function headerValue(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

/** The reply of an error with a known answer: a broker error (mapped by http/errors.ts) or an HttpError. */
export function errorReply(error: DomainError | HttpError, popShape = false): Reply {
  const answer = error instanceof DomainError ? toHttpError(error, popShape) : error;
  return { status: answer.status, body: answer.body, headers: answer.headers };
}

/**
 * The answer to an error of the broker's own code: a generic 500 with a request id, never the error's text
 * (it can quote internals: "Invalid string length"). The log line carries the same id and the error itself.
 */
export function internalError(log: Logger, error: unknown, where: string): Reply {
  const requestId = randomUUID();
  log.error({ err: error, route: where, requestId }, 'unexpected error');
  return { status: 500, body: { error: 'Internal server error', requestId }, headers: { 'X-Request-Id': requestId } };
}

/** The HTTP server and the one shutdown step node:http lacks. */
export interface HttpServer {
  server: http.Server;
  /**
   * Closes every connection without a request in progress. Node 20's `closeIdleConnections()` skips a
   * connection that was opened but has not sent its first request yet (fetch opens a fresh one after an
   * aborted request), which would hold `server.close()` for the whole shutdown grace.
   */
  closeIdleConnections(): void;
}

/** Creates the server for a route table. */
export function createHttpServer(routes: Route[], options: ServerOptions): HttpServer {
  const router = new Router(routes);
  // Each route's body check, compiled from the document once (validation.ts); absent: nothing to enforce.
  const bodyChecks = new Map<Route, BodyCheck>();
  // And each route's reader of its integer and boolean query parameters (query-rules.ts).
  const queryChecks = new Map<Route, QueryCheck>();
  const queryRules = documentQueryRules(options.queryBounds);
  for (const route of routes) {
    const check = route.body === undefined ? null : documentValidators().body(route.method, route.path);
    if (check !== null) bodyChecks.set(route, check);
    const read = queryRules.query(route.method, route.path);
    if (read !== null) queryChecks.set(route, read);
  }
  const corsPolicy = new CorsPolicy(options.corsOrigins);
  const bodies = new BodyBudget(options.bodyBytesInFlight);
  const auth = options.auth;
  const server = options.server ?? newHttpServer(options);
  takeOverRequests(server);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void dispatch(req, res).catch((error: unknown) => {
      const reply = internalError(options.log, error, 'outside its handler');
      if (!res.headersSent) send(res, reply);
      else res.destroy();
    });
  });

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = Date.now();
    const cors = corsPolicy.decide(req);
    if (!cors.allowed) {
      send(res, { status: 403, body: { error: ORIGIN_NOT_ALLOWED } });
      return;
    }
    for (const [name, value] of Object.entries(cors.headers)) res.setHeader(name, value);
    if (req.method === 'OPTIONS') {
      send(res, { status: 204, headers: { 'Access-Control-Max-Age': '86400' } });
      return;
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q === -1 ? url : url.slice(0, q);
    const match = router.match(req.method ?? 'GET', rawPath);
    const end = options.observe?.();
    res.once('close', () => {
      const status = res.writableFinished ? res.statusCode : 499;
      end?.({ route: match?.route.path ?? 'unmatched', method: req.method ?? 'GET', status: String(status), failed: status >= 500, transaction: match?.route.transaction === true && status === 200 });
    });
    if (match === null) {
      if (options.fallback !== undefined && (await options.fallback(req, res))) return;
      send(res, { status: 404, body: notFound(req.method ?? 'GET', rawPath) });
      return;
    }
    const { route } = match;
    const controller = new AbortController();
    const ticket = bodies.ticket(); // the body's bytes count until the response is done
    res.on('close', () => {
      ticket.release();
      if (!res.writableFinished) controller.abort();
    });
    try {
      // Before the path, query and body are decoded: a 401/403 wins over any 400 (docs/api.md 9.7).
      const caller = auth === undefined ? { subject: null, admin: true }
        : auth.exempt(route.access, rawPath) ? { subject: null, admin: false }
          : await auth.authorize(req.headers.authorization, route.access);
      const params: Record<string, string> = {};
      for (const [name, raw] of Object.entries(match.rawParams)) {
        params[name] = decodeSegment(raw);
        assertStorableParam(name, params[name]);
      }
      const query = Query.parse(q === -1 ? '' : url.slice(q + 1));
      queryChecks.get(route)?.(query);
      const raw = route.body === undefined ? undefined : await readBody(req, options.maxPayloadBytes, ticket.take);
      const body = raw === undefined || route.body === undefined ? {} : parseJsonObject(raw, route.body, options.maxJsonDepth);
      // Only a \u escape can put a NUL or an unpaired surrogate into parsed JSON (raw control characters are
      // invalid JSON, and UTF-8 decoding never yields a lone surrogate): without one, the walk finds nothing.
      if (raw !== undefined && raw.includes(UNICODE_ESCAPE)) assertStorableBody(body);
      bodyChecks.get(route)?.(body);
      const reply = await withRequestSignal(controller.signal, () => route.handle({ params, query, body, signal: controller.signal, arrivedAt, subject: caller.subject, admin: caller.admin, traceparent: headerValue(req.headers.traceparent), tracestate: headerValue(req.headers.tracestate) }));
      if (!controller.signal.aborted) send(res, reply, options.draining());
    } catch (error) {
      const reply = error instanceof DomainError || error instanceof HttpError
        ? errorReply(error, route.popShape)
        : options.toReply(error, route);
      if (res.headersSent) return;
      send(res, reply, options.draining());
      if ((reply.status === 413 || reply.status === 503) && !req.complete) {
        // Stop reading: let the client see the answer, then close whatever it is still sending.
        req.resume();
        setTimeout(() => req.socket.destroy(), 2000).unref();
      }
    }
  }

  const awaitingFirstRequest = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    awaitingFirstRequest.add(socket);
    socket.once('close', () => awaitingFirstRequest.delete(socket));
  });
  server.on('request', (req: IncomingMessage) => awaitingFirstRequest.delete(req.socket));

  return {
    server,
    closeIdleConnections() {
      for (const socket of awaitingFirstRequest) socket.destroy();
      server.closeIdleConnections();
    },
  };
}
