/**
 * What can go wrong in a database move: a switch that cannot finish is rolled back to the source (nothing
 * lost, the status says why), and a move whose broker died is taken over by the broker that starts next.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { client, uniqueQueue } from '../support/harness.js';
import { drain } from '../support/buffering.js';
import type { SystemPostgres } from '../support/system-postgres.js';
import { MovePair } from '../support/move-pair.js';

const move = new MovePair({ env: { MIGRATION_SWITCH_TIMEOUT_MS: '3000' } });

test('a switch that cannot finish is rolled back: the status says why, the source takes writes again, nothing lost', async () => {
  const api = client(move.broker.url);
  const queue = uniqueQueue('rollback');
  for (let n = 1; n <= 20; n++) assert.equal((await api.push([{ queue, partition: 'p', transactionId: `p-${n}`, payload: { n } }])).status, 201);
  // The target's apply worker cannot apply the marker while this session holds its table: the switch times out.
  const blocker = new pg.Client({ host: '127.0.0.1', port: move.target.port, user: 'postgres', password: 'postgres', database: 'postgres' });
  await blocker.connect();
  try {
    assert.equal((await api.post('/api/v1/migration/start', move.targetBody())).status, 202);
    for (;;) {
      const { rows } = await blocker.query(`SELECT srsubstate FROM pg_subscription_rel WHERE srrelid = to_regclass('queen.database_move_marker')`).catch(() => ({ rows: [] as any[] }));
      if (rows[0]?.srsubstate === 'r') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE queen.database_move_marker IN ACCESS EXCLUSIVE MODE');
    const failed = await move.statusUntil((s) => s.status === 'error');
    assert.match(failed.error, /^the switch did not finish \(not done within 3 s\); rolled back to the source, nothing lost$/);
  } finally {
    await blocker.end();
  }
  for (let n = 21; n <= 30; n++) {
    const res = await api.push([{ queue, partition: 'p', transactionId: `p-${n}`, payload: { n } }]);
    assert.equal(res.status, 201);
  }
  const got = await drain(api, queue, new Map([['p', 30]]));
  assert.deepEqual(got.get('p'), Array.from({ length: 30 }, (_, i) => `p-${i + 1}`));
  assert.ok((await move.source.sql(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'queen:%'`)).rows[0].n > 0, 'the broker works on the source');
  // The clean-up waited for the lock: the replication is gone, and the target empty for the next attempt.
  const count = async (server: SystemPostgres, what: string): Promise<number> => (await server.sql(`SELECT count(*)::int AS n FROM ${what}`)).rows[0].n;
  const deadline = Date.now() + 20_000;
  while ((await count(move.source, 'pg_publication')) + (await count(move.target, 'pg_subscription')) + (await count(move.source, 'pg_replication_slots')) + (await count(move.target, 'queen.segments')) > 0) {
    assert.ok(Date.now() < deadline, 'publication, subscription and slot dropped, target emptied');
    await new Promise((r) => setTimeout(r, 100));
  }
});

test('a move whose broker died is taken over by the next broker, which finishes it and follows', async () => {
  const api = client(move.broker.url);
  const queue = uniqueQueue('takeover');
  for (let n = 1; n <= 10; n++) assert.equal((await api.push([{ queue, partition: 'p', transactionId: `p-${n}`, payload: { n } }])).status, 201);
  const started = await api.post('/api/v1/migration/start', move.targetBody());
  assert.equal(started.status, 202, started.text);
  await move.broker.kill();
  await move.restartBroker();
  const done = await move.statusUntil((s) => s.status === 'complete' || s.status === 'error', 90_000);
  assert.equal(done.status, 'complete', JSON.stringify(done));
  await move.broker.outputMatching(/its driver went silent, taking it over/);
  await move.everyBrokerOnTarget();
  await move.broker.outputMatching(/database moved: following to the target/);
  const current = client(move.broker.url);
  const got = await drain(current, queue, new Map([['p', 10]]));
  assert.deepEqual(got.get('p'), Array.from({ length: 10 }, (_, i) => `p-${i + 1}`));
});
