/**
 * A partition's order across brokers' buffers (buffer/replay-order.ts, queen.buffer_holds, issue 41), on a real
 * PostgreSQL: two brokers' orders publish what their buffers hold; the broker holding a partition's newer records
 * waits while the other holds older ones, and goes on once those are replayed (its holds republished empty);
 * partitions held by one broker only never wait; a hold not refreshed for 30 s is ignored.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { BufferFile } from '../../src/buffer/log.js';
import { ReplayOrder, holdsOf } from '../../src/buffer/replay-order.js';
import { Store } from '../../src/store/index.js';
import { useSqlSessions } from '../support/hot-path.js';

const sql = useSqlSessions();

/** A buffer file holding `keys` (queue, partition), first written at the given ms. */
function file(name: string, keys: Array<[string, string, number]>): BufferFile {
  return {
    path: `/buffer/${name}.qbuf`, records: keys.length, bytes: 100, replayed: 0, replayOffset: 0, sealed: true, failed: false, failures: 0,
    corruptTail: false, partitions: new Set(keys.map(([q, p]) => `${q}\u0000${p}`)), firstAt: new Map(keys.map(([q, p, at]) => [`${q}\u0000${p}`, at])),
  };
}

test('holdsOf: per partition the oldest first write, or the file\'s creation time for a file found on disk', () => {
  const found = { ...file('001000000000000-000000', [['q', 'p', 0]]), firstAt: new Map<string, number>() };
  const written = file('002000000000000-000000', [['q', 'p', 2_500_000_000_000], ['q', 'r', 2_000_000_000_500]]);
  assert.deepEqual(holdsOf([written, found]).map((h) => [h.queue, h.partition, h.oldestAt.getTime()]), [
    ['q', 'p', 1_000_000_000_000], ['q', 'r', 2_000_000_000_500],
  ]);
});

test('the broker with a partition\'s newer records waits until the other one has replayed the older ones', async () => {
  const store = new Store(sql.pool);
  const queue = `holds-${Date.now()}`;
  const log = pino({ level: 'silent' });
  const older = new ReplayOrder({ store, serverId: 'holds-a', log });
  const newer = new ReplayOrder({ store, serverId: 'holds-b', log });
  const t = Date.now() - 60_000;
  // a buffered p (moved producer) before b did; b alone holds q.
  const aFile = file('a', [[queue, 'p', t]]);
  const bMixed = file('b1', [[queue, 'q', t + 1000], [queue, 'p', t + 30_000]]);
  const bAlone = file('b2', [[queue, 'q', t + 40_000]]);
  await older.publish([aFile]);
  await newer.publish([bMixed, bAlone]);

  assert.equal(await older.wait([aFile], aFile), 0, 'the older records go first');
  assert.ok((await newer.wait([bMixed, bAlone], bMixed)) > 0, 'b\'s file with newer p records waits');
  assert.equal(await newer.wait([bAlone], bAlone), 0, 'a file whose partitions nobody else holds from earlier does not wait');

  // a replayed its file: it holds nothing now; b goes on.
  await older.publish([]);
  assert.equal(await newer.wait([bMixed, bAlone], bMixed), 0);

  // A hold nobody refreshed for 30 s (a broker gone) is ignored.
  await older.publish([aFile]);
  assert.ok((await newer.wait([bMixed], bMixed)) > 0);
  await sql.pool.query(`UPDATE queen.buffer_holds SET updated_at = now() - interval '31 seconds' WHERE server_id = 'holds-a'`);
  assert.equal(await newer.wait([bMixed], bMixed), 0);
  await older.publish([]);
  await newer.publish([]);
  const left = await sql.pool.query('SELECT count(*)::int AS n FROM queen.buffer_holds WHERE queue_name = $1', [queue]);
  assert.equal(left.rows[0].n, 0, 'an empty buffer holds nothing');
});
