/**
 * Start-up against a database that is not reachable yet (docs/api.md 9.8 rule 1): the broker waits for it
 * instead of exiting, so a broker and its PostgreSQL can be started together. While it waits, it prints one
 * line per attempt, gives up after DB_STARTUP_WAIT_MS with a hint, and SIGINT/SIGTERM end the wait at once.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { client, createDatabase, freePort, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';

let db: TestDatabase;
let broker: BrokerProcess | undefined;
let proxy: net.Server | undefined;

before(async () => {
  db = await createDatabase();
});
after(async () => {
  await broker?.stop();
  proxy?.close();
  await db?.close();
});

/** Where the test database really is. */
function realAddress(): { host: string; port: number } {
  if (db.env.DATABASE_URL !== undefined) {
    const url = new URL(db.env.DATABASE_URL);
    return { host: url.hostname, port: Number(url.port || 5432) };
  }
  return { host: db.env.PG_HOST!, port: Number(db.env.PG_PORT) };
}

/** The broker environment that reaches the test database through `port` instead. */
function throughPort(port: number): Record<string, string> {
  if (db.env.DATABASE_URL === undefined) return { PG_HOST: '127.0.0.1', PG_PORT: String(port) };
  const url = new URL(db.env.DATABASE_URL);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { DATABASE_URL: url.toString() };
}

