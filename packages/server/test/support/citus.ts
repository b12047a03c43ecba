/**
 * A local Citus cluster of the test file's own: a coordinator and workers (PostgreSQL 15 with Citus 13, started
 * by ../shared/citus/cluster.sh in a temporary folder on free consecutive ports), stopped and removed after the
 * file. Citus is a test dependency, not part of the product (docs/scale-out.md). Without it installed the
 * `before` hook fails, saying what to install: a Citus test never skips.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import pg from 'pg';
import type { TestDatabase } from './harness.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
/** The cluster script of the shared Citus build (see its README). */
const CLUSTER_SH = path.resolve(REPO_ROOT, '../shared/citus/cluster.sh');
const CITUS_SO = '/usr/lib/postgresql/15/lib/citus.so';

/** The live values of a `useCitusCluster()` set-up. */
export interface CitusCluster {
  /** The coordinator's URL (database postgres, trust authentication). */
  readonly url: string;
  /** The workers' ports, in the order they were added. */
  readonly workerPorts: number[];
  /** A pool on the coordinator. */
  readonly pool: pg.Pool;
  /** Stops (fast) or starts again the worker listening on `port`: a worker that is down. */
  worker(port: number, action: 'stop' | 'start'): void;
  /** Initialises and starts one more node (the port after the last worker's) and registers it as a worker; returns its port. */
  addWorker(): Promise<number>;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A base port whose next `count` ports are free too (cluster.sh numbers the nodes consecutively). */
async function freePortRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const all = await Promise.all(Array.from({ length: count }, (_, i) => portFree(base + i)));
    if (all.every(Boolean)) return base;
  }
  throw new Error('no run of free ports found for the Citus cluster');
}

/** Starts a coordinator with `workers` workers before the file's tests and stops it after them. */
export function useCitusCluster(workers = 2): CitusCluster {
  let folder = '';
  let url = '';
  let base = 0;
  let pool: pg.Pool | undefined;
  before(async () => {
    if (!fs.existsSync(CITUS_SO) || !fs.existsSync(CLUSTER_SH)) {
      throw new Error(`Citus for PostgreSQL 15 is not installed (${CITUS_SO}, ${CLUSTER_SH}): ` +
        'apt-get install postgresql-15 libcurl4 liblz4-1 libzstd1 libpq5 && ../shared/citus/install.sh (.ci/run does both)');
    }
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-citus-'));
    base = await freePortRun(workers + 2); // one port spare for addWorker()
    url = execFileSync(CLUSTER_SH, ['start', folder, String(base), String(workers)], { encoding: 'utf8', timeout: 180_000 }).trim();
    pool = new pg.Pool({ connectionString: url, max: 4 });
  }, { timeout: 200_000 });
  after(async () => {
    await pool?.end();
    if (folder !== '') {
      execFileSync(CLUSTER_SH, ['stop', folder], { timeout: 120_000 });
      fs.rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  }, { timeout: 130_000 });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined || url === '') throw new Error('the Citus cluster is used before its before() hook ran');
    return value;
  };
  return {
    get url() { return ready(url); },
    get workerPorts() { return ready(Array.from({ length: workers }, (_, i) => base + 1 + i)); },
    get pool() { return ready(pool); },
    async addWorker() {
      const port = ready(base) + workers + 1;
      const dir = path.join(ready(folder), String(port));
      const run = (command: string, args: string[]) => execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { timeout: 120_000, stdio: 'ignore' });
      run('/usr/lib/postgresql/15/bin/initdb', ['-D', dir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8']);
      // The settings cluster.sh gives its nodes.
      fs.appendFileSync(dir + '/postgresql.conf', [`port = ${port}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${folder}/sock'`,
        "shared_preload_libraries = 'citus'", 'max_connections = 200', 'max_prepared_transactions = 100', 'wal_level = logical',
        'citus.enable_statistics_collection = off', ''].join('\n'));
      run('/usr/lib/postgresql/15/bin/pg_ctl', ['-D', dir, '-l', `${dir}.log`, '-w', 'start']);
      const node = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
      await node.connect();
      await node.query('CREATE EXTENSION IF NOT EXISTS citus').finally(() => node.end());
      await ready(pool).query(`SELECT citus_add_node('127.0.0.1', $1)`, [port]);
      return port;
    },
    worker(port, action) {
      const dir = path.join(ready(folder), String(port));
      const args = action === 'stop' ? ['-D', dir, '-m', 'fast', '-w', 'stop'] : ['-D', dir, '-l', `${dir}.log`, '-w', 'start'];
      execFileSync('runuser', ['-u', 'postgres', '--', '/usr/lib/postgresql/15/bin/pg_ctl', ...args], { timeout: 60_000, stdio: 'ignore' });
    },
  };
}

/** The cluster's coordinator as a harness database: `startBroker(citusDatabase(cluster), env)` runs a broker on it. */
export function citusDatabase(cluster: CitusCluster): TestDatabase {
  return {
    name: 'postgres',
    get env() { return { DATABASE_URL: cluster.url }; },
    query: (text, values) => cluster.pool.query(text, values),
    close: async () => undefined,
  };
}
