/**
 * Shared fixtures of the client suites: clients that never install signal handlers, a recording logger, a
 * tiny scripted HTTP server (for retry, timeout and header tests that a real broker cannot produce on demand),
 * and condition waits.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queen, type Logger, type QueenOptions } from '../src/index.js';

/** A client for tests: no signal handlers, fast retries. */
export function testClient(urls: string | string[], options: QueenOptions = {}): Queen {
  return new Queen({ ...(Array.isArray(urls) ? { urls } : { url: urls }), handleSignals: false, retryDelayMillis: 20, ...options });
}

/** One recorded logger call. */
export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  meta: object | undefined;
}

/** A logger that records every call. */
export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (msg: string, meta?: object) => entries.push({ level, msg, meta });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** One request seen by a {@link ScriptedServer}. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the scripted server answers: status, headers, body; `hang` never answers. */
export interface Scripted {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  hang?: boolean;
  /** Answer after this many ms. */
  delayMillis?: number;
  /** Answer once this settles (a test's event, rather than a guessed delay). */
  until?: Promise<unknown>;
}

/** A node:http server answering from a script (last entry repeats), recording every request. */
export interface ScriptedServer {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** Starts a scripted server on a free port. */
export async function scriptedServer(script: Scripted[] | ((req: SeenRequest, n: number) => Scripted)): Promise<ScriptedServer> {
  const seen: SeenRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const entry: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() };
      seen.push(entry);
      const answer = typeof script === 'function' ? script(entry, seen.length - 1) : (script[Math.min(seen.length - 1, script.length - 1)] ?? {});
      if (answer.hang) return;
      const reply = () => {
      const text = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status ?? 200, { ...(answer.body !== undefined && typeof answer.body !== 'string' ? { 'Content-Type': 'application/json' } : {}), ...answer.headers });
      res.end(text);
      };
      if (answer.until) void answer.until.then(reply, reply);
      else if (answer.delayMillis) setTimeout(reply, answer.delayMillis);
      else reply();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Polls `check` every 20 ms until true; fails after `millis`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, millis = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > millis) throw new Error(`${what} did not happen within ${millis} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A URL on which nothing listens (connection refused). */
export async function deadUrl(): Promise<string> {
  const { freePort } = await import('../../server/test/support/harness.js');
  return `http://127.0.0.1:${await freePort()}`;
}

/** A scripted answer that queues every item of a push request, like the broker does. */
export function queuedAnswer(req: SeenRequest): Scripted {
  const items = (JSON.parse(req.body) as { items: Array<{ queue: string; transactionId: string }> }).items;
  return {
    status: 201,
    body: items.map((item, index) => ({ index, transaction_id: item.transactionId, status: 'queued', message_id: `m-${index}`, partition_id: 'p', trace_id: null, queueName: item.queue })),
  };
}
