/**
 * Start-up against a database that is not reachable yet (API.md 9.8 rule 1): the broker waits for it
 * instead of exiting, so a broker and its PostgreSQL can be started together.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
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

/** A TCP proxy to the test PostgreSQL that starts listening on `port` only after `delayMs`. */
function lateProxy(port: number, delayMs: number): Promise<net.Server> {
  const target = realAddress();
  return new Promise((resolve) => {
    setTimeout(() => {
      const server = net.createServer((socket) => {
        const upstream = net.connect(target.port, target.host);
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      });
      server.listen(port, '127.0.0.1', () => resolve(server));
    }, delayMs);
  });
}

test('a broker started before its database is reachable waits for it, then serves', async () => {
  const port = await freePort();
  const listening = lateProxy(port, 1500);
  broker = await startBroker(db, throughPort(port));
  proxy = await listening;
  assert.match(broker.output(), /database not reachable yet; retrying/);

  const queue = uniqueQueue('late-db');
  const api = client(broker.url);
  const pushed = await api.push([{ queue, payload: { n: 1 } }]);
  assert.equal(pushed.status, 201, pushed.text);
  assert.equal(pushed.json[0].status, 'queued');
});
