/**
 * Starts and stops a local broker for a benchmark run when no --url is given.
 *
 * Design: the broker is `node <repo>/packages/server/dist/main.js`, spawned with its own free HTTP port, a
 * fresh world-writable data directory (the embedded PostgreSQL may run as another user) and its own free
 * embedded-PostgreSQL port. Its stdout/stderr go to our stderr so they never mix with the JSON on stdout.
 * If PG_HOST or DATABASE_URL is set, the PostgreSQL variables are passed through and the broker uses that
 * database; otherwise they are removed so the broker starts its embedded one. A second broker on the same
 * database (the wake scenario's two-process mode) is started with `database` = the first one's embedded
 * PostgreSQL, which it then uses as an external database (PG_HOST/PG_PORT/PG_USER/PG_PASSWORD/PG_DB).
 * Readiness is GET /health == 200 (polled up to 120 s); stopping is SIGTERM, then SIGKILL after 30 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { QueenClient } from './http.js';

const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
const PG_VARIABLES = ['DATABASE_URL', 'PG_HOST', 'PG_PORT', 'PG_USER', 'PG_PASSWORD', 'PG_DB'];

/** A running broker started by this process. */
export interface BrokerHandle {
  /** Its base URL, e.g. http://127.0.0.1:41234. */
  url: string;
  /** The child's process id. */
  pid: number;
  /** The port of the embedded PostgreSQL it owns; undefined when it uses an external database. */
  embeddedPgPort: number | undefined;
  /** Stops it (SIGTERM, then SIGKILL) and removes its data directory. Safe to call twice. */
  stop(): Promise<void>;
  /** Synchronous best-effort SIGTERM for signal handlers. */
  killNow(): void;
}

/** Returns a TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not pick a free port'))));
    });
  });
}

/** An external PostgreSQL for a broker, e.g. another broker's embedded one. */
export interface DatabaseAddress {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** How to start a broker. */
export interface StartOptions {
  /** Name used in progress lines (default "broker"). */
  label?: string;
  /** Connect to this database instead of the environment's or an embedded one. */
  database?: DatabaseAddress;
  /** Node flags before the entry point (e.g. --cpu-prof). */
  nodeArgs?: readonly string[];
  /** QUEEN_WORKERS (default 1: one process, as every build before it ran). */
  workers?: number;
}

/** True when the environment names an external PostgreSQL, which every broker we start then uses. */
export function environmentHasDatabase(): boolean {
  return Boolean(process.env['PG_HOST']) || Boolean(process.env['DATABASE_URL']);
}

function brokerEnv(httpPort: number, pgPort: number, dataDir: string, database: DatabaseAddress | undefined, workers: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (database !== undefined || !environmentHasDatabase()) for (const name of PG_VARIABLES) delete env[name];
  if (database !== undefined) {
    env['PG_HOST'] = database.host;
    env['PG_PORT'] = String(database.port);
    env['PG_USER'] = database.user;
    env['PG_PASSWORD'] = database.password;
    env['PG_DB'] = database.database;
  }
  env['PORT'] = String(httpPort);
  env['QUEEN_DATA_DIR'] = dataDir;
  env['LOG_LEVEL'] = 'warn';
  env['QUEEN_EMBEDDED_PG_PORT'] = String(pgPort);
  env['QUEEN_WORKERS'] = String(workers);
  return env;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Spawns the broker found under `repoRoot` and resolves once /health answers 200.
 * Rejects (after cleaning up) if it exits early or is not ready within 120 s.
 */
export async function startBroker(repoRoot: string, log: (line: string) => void, options: StartOptions = {}): Promise<BrokerHandle> {
  const label = options.label ?? 'broker';
  const entry = path.join(repoRoot, 'packages', 'server', 'dist', 'main.js');
  if (!fs.existsSync(entry)) throw new Error(`broker not built: ${entry} does not exist (run npm run build)`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-bench-'));
  fs.chmodSync(dataDir, 0o777);
  const httpPort = await freePort();
  let pgPort = await freePort();
  while (pgPort === httpPort) pgPort = await freePort();
  const url = `http://127.0.0.1:${httpPort}`;
  const database = options.database;
  const embedded = database === undefined && !environmentHasDatabase();
  const where = database !== undefined ? `PostgreSQL at ${database.host}:${database.port} as an external database`
    : embedded ? `embedded PostgreSQL on port ${pgPort}` : 'external PostgreSQL';
  log(`starting ${label} ${entry} on ${url} (data ${dataDir}, ${where})`);

  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), entry], {
    cwd: repoRoot,
    env: brokerEnv(httpPort, pgPort, dataDir, database, options.workers ?? 1),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(process.stderr, { end: false });
  child.stderr?.pipe(process.stderr, { end: false });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (!exited) {
      child.kill('SIGTERM');
      if (!(await waitForExit(child, STOP_TIMEOUT_MS))) {
        log(`${label} ${child.pid ?? '?'} did not stop within ${STOP_TIMEOUT_MS / 1000} s; sending SIGKILL`);
        child.kill('SIGKILL');
        await waitForExit(child, 5_000);
      }
    }
    try {
      fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (error) {
      log(`could not remove ${dataDir}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const handle: BrokerHandle = {
    url,
    pid: child.pid ?? -1,
    embeddedPgPort: embedded ? pgPort : undefined,
    stop,
    killNow: () => {
      if (!exited) child.kill('SIGTERM');
    },
  };

  const probe = new QueenClient(url, 1);
  const started = Date.now();
  try {
    while (!(await probe.health())) {
      if (exited) throw new Error(`${label} exited during start-up (code ${child.exitCode ?? 'null'}, signal ${child.signalCode ?? 'null'})`);
      if (Date.now() - started > READY_TIMEOUT_MS) throw new Error(`${label} not healthy after ${READY_TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    await probe.close();
  }
  log(`${label} ready after ${((Date.now() - started) / 1000).toFixed(1)} s (pid ${handle.pid})`);
  return handle;
}
