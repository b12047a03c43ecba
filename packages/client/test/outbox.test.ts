/**
 * The outbox from the SDK (docs/client.md "Push through your database"): `push(items, { db })` goes through
 * the caller's own `pg` client, inside its transaction, to the SQL API's `queen.produce`, against a real
 * PostgreSQL and a real broker. A rollback delivers nothing; a commit delivers to an HTTP consumer with the
 * payload, transactionId and order; results, duplicates and failures are those of an HTTP push.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { serverConnection, uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { UUID_V7 } from '../../server/test/support/messaging.js';
import { QueenError, type PushItem, type PushResultItem } from '../src/index.js';
import { testClient } from './support.js';

interface Order {
  orderId: number;
  total: number;
}

const setup = useBroker({}, async ({ db }) => {
  await db.query('CREATE TABLE orders (id integer PRIMARY KEY, total integer NOT NULL)');
});
const queen = () => testClient(setup.broker.url);
const opened: Array<{ end(): Promise<void> }> = [];
after(async () => {
  for (const c of opened) await c.end().catch(() => undefined);
});

/** An application's own connection to the broker's database. */
async function appClient(): Promise<pg.Client> {
  const c = new pg.Client(serverConnection(setup.db.name));
  await c.connect();
  opened.push(c);
  return c;
}

async function orderRows(ids: number[]): Promise<number> {
  const { rows } = await setup.db.query<{ n: string }>('SELECT count(*) AS n FROM orders WHERE id = ANY($1)', [ids]);
  return Number(rows[0]!.n);
}

describe('push through the caller\'s database client', () => {
  test('rolled back with the business row: nothing is ever delivered, not even to a parked consumer', async () => {
    const name = uniqueQueue('outbox');
    const q = queen();
    await q.queue(name).create();
    const app = await appClient();
    const parked = q.queue<Order>(name).partition('p').batch(10).wait(true).timeoutMillis(1500).pop();
    await app.query('BEGIN');
    await app.query('INSERT INTO orders (id, total) VALUES (1, 100)');
    const results = await q.queue<Order>(name).partition('p').push([{ data: { orderId: 1, total: 100 } }], { db: app });
    assert.equal(results.length, 1);
    assert.equal(results[0]!.status, 'queued', 'inside the transaction the push is answered like an HTTP push');
    await app.query('ROLLBACK');
    assert.deepEqual(await parked, [], 'the parked pop was not woken and found nothing');
    assert.deepEqual(await q.queue(name).partition('p').batch(10).wait(false).pop(), []);
    assert.equal(await orderRows([1]), 0);
    await q.close();
  });

  test('committed with the business row: a parked HTTP consumer gets payload, transactionId and order', async () => {
    const name = uniqueQueue('outbox');
    const q = queen();
    await q.queue(name).create();
    const app = await appClient();
    const parked = q.queue<Order>(name).partition('p').batch(10).wait(true).timeoutMillis(10_000).pop();
    await new Promise((r) => setTimeout(r, 150));
    await app.query('BEGIN');
    await app.query('INSERT INTO orders (id, total) VALUES (2, 200), (3, 300), (4, 400)');
    const results: PushResultItem[] = await q
      .queue<Order>(name)
      .partition('p')
      .push([{ data: { orderId: 2, total: 200 } }, { payload: { orderId: 3, total: 300 }, transactionId: 'order-3' }, { orderId: 4, total: 400 }], { db: app });
    const ids = results.map((r) => r.transaction_id);
    assert.match(ids[0]!, UUID_V7, 'the SDK mints transactionIds as for HTTP');
    assert.equal(ids[1], 'order-3');
    const early = await q.queue(name).partition('p').batch(10).wait(false).pop();
    assert.deepEqual(early, [], 'nothing is visible before the commit');
    await app.query('COMMIT');
    const started = Date.now();
    const msgs = await parked;
    assert.ok(Date.now() - started < 5000, 'the commit woke the parked pop');
    assert.deepEqual(msgs.map((m) => m.data), [{ orderId: 2, total: 200 }, { orderId: 3, total: 300 }, { orderId: 4, total: 400 }]);
    assert.deepEqual(msgs.map((m) => m.transactionId), ids);
    assert.deepEqual(
      msgs.map((m) => m.id),
      results.map((r) => (r.status === 'queued' ? r.message_id : 'not queued')),
    );
    assert.equal(await orderRows([2, 3, 4]), 3);
    await q.close();
  });

  test('results have the shape of an HTTP push; a repeated transactionId is a duplicate (onDuplicate), through a pool client', async () => {
    const name = uniqueQueue('outbox');
    const q = queen();
    const overHttp = await q.queue(name).partition('p').push([{ data: 'http', traceId: '0198f2d3-1b2c-7a00-8c11-5e6f708192a3' }]);
    const pool = new pg.Pool({ ...serverConnection(setup.db.name), max: 1 } as pg.PoolConfig);
    opened.push(pool);
    const conn = await pool.connect();
    try {
      await conn.query('BEGIN');
      const viaDb = await q.queue(name).partition('p').push([{ data: 'sql', traceId: '0198f2d3-1b2c-7a00-8c11-5e6f708192a4' }], { db: conn });
      await conn.query('COMMIT');
      assert.deepEqual(Object.keys(viaDb[0]!).sort(), Object.keys(overHttp[0]!).sort());
      assert.deepEqual({ ...viaDb[0]!, transaction_id: '', message_id: '', trace_id: '' }, { ...overHttp[0]!, transaction_id: '', message_id: '', trace_id: '' });
      assert.equal((viaDb[0] as { trace_id: string }).trace_id, '0198f2d3-1b2c-7a00-8c11-5e6f708192a4');

      let duplicates: PushItem[] = [];
      await conn.query('BEGIN');
      const again = await q
        .queue(name)
        .partition('p')
        .push([{ data: 'again', transactionId: viaDb[0]!.transaction_id }], { db: conn })
        .onDuplicate((items) => {
          duplicates = items;
        });
      await conn.query('COMMIT');
      assert.equal(again[0]!.status, 'duplicate');
      assert.equal(duplicates[0]?.transactionId, viaDb[0]!.transaction_id);
    } finally {
      conn.release();
    }
    const all = await q.queue(name).partition('p').batch(10).wait(false).pop();
    assert.deepEqual(all.map((m) => m.data), ['http', 'sql']);
    await q.close();
  });

  test('input the database refuses rejects with DATABASE (SQLSTATE in the cause) even with onError; the transaction is aborted', async () => {
    const name = uniqueQueue('outbox');
    const q = queen();
    const app = await appClient();
    await app.query('BEGIN');
    await app.query('INSERT INTO orders (id, total) VALUES (5, 500)');
    let onErrorCalled = false;
    const error = await q
      .queue(name)
      .push([{ data: 1, transactionId: 'x'.repeat(300) }], { db: app })
      .onError(() => {
        onErrorCalled = true;
      })
      .then(
        () => assert.fail('expected a rejection'),
        (e: unknown) => e,
      );
    assert.ok(error instanceof QueenError);
    assert.equal(error.code, 'DATABASE');
    assert.match(error.message, /transactionId must be at most 255 characters/);
    assert.equal((error.cause as { code?: string }).code, '22023');
    assert.equal(onErrorCalled, false);
    await assert.rejects(app.query('SELECT 1'), /current transaction is aborted/);
    await app.query('ROLLBACK');
    assert.equal(await orderRows([5]), 0);
    assert.deepEqual(await q.queue(name).wait(false).pop(), []);
    await q.close();
  });
});
