/**
 * Start-up that fails cleans up after itself (broker.ts, boot/): real broker processes with an embedded
 * PostgreSQL of their own. A second broker on a taken HTTP port exits 1 with one line before it starts
 * PostgreSQL or migrates anything; a step failing after the embedded PostgreSQL started stops it again.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { client, createDatabase, freePort, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');
/** No PG_* variables: the broker starts an embedded PostgreSQL under QUEEN_DATA_DIR. */
const EMBEDDED: TestDatabase = { name: 'embedded', env: {}, query: () => Promise.reject(new Error('embedded')), close: async () => undefined };

const tempDirs: string[] = [];
let first: BrokerProcess | undefined;
let firstDataDir: string;
let firstPgPort: number;

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-boot-'));
  tempDirs.push(dir);
  return dir;
}

/** Runs the broker until it exits on its own; its exit code and everything it wrote. */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', QUEEN_WORKERS: '1', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    });
  });
}

/** The PostgreSQL processes running on `dataDir` (pgrep exits 1 when there are none). */
function postgresOn(dataDir: string): string {
  try {
    return execFileSync('pgrep', ['-af', `postgres.*-D ${dataDir}`], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/** Asserts nothing of PostgreSQL runs on the data directory (a stop that just returned may need a moment). */
async function assertNoPostgres(pgdata: string): Promise<void> {
  const until = Date.now() + 3000;
  while (Date.now() < until && (fs.existsSync(path.join(pgdata, 'postmaster.pid')) || postgresOn(pgdata) !== '')) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(fs.existsSync(path.join(pgdata, 'postmaster.pid')), false, `${pgdata}/postmaster.pid is left`);
  assert.equal(postgresOn(pgdata), '', 'a PostgreSQL process is left');
}

before(async () => {
  firstDataDir = tempDir();
  firstPgPort = await freePort();
  first = await startBroker(EMBEDDED, { QUEEN_DATA_DIR: firstDataDir, QUEEN_EMBEDDED_PG_PORT: String(firstPgPort) });
});

after(async () => {
  await first?.stop();
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

test('a second broker on a taken port exits 1 with one line and starts no PostgreSQL', async () => {
  const dataDir = tempDir();
  const result = await runToExit({ PORT: String(first!.port), QUEEN_DATA_DIR: dataDir, QUEEN_EMBEDDED_PG_PORT: String(await freePort()) });
  assert.equal(result.code, 1);
  assert.equal(result.output, `Queen broker failed to start: port ${first!.port} is already in use (set PORT)\n`);
  await assertNoPostgres(path.join(dataDir, 'pgdata'));
});

test('a broker on a taken port applies no migrations to a fresh database', async () => {
  const db = await createDatabase();
  try {
    const result = await runToExit({ ...db.env, PORT: String(first!.port) });
    assert.equal(result.code, 1);
    assert.equal(result.output, `Queen broker failed to start: port ${first!.port} is already in use (set PORT)\n`);
    const schemas = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'queen'");
    assert.equal(schemas.rows[0]!.n, 0);
  } finally {
    await db.close();
  }
});

test('a second broker on the same QUEEN_DATA_DIR exits 1 with one line and leaves the first one\'s files as they were', { timeout: 180_000 }, async () => {
  // A broker that chose its embedded port itself (remembered in the data directory).
  const dataDir = tempDir();
  const owner = await startBroker(EMBEDDED, { QUEEN_DATA_DIR: dataDir });
  try {
    const pgdata = path.join(dataDir, 'pgdata');
    const portFile = path.join(pgdata, 'queen-embedded.port');
    const before = { port: fs.readFileSync(portFile, 'utf8'), pid: fs.readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8'), portMtime: fs.statSync(portFile).mtimeMs };
    const pgPort = Number(before.port);
    const pgPid = Number(before.pid.split('\n')[0]);

    for (const extra of [{} as Record<string, string>, { QUEEN_EMBEDDED_PG_PORT: String(await freePort()) }]) {
      const result = await runToExit({ PORT: String(await freePort()), QUEEN_DATA_DIR: dataDir, ...extra });
      assert.equal(result.code, 1, result.output);
      assert.equal(
        result.output,
        `Queen broker failed to start: QUEEN_DATA_DIR ${dataDir} is in use by another broker's embedded PostgreSQL (pid ${pgPid}, port ${pgPort}): ` +
          `give this broker its own QUEEN_DATA_DIR, or set DATABASE_URL (postgres://postgres:postgres@localhost:${pgPort}/postgres) to share that database\n`,
      );
    }
    assert.equal(fs.readFileSync(portFile, 'utf8'), before.port);
    assert.equal(fs.statSync(portFile).mtimeMs, before.portMtime);
    assert.equal(fs.readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8'), before.pid);
    // The first broker still serves, on the same PostgreSQL.
    const pushed = await client(owner.url).push([{ queue: uniqueQueue('same-dir'), payload: 1 }]);
    assert.equal(pushed.status, 201, pushed.text);
  } finally {
    assert.equal(await owner.stop(), 0);
  }
  // The next start of the first broker finds its PostgreSQL on the port it had.
  const again = await startBroker(EMBEDDED, { QUEEN_DATA_DIR: dataDir });
  try {
    assert.equal(fs.readFileSync(path.join(dataDir, 'pgdata', 'queen-embedded.port'), 'utf8').trim(), String(Number(fs.readFileSync(path.join(dataDir, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[3])));
  } finally {
    await again.stop();
  }
});

test('a step failing after the embedded PostgreSQL started stops it again: one line, exit 1', async () => {
  // Break the schema under the running broker (a table the write path reads at start-up), then stop it.
  const admin = new pg.Client({ host: '127.0.0.1', port: firstPgPort, user: 'postgres', password: 'postgres', database: 'postgres' });
  await admin.connect();
  try {
    await admin.query('DROP TABLE queen.system_state');
  } finally {
    await admin.end();
  }
  assert.equal(await first!.stop(), 0);
  const pgdata = path.join(firstDataDir, 'pgdata');
  await assertNoPostgres(pgdata);

  const result = await runToExit({ PORT: String(await freePort()), QUEEN_DATA_DIR: firstDataDir, QUEEN_EMBEDDED_PG_PORT: String(firstPgPort) });
  assert.equal(result.code, 1, result.output);
  assert.match(result.output, /^Queen broker failed to start: [^\n]*system_state[^\n]*\n$/);
  await assertNoPostgres(pgdata);
});
