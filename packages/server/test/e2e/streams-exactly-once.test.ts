/**
 * Exactly-once per source message with the official `Stream` (docs/streams.md), under faults: a worker
 * SIGKILLed with its cycle in flight and at a random point, a broker SIGKILLed mid-cycle, a PostgreSQL restart
 * mid-cycle, two workers racing for the same partitions, and a lease that runs out mid-cycle (in the worker,
 * and with the cycle already inside the broker's transaction). After each, every event-time window of the
 * source is in the sink exactly once with its exact count and sum.
 *
 * "Mid-cycle" is made deterministic by holding the shard advisory locks from the test: a cycle that reached
 * the broker then waits inside its transaction until the locks are released.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../dist/index.js';
import { client, freePort, startBroker, uniqueQueue, useBroker, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import { assertExactlyOnce, duringHeldCycle, queryIdOf, seedSource, startWorker, watermarksStored, type Worker } from '../support/stream-faults.js';
import { eventually } from '../support/streams.js';

const workers: Worker[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.kill();
});

async function worker(params: Parameters<typeof startWorker>[0]): Promise<Worker> {
  const w = await startWorker(params);
  workers.push(w);
  return w;
}

const names = () => ({ source: uniqueQueue('eo-src'), sink: uniqueQueue('eo-sink'), queryId: `test-eo-${randomUUID().slice(0, 8)}` });

describe('on one broker', () => {
  const setup = useBroker();

  test('a worker SIGKILLed with its cycle in flight, then again at a random point: every window exactly once', async () => {
    const { source, sink, queryId } = names();
    const { expected, pushRest } = await seedSource(setup.api, source);
    const first = await worker({ url: setup.broker.url, source, sink, queryId });
    // The broker carries the orphaned cycle through once the locks go: it commits whole or not at all.
    await duringHeldCycle(setup.db, { queryName: queryId, source, pushRest }, () => first.kill());
    const second = await worker({ url: setup.broker.url, source, sink, queryId });
    await new Promise((r) => setTimeout(r, 100 + Math.floor(Math.random() * 300)));
    await second.kill();
    await worker({ url: setup.broker.url, source, sink, queryId });
    await assertExactlyOnce(setup.api, sink, expected);
  });

  test('two workers racing for the same partitions: every window exactly once', async () => {
    const { source, sink, queryId } = names();
    const { expected, pushRest } = await seedSource(setup.api, source);
    await pushRest();
    const racers = await Promise.all([1, 2, 3].map(() => worker({ url: setup.broker.url, source, sink, queryId })));
    await assertExactlyOnce(setup.api, sink, expected);
    for (const r of racers) assert.deepEqual(r.errors(), []);
  });

  test('a lease that runs out while the worker computes: its late commit is refused, another worker redoes the batch once', async () => {
    const { source, sink, queryId } = names();
    const { expected, pushRest } = await seedSource(setup.api, source, 1);
    const warmUp = await worker({ url: setup.broker.url, source, sink, queryId });
    await watermarksStored(setup.db, await queryIdOf(setup.db, queryId));
    await warmUp.stop();
    const slow = await worker({ url: setup.broker.url, source, sink, queryId, slowFirstMs: 2500 });
    await pushRest();
    await eventually('the slow worker holds a batch', 10_000, () => slow.lines().some((l) => l.slow !== undefined));
    await worker({ url: setup.broker.url, source, sink, queryId });
    await assertExactlyOnce(setup.api, sink, expected);
    await eventually('the slow worker reported the refused commit', 10_000, () => slow.errors().includes('Invalid or expired lease'));
  });

  test('a lease that runs out while the cycle waits inside the broker: the cycle is refused when it resumes', async () => {
    const { source, sink, queryId } = names();
    const { expected, pushRest } = await seedSource(setup.api, source, 1);
    const w = await worker({ url: setup.broker.url, source, sink, queryId });
    // The 1 s lease runs out while the transaction waits.
    await duringHeldCycle(setup.db, { queryName: queryId, source, pushRest }, () => new Promise((r) => setTimeout(r, 1500)));
    await assertExactlyOnce(setup.api, sink, expected);
    assert.ok(w.errors().includes('Invalid or expired lease'), `errors: ${w.errors().join('; ')}`);
  });
});

describe('a broker SIGKILLed mid-cycle', () => {
  const setup = useBroker();
  let replacement: BrokerProcess | undefined;
  after(async () => {
    await replacement?.stop();
  });

  test('the cycle in flight rolls back; after a restart on the same address every window is there exactly once', async () => {
    const { source, sink, queryId } = names();
    const { expected, pushRest } = await seedSource(setup.api, source);
    await worker({ url: setup.broker.url, source, sink, queryId });
    await duringHeldCycle(setup.db, { queryName: queryId, source, pushRest }, () => setup.broker.kill());
    replacement = await startBroker(setup.db, { PORT: String(setup.broker.port) });
    await assertExactlyOnce(client(replacement.url), sink, expected);
  });
});

describe('a PostgreSQL restart mid-cycle', () => {
  let folder: string | undefined;
  let postgres: EmbeddedServer | undefined;
  let broker: BrokerProcess | undefined;
  let pool: pg.Pool | undefined;
  after(async () => {
    await broker?.stop();
    await pool?.end().catch(() => undefined);
    await postgres?.stop();
    if (folder !== undefined) fs.rmSync(folder, { recursive: true, force: true });
  });

  test('the cycle in flight rolls back; the broker reconnects; every window exactly once', async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-streams-pg-'));
    fs.chmodSync(folder, 0o777); // as root, PostgreSQL runs as `postgres` and must reach its data folder
    const port = await freePort();
    const dataDir = path.join(folder, 'pgdata');
    postgres = await startEmbeddedPostgres(dataDir, port, () => undefined, 100);
    const connection = { host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres' };
    pool = new pg.Pool({ ...connection, max: 2 });
    pool.on('error', () => undefined);
    const database: TestDatabase = {
      name: 'postgres', env: { PG_HOST: '127.0.0.1', PG_PORT: String(port), PG_USER: 'postgres', PG_PASSWORD: 'postgres', PG_DB: 'postgres' },
      query: (text, values) => pool!.query(text, values), close: async () => undefined,
    };
    broker = await startBroker(database);
    const api = client(broker.url);
    const { source, sink, queryId } = names();
    const { expected, pushRest } = await seedSource(api, source);
    await worker({ url: broker.url, source, sink, queryId });
    // Stopping PostgreSQL ends every session: the waiting cycle's transaction is gone.
    await duringHeldCycle(database, { queryName: queryId, source, pushRest, session: connection }, () => postgres!.stop());
    postgres = await startEmbeddedPostgres(dataDir, port, () => undefined, 100);
    try {
      await assertExactlyOnce(api, sink, expected, 40_000);
    } catch (error) {
      console.error(broker.output().slice(-3000));
      throw error;
    }
  });
});
