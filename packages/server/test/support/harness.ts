/**
 * Test harness: real PostgreSQL, real broker processes, real HTTP.
 *
 * The test runner (scripts/run-tests.mjs) exports PG_* for a PostgreSQL server (embedded, or the one the
 * environment named). Each test file creates fresh databases on it with `createDatabase()` and starts
 * broker processes on them with `startBroker()`: the built broker (`packages/server/dist/main.js`), exactly
 * what `npm start` runs.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import pg from 'pg';
import { contractViolation } from './contract.js';

const SERVER_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(SERVER_ROOT, 'dist', 'main.js');

/** How to reach the test PostgreSQL server. */
export function serverConnection(database = process.env.PG_DB ?? 'postgres'): pg.ClientConfig {
  if (process.env.DATABASE_URL) {
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${database}`;
    return { connectionString: url.toString() };
  }
  if (!process.env.PG_HOST) throw new Error('PG_HOST or DATABASE_URL must be set: run the tests with `npm test`');
  return {
    host: process.env.PG_HOST,
    port: Number(process.env.PG_PORT ?? 5432),
    user: process.env.PG_USER ?? 'postgres',
    password: process.env.PG_PASSWORD ?? 'postgres',
    database,
  };
}

/** A fresh, empty database on the test server. */
export interface TestDatabase {
  name: string;
  /** Environment variables that point a broker at this database. */
  env: Record<string, string>;
  /** Runs SQL against the database (for assertions on stored state). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Closes the pool (the database itself is left for the runner's cleanup). */
  close(): Promise<void>;
}

/** Creates a new database with a unique name. */
export async function createDatabase(): Promise<TestDatabase> {
  const name = `queen_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const admin = new pg.Client(serverConnection());
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const connection = serverConnection(name);
  if (CITUS_WORKERS.length > 0) await makeCitusDatabase(name);
  const pool = new pg.Pool({ ...connection, max: 4 } as pg.PoolConfig);
  let env: Record<string, string>;
  if ('connectionString' in connection && connection.connectionString) {
    env = { DATABASE_URL: connection.connectionString };
  } else {
    env = {
      PG_HOST: String(connection.host),
      PG_PORT: String(connection.port),
      PG_USER: String(connection.user),
      PG_PASSWORD: String(connection.password),
      PG_DB: name,
    };
  }
  if (CITUS_WORKERS.length > 0) env.QUEEN_CITUS = 'on';
  return { name, env, query: (text, values) => pool.query(text, values), close: () => pool.end() };
}

/** The workers' ports when the runner started a Citus cluster (QUEEN_TEST_CITUS): the test server is its coordinator. */
const CITUS_WORKERS = (process.env.QUEEN_TEST_CITUS_WORKERS ?? '').split(',').filter((port) => port !== '').map(Number);

/**
 * Makes database `name` (just created on the coordinator) a Citus cluster of its own: Citus keeps its metadata per
 * database, so the database is created on every worker too, the extension in each, and the workers registered.
 */
async function makeCitusDatabase(name: string): Promise<void> {
  const on = async (port: number, database: string, statements: string[], values: unknown[][] = []) => {
    const node = new pg.Client({ ...serverConnection(database), host: '127.0.0.1', port } as pg.ClientConfig);
    await node.connect();
    try {
      for (const [i, statement] of statements.entries()) await node.query(statement, values[i]);
    } finally {
      await node.end();
    }
  };
  const coordinator = Number(process.env.PG_PORT);
  for (const port of CITUS_WORKERS) await on(port, 'postgres', [`CREATE DATABASE ${name}`]);
  for (const port of [...CITUS_WORKERS, coordinator]) await on(port, name, ['CREATE EXTENSION citus']);
  await on(coordinator, name, ['SELECT citus_set_coordinator_host($1, $2)', ...CITUS_WORKERS.map(() => 'SELECT citus_add_node($1, $2)')],
    [['127.0.0.1', coordinator], ...CITUS_WORKERS.map((port) => ['127.0.0.1', port])]);
}

/**
 * Every response of a broker started by `startBroker()` is held to the HTTP contract (support/contract.ts,
 * packages/server/openapi.json), whoever made the request: `request()`, a test's own `fetch`, or an official
 * client running in the test process. A response that drifts from the document rejects the `fetch` that
 * received it, so the test fails with the operation, the status and what differs.
 */
const brokerOrigins = new Set<string>();
const unchecked = globalThis.fetch;
globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const res = await unchecked(input, init);
  const url = new URL(input instanceof Request ? input.url : input.toString());
  if (!brokerOrigins.has(url.origin)) return res;
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  let text: string;
  try {
    text = await res.clone().text();
  } catch {
    return res; // the caller aborted the body: nothing to check
  }
  const violation = contractViolation(method, url.pathname, res.status, res.headers, text);
  if (violation !== null) throw new Error(`response breaks the API contract (packages/server/openapi.json): ${method} ${url.pathname}${url.search}\n${violation}`);
  return res;
};

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * QUEEN_WORKERS of the brokers tests start: one process (the suite would otherwise run a worker per core in
 * every broker), unless QUEEN_TEST_WORKERS asks for more (`npm run test:workers` runs chosen suites with 2)
 * or the test sets QUEEN_WORKERS itself.
 */
