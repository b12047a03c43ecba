/**
 * Operations hardening of real broker processes (issue 13 items 6, 8, 9, 10; docs/api.md 1.1 rule 2, 9.8, 10):
 * slow bodies are cut while long polls are not, two brokers with embedded PostgreSQL share a host, a malformed
 * variable stops the start-up naming it, and no pg deprecation warning is printed by the status routes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { client, startBroker, uniqueQueue, useBroker, type BrokerProcess, type TestDatabase } from '../support/harness.js';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');

describe('item 6: slow bodies', () => {
  const setup = useBroker({ HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '1000' });

  test('a body that never finishes is answered 408 and its connection closed; a long poll outlives the request timeout', async () => {
    const started = Date.now();
    const outcome = await new Promise<{ text: string; closedAfterMs: number }>((resolve, reject) => {
      const socket = net.connect(setup.broker.port, '127.0.0.1', () => {
        socket.write('POST /api/v1/push HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"items":[');
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }));
      socket.on('error', reject);
      setTimeout(() => reject(new Error('the stalled connection was not closed within 10 s')), 10_000).unref();
    });
    assert.match(outcome.text, /^HTTP\/1.1 408/);
    assert.ok(outcome.closedAfterMs >= 900 && outcome.closedAfterMs < 5000, `closed after ${outcome.closedAfterMs} ms`);

    const queue = uniqueQueue('slow');
    const parked = setup.api.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=6000`);
    await new Promise((r) => setTimeout(r, 2500)); // well past the 1 s request timeout
    assert.equal((await setup.api.push([{ queue, payload: 'late' }])).status, 201);
    const res = await parked;
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.messages[0].data, 'late');
  });
});

describe('item 10: one query at a time per client', () => {
  const setup = useBroker({ LOG_LEVEL: 'info' });

  test('GET /api/v1/status and the worker metrics print no pg DeprecationWarning', async () => {
    for (const route of ['/api/v1/status', '/api/v1/analytics/worker-metrics', '/api/v1/status', '/api/v1/analytics/worker-metrics']) {
      assert.equal((await setup.api.get(route)).status, 200, route);
    }
    await new Promise((r) => setTimeout(r, 200));
    assert.doesNotMatch(setup.broker.output(), /DeprecationWarning|already executing a query/);
  });
});

describe('item 9: malformed variables', () => {
  test('PORT=abc stops the start-up with exit code 2 and a message naming PORT', async () => {
    const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', QUEEN_WORKERS: '1', PORT: 'abc', PG_HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 2);
    assert.match(output, /configuration error: PORT must be an integer between 0 and 65535 \(got abc\)/);
  });
});

describe('item 8: two brokers with embedded PostgreSQL on one host', () => {
  test('each picks a free port, remembers it in its data directory, and a start error says what failed', { timeout: 180_000 }, async () => {
    const dirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'queen-embedded-')));
    const noDatabase: TestDatabase = { name: 'embedded', env: {}, query: () => Promise.reject(new Error('no')), close: async () => undefined };
    const brokers: BrokerProcess[] = [];
    try {
      for (const dir of dirs) brokers.push(await startBroker(noDatabase, { QUEEN_DATA_DIR: dir, LOG_LEVEL: 'info' }));
      const ports = dirs.map((dir) => Number(fs.readFileSync(path.join(dir, 'pgdata', 'queen-embedded.port'), 'utf8')));
      assert.notEqual(ports[0], ports[1]);
      for (const broker of brokers) {
        const queue = uniqueQueue('emb');
        assert.equal((await client(broker.url).push([{ queue, payload: broker.port }])).status, 201);
      }
      // The next start of the first broker finds its remembered port again.
      await brokers.shift()!.stop();
      brokers.unshift(await startBroker(noDatabase, { QUEEN_DATA_DIR: dirs[0]!, LOG_LEVEL: 'info' }));
      assert.equal(Number(fs.readFileSync(path.join(dirs[0]!, 'pgdata', 'queen-embedded.port'), 'utf8')), ports[0]);

      // A configured port that is taken: the start fails with PostgreSQL's reason, not "undefined".
      const third = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-embedded-'));
      dirs.push(third);
      const child = spawn(process.execPath, [MAIN], {
        env: { PATH: process.env.PATH ?? '', QUEEN_WORKERS: '1', QUEEN_DATA_DIR: third, QUEEN_EMBEDDED_PG_PORT: String(ports[1]), PORT: '0', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
      child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 1);
      assert.match(output, new RegExp(`Queen broker failed to start: Error: embedded PostgreSQL failed to start on port ${ports[1]}`));
      assert.doesNotMatch(output, /failed to start: undefined/);
    } finally {
      for (const broker of brokers) await broker.stop();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
