/**
 * The listening socket, bound before the broker touches its database: a port that is taken stops start-up
 * before anything was started or migrated. Until the routes are installed (`createHttpServer` with this
 * server), every request is answered 503 with `Connection: close`, so a client retries instead of hanging.
 */
import http from 'node:http';

const STARTING = JSON.stringify({ error: 'Service Unavailable: the broker is starting' });
/** `GET /ready` before the routes: the readiness body (docs/api.md 4.1a), not ready. */
const NOT_READY_YET = JSON.stringify({ ready: false, reason: 'starting' });

/** How long a client may take to send its headers, and its whole request (HTTP_*_TIMEOUT_MS of config.ts). */
export interface RequestTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** Answers a request that arrived before the routes were ready. */
function starting(req: http.IncomingMessage, res: http.ServerResponse): void {
  const body = req.method === 'GET' && (req.url === '/ready' || req.url?.startsWith('/ready?') === true) ? NOT_READY_YET : STARTING;
  res.writeHead(503, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Access-Control-Allow-Origin': '*',
    'Retry-After': '1',
    Connection: 'close',
  });
  res.end(body);
}

/**
 * A new HTTP server that answers 503 until routes are installed. Keep-alive outlives parked pops; both
 * timeouts end when the request is received, so a parked pop (docs/api.md 1.1 rule 2) is never cut.
 */
export function newHttpServer(timeouts: RequestTimeouts): http.Server {
  return http.createServer({
    keepAliveTimeout: 65_000,
    requestTimeout: timeouts.requestTimeoutMs,
    headersTimeout: timeouts.headersTimeoutMs,
    // How often node:http looks for requests past those timeouts (its default, 30 s, would double them).
    connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeoutMs),
  }, starting);
}

/** Removes the start-up answer: the caller installs the real request handler. */
export function takeOverRequests(server: http.Server): void {
  server.removeListener('request', starting);
}

/**
 * Connections the kernel may queue before the broker accepts them (Linux caps it at net.core.somaxconn).
 * Node's default, 511, is overrun when thousands of long-poll consumers connect at once (a broker restart
 * or a deploy of a consumer fleet), and the kernel then resets the rest.
 */
const LISTEN_BACKLOG = 4096;

/** Binds `port` on `host`; rejects with the listen error (EADDRINUSE, EACCES, EADDRNOTAVAIL ...). */
export function bindHttpServer(port: number, host: string, timeouts: RequestTimeouts): Promise<http.Server> {
  const server = newHttpServer(timeouts);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