export const TEST_WORKERS = process.env.QUEEN_TEST_WORKERS ?? '1';

/** A broker process started by a test. */
export interface BrokerProcess {
  url: string;
  port: number;
  process: ChildProcess;
  /** Everything the process wrote so far. */
  output(): string;
  /**
   * Everything written so far once it matches `pattern`. A log line reaches the pipe after the state it reports
   * (a follow seen through /health) can be observed, so checks of what a broker said wait for it.
   */
  outputMatching(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
}

/**
 * Starts a broker on `database` with extra environment (a `PORT` in it is kept: a restart on the same address);
 * resolves once `readyPath` (/health; /ready for a broker started while its database is unreachable) answers 200.
 */
export async function startBroker(
  database: TestDatabase,
  env: Record<string, string> = {},
  /** Called with everything the broker wrote so far, each time it writes during start-up. */
  onStartupOutput?: (output: string) => void,
  readyPath: '/health' | '/ready' = '/health',
): Promise<BrokerProcess> {
  const port = env.PORT !== undefined ? Number(env.PORT) : await freePort();
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    cwd: SERVER_ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', QUEEN_WORKERS: TEST_WORKERS, ...database.env, HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let starting = true;
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
    if (starting) onStartupOutput?.(output);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  brokerOrigins.add(url);
  child.once('exit', () => brokerOrigins.delete(url));
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`broker exited during start-up:\n${output}`);
    try {
      const res = await fetch(`${url}${readyPath}`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 30_000) {
      child.kill('SIGKILL');
      throw new Error(`broker did not answer 200 on ${readyPath} in 30 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  starting = false;
  return {
    url,
    port,
    process: child,
    output: () => output,
    async outputMatching(pattern, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (Date.now() > deadline) assert.fail(`the broker did not write ${pattern} in ${timeoutMs} ms:\n${output.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return output;
    },
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A parsed HTTP response. */
export interface TestResponse<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when empty. */
  json: T;
}

/** Sends one request; `body` is serialised as JSON unless it is already a string. */
export async function request<T = any>(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<TestResponse<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(`${baseUrl}${pathAndQuery}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: (text.length > 0 ? JSON.parse(text) : undefined) as T };
}

/** A client bound to one broker. */
export function client(baseUrl: string) {
  return {
    get: <T = any>(p: string, headers?: Record<string, string>) => request<T>(baseUrl, 'GET', p, undefined, headers),
    post: <T = any>(p: string, body?: unknown, headers?: Record<string, string>) => request<T>(baseUrl, 'POST', p, body, headers),
    del: <T = any>(p: string, headers?: Record<string, string>) => request<T>(baseUrl, 'DELETE', p, undefined, headers),
    /** POST /api/v1/push with the given items. */
    push: <T = any>(items: unknown[]) => request<T>(baseUrl, 'POST', '/api/v1/push', { items }),
  };
}

/** A client bound to one broker, as returned by `client()`. */
export type Client = ReturnType<typeof client>;

/** The live values of a `useBroker()` set-up. */
export interface BrokerSetup {
  readonly db: TestDatabase;
  readonly broker: BrokerProcess;
  readonly api: Client;
}

/**
 * A database and a broker on it for the whole file (or describe block): created in `before`, stopped in
 * `after`. Registers the node:test hooks in the calling scope, so call it at module level (or directly in a
 * `describe` body). The getters return the live values and throw if used before the `before` hook ran.
 *
 * `ready` runs at the end of that same `before` hook, for set-up that needs the broker (fixtures, seed
 * traffic). Use it rather than a second top-level `before`: on Node 20 the root-level `before` hooks of a
 * file are started without waiting for one another, so a second one can run before the broker is up.
 */
export function useBroker(env: Record<string, string> = {}, ready?: (setup: BrokerSetup) => void | Promise<void>): BrokerSetup {
  let db: TestDatabase | undefined;
  let broker: BrokerProcess | undefined;
  let api: Client | undefined;
  before(async () => {
    db = await createDatabase();
    broker = await startBroker(db, env);
    api = client(broker.url);
    await ready?.(setup);
  });
  after(async () => {
    await broker?.stop();
    await db?.close();
  });
  const live = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`useBroker(): \`${name}\` used before the \`before\` hook ran (use it inside a test or hook)`);
    return value;
  };
  const setup: BrokerSetup = {
    get db() {
      return live(db, 'db');
    },
    get broker() {
      return live(broker, 'broker');
    },
    get api() {
      return live(api, 'api');
    },
  };
  return setup;
}

/** A unique queue name for a test. */
export function uniqueQueue(prefix = 'q'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}
