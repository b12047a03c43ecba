/**
 * A PostgreSQL server of Debian's own binaries (/usr/lib/postgresql/<major>/bin) in a temporary folder, for
 * tests that need a second server of another version or other settings (the database move's targets and
 * sources). Runs as `postgres` when the tests run as root; password `postgres` over TCP on 127.0.0.1.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './harness.js';

/** A running server. */
export interface SystemPostgres {
  port: number;
  dataDir: string;
  /** Runs one statement on a connection of its own (database postgres unless given). */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** SIGKILL of the postmaster (its backends exit with it). */
  kill(): Promise<void>;
  /** Starts it again on the same port and data, after `kill`. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const asPostgres = (): { uid?: number; gid?: number } => (process.getuid?.() === 0
  ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
  : {});

/** initdb and start a server with `settings` (`-c name=value`). */
export async function startSystemPostgres(settings: Record<string, string> = {}, major = 15): Promise<SystemPostgres> {
  const bin = `/usr/lib/postgresql/${major}/bin`;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-syspg-'));
  fs.chmodSync(folder, 0o777);
  const dataDir = path.join(folder, 'data');
  const pwfile = path.join(folder, 'pw');
  fs.writeFileSync(pwfile, 'postgres\n', { mode: 0o644 });
  execFileSync(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--pwfile', pwfile, '--auth', 'scram-sha-256', '-E', 'UTF8', '--locale', 'C'], { ...asPostgres(), stdio: 'ignore' });
  const port = await freePort();
  const args = ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${folder}`, '-c', 'timezone=UTC', '-c', 'max_connections=200',
    ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
  const spawnServer = (): ChildProcess => spawn(path.join(bin, 'postgres'), args, { ...asPostgres(), stdio: 'ignore' });
  let child: ChildProcess | null = spawnServer();
  const sql = async (text: string, values?: unknown[]): Promise<pg.QueryResult> => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres' });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const started = async (): Promise<void> => {
    const deadline = Date.now() + 30_000;
    while (!(await sql('SELECT 1').then(() => true, () => false))) {
      if (Date.now() > deadline) throw new Error(`PostgreSQL ${major} on port ${port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await started();
  return {
    port,
    dataDir,
    sql,
    async kill() {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child?.kill('SIGKILL');
      await exited;
      // Backends outlive a killed postmaster for a moment: wait until none holds the data directory.
      while (fs.existsSync(path.join(dataDir, 'postmaster.pid')) && (await sql('SELECT 1').then(() => true, () => false))) await new Promise((r) => setTimeout(r, 100));
    },
    async restart() {
      child = spawnServer();
      await started();
    },
    async stop() {
      if (child !== null && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        child.kill('SIGQUIT');
        await exited;
      }
      child = null;
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