/** A TCP proxy on `port` to the test PostgreSQL. */
function proxyOn(port: number): Promise<net.Server> {
  const target = realAddress();
  return new Promise((resolve) => {
    const server = net.createServer((socket) => {
      const upstream = net.connect(target.port, target.host);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

test('a broker started before its database is reachable waits for it, then serves', async () => {
  const port = await freePort();
  const firstFailure = /PostgreSQL at 127\.0\.0\.1:\d+ not reachable \(connection refused: nothing listens there\); attempt 1 failed, next in 0\.2 s/;
  // The database appears once the broker said that its first attempt failed.
  let listening: Promise<net.Server> | undefined;
  broker = await startBroker(db, throughPort(port), (output) => {
    if (listening === undefined && firstFailure.test(output)) listening = proxyOn(port);
  });
  assert.ok(listening !== undefined, broker.output());
  proxy = await listening;

  const queue = uniqueQueue('late-db');
  const api = client(broker.url);
  const pushed = await api.push([{ queue, payload: { n: 1 } }]);
  assert.equal(pushed.status, 201, pushed.text);
  assert.equal(pushed.json[0].status, 'queued');
});

/**
 * The output's lines without the one that says the broker serves without its database (docs/api.md 9.8 rule
 * 3), which must be there exactly once, after the first failed attempt.
 */
function attemptLines(output: string): string[] {
  const lines = output.trimEnd().split('\n');
  const serving = lines.findIndex((line) => / WARN {2}PostgreSQL at 127\.0\.0\.1:\d+ is not reachable: serving without it; pushes are buffered until it answers and the schema is migrated port=\d+ directory=/.test(line));
  assert.ok(serving >= 1, output);
  assert.equal(lines.filter((line) => line.includes('serving without it')).length, 1, output);
  return lines.filter((_, i) => i !== serving);
}

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');

/** A broker process started on `env` (no PG_* of the test run), with everything it writes. */
function spawnBroker(env: Record<string, string>): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', QUEEN_WORKERS: '1', HOST: '127.0.0.1', PORT: '0', LOG_FORMAT: 'pretty', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

/** Waits until `output()` holds `count` matches of `pattern`. */
async function waitForLines(output: () => string, pattern: RegExp, count: number): Promise<void> {
  const until = Date.now() + 60_000;
  while ((output().match(new RegExp(pattern.source, 'g')) ?? []).length < count) {
    assert.ok(Date.now() < until, `no ${count} lines like ${pattern} in:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A TCP port nothing listens on (bound and released). */
const closedPort = freePort;

/** A host that accepts TCP connections and never answers; `reached` settles at its first connection. */
async function silentHost(): Promise<{ port: number; reached: Promise<void>; close: () => void }> {
  let reach: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    reach();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = (): void => {
    server.close();
    for (const socket of sockets) socket.destroy();
  };
  return { port: (server.address() as net.AddressInfo).port, reached, close };
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`${signal} while waiting for an unreachable DATABASE_URL exits at once and says what it waited for`, async () => {
    const port = await closedPort();
    const run = spawnBroker({ DATABASE_URL: `postgres://queen:secret@127.0.0.1:${port}/queen` });
    await waitForLines(run.output, /not reachable \(connection refused: nothing listens there\); attempt \d+ failed/, 2);
    const sentAt = Date.now();
    run.child.kill(signal);
    const code = await run.exit;
    const tookMs = Date.now() - sentAt;
    assert.ok(tookMs < 2000, `exited ${tookMs} ms after ${signal}`);
    assert.equal(code, 1);
    const lines = attemptLines(run.output());
    assert.equal(lines.at(-1), `Queen broker failed to start: start-up interrupted by ${signal} while waiting for PostgreSQL at 127.0.0.1:${port} (connection refused: nothing listens there)`);
    // One line per attempt: where, why, when the next one is; no stack, no password.
    for (const line of lines.slice(0, -1)) {
      assert.match(line, new RegExp(`^\\d\\d:\\d\\d:\\d\\d WARN  PostgreSQL at 127\\.0\\.0\\.1:${port} not reachable \\(connection refused: nothing listens there\\); attempt \\d+ failed, next in [\\d.]+ s$`));
    }
    assert.doesNotMatch(run.output(), /secret|\n\s+at /);
  });
}

test('SIGINT while looking for a primary among several unreachable hosts exits at once', async () => {
  // Two hosts that accept connections and never answer: the broker's search for a primary is under way once
  // both were reached (one attempt lasts up to DB_CONNECT_TIMEOUT_MS); interrupt it then.
  const silent = await Promise.all([silentHost(), silentHost()]);
  const ports = silent.map((host) => host.port);
  const run = spawnBroker({ DATABASE_URL: `postgres://queen:secret@127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}/queen`, DB_CONNECT_TIMEOUT_MS: '20000' });
  try {
    await Promise.all(silent.map((host) => host.reached));
    const sentAt = Date.now();
    run.child.kill('SIGINT');
    const code = await run.exit;
    assert.ok(Date.now() - sentAt < 2000, `exited ${Date.now() - sentAt} ms after SIGINT`);
    assert.equal(code, 1);
    assert.match(run.output(), new RegExp(`Queen broker failed to start: start-up interrupted by SIGINT while waiting for PostgreSQL at 127\\.0\\.0\\.1:${ports[0]}, 127\\.0\\.0\\.1:${ports[1]}\n$`));
  } finally {
    run.child.kill('SIGKILL');
    for (const host of silent) host.close();
  }
});

test('a database still unreachable after DB_STARTUP_WAIT_MS: one line per attempt, then the reason and a hint', async () => {
  const port = await closedPort();
  const run = spawnBroker({ PG_HOST: '127.0.0.1', PG_PORT: String(port), DB_STARTUP_WAIT_MS: '1500' });
  assert.equal(await run.exit, 1);
  const lines = attemptLines(run.output());
  assert.ok(lines.length >= 3 && lines.length <= 6, run.output());
  for (const line of lines.slice(0, -1)) assert.match(line, /WARN {2}PostgreSQL at 127\.0\.0\.1:\d+ not reachable \(connection refused: nothing listens there\); attempt \d+ failed, next in [\d.]+ s$/);
  assert.equal(
    lines.at(-1),
    `Queen broker failed to start: PostgreSQL at 127.0.0.1:${port} is not reachable after 1.5 s (connection refused: nothing listens there). ` +
      'Check that PostgreSQL runs there and accepts TCP connections, and check PG_HOST/PG_PORT (without DATABASE_URL and PG_HOST the broker starts an embedded PostgreSQL; DB_STARTUP_WAIT_MS waits longer)',
  );
});
