/**
 * Work stops for clients that left, and one route cannot starve the others: administrative requests hold at
 * most DB_POOL_ADMIN_CONNECTIONS connections, a request whose client disconnects leaves the queue and has
 * its statement cancelled; `/health`, pushes and acks keep their connections through a flood. Transactions
 * are capped (TRANSACTION_MAX_OPERATIONS, 413) and cost what one push of their items costs.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, test } from 'node:test';
import pg from 'pg';
import { serverConnection, uniqueQueue, useBroker } from '../support/harness.js';

const MAX_OPERATIONS = 5000;
const setup = useBroker({
  SERVER_ID: 'bounded-work',
  DB_POOL_SIZE: '4',
  DB_POOL_ADMIN_CONNECTIONS: '2',
  // Blocked statements stay blocked for the whole test unless something cancels them.
  DB_LOCK_TIMEOUT: '120000',
  DB_STATEMENT_TIMEOUT: '120000',
  TRANSACTION_MAX_OPERATIONS: String(MAX_OPERATIONS),
});

/** Sends a GET and resets the connection after `ms` (the client gives up). */
function abandon(url: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get(url, () => undefined);
    req.on('error', () => resolve());
    setTimeout(() => {
      req.destroy();
      resolve();
    }, ms);
  });
}

/** The broker's sessions waiting on a lock. */
async function blockedSessions(database: string): Promise<number> {
  const res = await setup.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = $1 AND application_name LIKE 'queen:bounded-work%' AND wait_event_type = 'Lock'`,
    [database],
  );
  return res.rows[0]!.n;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

describe('abandoned administrative requests', () => {
  test('40 DLQ reads blocked on a lock whose clients leave after 50 ms: /health and pushes still answer, no statement is left behind', async () => {
    const locker = new pg.Client(serverConnection(setup.db.name));
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE queen.dead_letters IN ACCESS EXCLUSIVE MODE');
      await Promise.all(Array.from({ length: 40 }, () => abandon(`${setup.broker.url}/api/v1/dlq`, 50)));
      for (let i = 0; i < 5; i++) {
        const health = await timed(() => setup.api.get('/health'));
        assert.equal(health.value.status, 200, health.value.text);
        assert.ok(health.ms < 1500, `/health took ${health.ms} ms`);
      }
      const queue = uniqueQueue('flood');
      const pushed = await timed(() => setup.api.push([{ queue, transactionId: 'during-flood', payload: { ok: true } }]));
      assert.equal(pushed.value.status, 201, pushed.value.text);
      assert.ok(pushed.ms < 1500, `push took ${pushed.ms} ms`);
      // The statements of the requests that left were cancelled: nothing of the broker waits on the lock.
      let blocked = await blockedSessions(setup.db.name);
      for (let i = 0; i < 30 && blocked > 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        blocked = await blockedSessions(setup.db.name);
      }
      assert.equal(blocked, 0, 'statements of abandoned requests still wait on the lock');
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    // The broker serves administrative reads again.
    const dlq = await setup.api.get('/api/v1/dlq');
    assert.equal(dlq.status, 200);
  });
});

describe('transactions are bounded', () => {
  const ops = (queue: string, count: number): unknown[] =>
    Array.from({ length: count }, (_, i) => ({ type: 'push', items: [{ queue, partition: `p${i % 4}`, transactionId: `t-${i}`, payload: { i } }] }));

  test(`more than ${MAX_OPERATIONS} operations: 413 naming the limit, nothing written`, async () => {
    const queue = uniqueQueue('txn-over');
    const res = await setup.api.post('/api/v1/transaction', { operations: ops(queue, MAX_OPERATIONS + 1) });
    assert.equal(res.status, 413);
    assert.deepEqual(res.json, { error: `Transaction too large: ${MAX_OPERATIONS + 1} operations, at most ${MAX_OPERATIONS} (TRANSACTION_MAX_OPERATIONS)` });
    const stored = await setup.db.query('SELECT 1 FROM queen.queues WHERE name = $1', [queue]);
    assert.equal(stored.rowCount, 0);
    // The connection stays usable after the refusal.
    assert.equal((await setup.api.get('/health')).status, 200);
  });

  test(`${MAX_OPERATIONS} one-item push operations commit as one write: a few segments, not one per operation`, async () => {
    const queue = uniqueQueue('txn-max');
    const { value: res, ms } = await timed(() => setup.api.post('/api/v1/transaction', { operations: ops(queue, MAX_OPERATIONS) }));
    assert.equal(res.status, 200, res.text.slice(0, 200));
    assert.equal(res.json.success, true);
    assert.equal(res.json.results.length, MAX_OPERATIONS);
    const counts = await setup.db.query<{ segments: number; messages: number }>(
      `SELECT count(*)::int AS segments, sum(cardinality(s.message_ids))::int AS messages
       FROM queen.segments s JOIN queen.partitions p ON p.id = s.partition_id JOIN queen.queues q ON q.id = p.queue_id
       WHERE q.name = $1`,
      [queue],
    );
    assert.equal(counts.rows[0]!.messages, MAX_OPERATIONS);
    assert.ok(counts.rows[0]!.segments <= 40, `${counts.rows[0]!.segments} segments for ${MAX_OPERATIONS} operations`);
    assert.ok(ms < 30_000, `took ${ms} ms`);
  });

  test('a failing operation among merged pushes still rolls back everything and reports the first failure', async () => {
    const queue = uniqueQueue('txn-dup');
    const operations = [...ops(queue, 3), { type: 'push', items: [{ queue, partition: 'p0', transactionId: 't-0', payload: {} }] }, ...ops(`${queue}-b`, 2)];
    const res = await setup.api.post('/api/v1/transaction', { operations });
    assert.equal(res.json.success, false);
    assert.equal(res.json.results.length, 4);
    assert.equal(res.json.results[3].error, 'Duplicate transactionId: t-0');
    const stored = await setup.db.query('SELECT 1 FROM queen.queues WHERE name = $1', [queue]);
    assert.equal(stored.rowCount, 0);
  });
});
