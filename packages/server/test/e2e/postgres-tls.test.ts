/**
 * TLS to PostgreSQL with the PG_* variables: a server with a self-signed certificate (made by openssl for
 * this test). PG_USE_SSL verifies the certificate: with PG_SSL_CA_FILE naming it the broker works; without
 * it start-up stops at once with one line that says what to set; PG_SSL_REJECT_UNAUTHORIZED=false accepts it.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../dist/index.js';
import { client, freePort, startBroker, uniqueQueue, type TestDatabase } from '../support/harness.js';
import { sql } from '../support/replicas.js';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');
let folder: string;
let server: EmbeddedServer;
let port: number;
let certificate: string;

before(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-pg-tls-'));
  fs.chmodSync(folder, 0o777);
  const dataDir = path.join(folder, 'pgdata');
  port = await freePort();
  await (await startEmbeddedPostgres(dataDir, port, () => undefined, 50)).stop();
  certificate = path.join(folder, 'server.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', path.join(dataDir, 'server.key'), '-out', path.join(dataDir, 'server.crt')], { stdio: 'ignore' });
  fs.copyFileSync(path.join(dataDir, 'server.crt'), certificate);
  fs.chmodSync(path.join(dataDir, 'server.key'), 0o600);
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', path.join(dataDir, 'server.key'), path.join(dataDir, 'server.crt')]);
  fs.appendFileSync(path.join(dataDir, 'postgresql.auto.conf'), "ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
  server = await startEmbeddedPostgres(dataDir, port, () => undefined, 50);
});

after(async () => {
  await server?.stop();
  fs.rmSync(folder, { recursive: true, force: true });
});

function database(env: Record<string, string>): TestDatabase {
  return { name: 'postgres', env: { PG_HOST: '127.0.0.1', PG_PORT: String(port), PG_USER: 'postgres', PG_PASSWORD: 'postgres', PG_DB: 'postgres', ...env }, query: () => Promise.reject(new Error('unused')), close: async () => undefined };
}

test('PG_USE_SSL with PG_SSL_CA_FILE: every broker session is encrypted and verified', async () => {
  const broker = await startBroker(database({ PG_USE_SSL: 'true', PG_SSL_CA_FILE: certificate }));
  try {
    const queue = uniqueQueue('tls');
    assert.equal((await client(broker.url).push([{ queue, payload: 1 }])).json[0].status, 'queued');
    const sessions = await sql(port, `SELECT bool_and(s.ssl) AS all_ssl, count(*)::int AS n FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name LIKE 'queen:%'`);
    assert.ok(sessions.rows[0].n > 0);
    assert.equal(sessions.rows[0].all_ssl, true);
  } finally {
    await broker.stop();
  }
});

test('an untrusted certificate stops start-up at once with one line naming what to set', async () => {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', QUEEN_WORKERS: '1', ...database({ PG_USE_SSL: 'true' }).env, PORT: '0', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 1);
  assert.ok(Date.now() - started < 15_000, 'not retried like an outage');
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, stderr);
  assert.match(lines[0]!, /^Queen broker failed to start: TLS to PostgreSQL at 127\.0\.0\.1:\d+ failed: self-signed certificate.*PG_SSL_CA_FILE.*PG_SSL_REJECT_UNAUTHORIZED=false$/);
});

test('PG_SSL_REJECT_UNAUTHORIZED=false accepts the certificate unverified', async () => {
  const broker = await startBroker(database({ PG_USE_SSL: 'true', PG_SSL_REJECT_UNAUTHORIZED: 'false' }));
  try {
    assert.equal((await client(broker.url).push([{ queue: uniqueQueue('tls'), payload: 1 }])).json[0].status, 'queued');
  } finally {
    await broker.stop();
  }
});
