/**
 * The listening socket, bound before the broker touches its database: a port that is taken stops start-up
 * before anything was started or migrated. Until the routes are installed (`createHttpServer` with this
 * server), every request is answered 503 with `Connection: close`, so a client retries instead of hanging.
 */
import http from 'node:http';

const STARTING = JSON.stringify({ error: 'Service Unavailable: the broker is starting' });

/** Keep-alive long enough for parked pops; no request timeout (long polls), headers within a minute. */
const SERVER_OPTIONS: http.ServerOptions = { keepAliveTimeout: 65_000, requestTimeout: 0, headersTimeout: 60_000 };

/** Answers a request that arrived before the routes were ready. */
function starting(_req: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(503, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(STARTING),
    'Access-Control-Allow-Origin': '*',
    'Retry-After': '1',
    Connection: 'close',
  });
  res.end(STARTING);
}

/** A new HTTP server that answers 503 until routes are installed. */
export function newHttpServer(): http.Server {
  return http.createServer(SERVER_OPTIONS, starting);
}

/** Removes the start-up answer: the caller installs the real request handler. */
export function takeOverRequests(server: http.Server): void {
  server.removeListener('request', starting);
}

/** Binds `port` on `host`; rejects with the listen error (EADDRINUSE, EACCES, EADDRNOTAVAIL ...). */
export function bindHttpServer(port: number, host: string): Promise<http.Server> {
  const server = newHttpServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
