/**
 * Deleting a queue (queen.queue_delete through store/queues.ts): its work grows with the queue, so it is not
 * cut short by DB_STATEMENT_TIMEOUT. A queue of 100 000 partitions took seconds to delete alone and ran past
 * the 30 s default under load: the route answered 500 and the queue stayed.
 *
 * Spec: docs/api.md 4.3 (DELETE /api/v1/resources/queues/:queue removes the queue and everything under it).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { Store } from '../../src/store/index.js';
import { serverConnection, uniqueQueue } from '../support/harness.js';
import { push, useSqlSessions } from '../support/hot-path.js';

const sql = useSqlSessions();
const pools: pg.Pool[] = [];
after(async () => {
  for (const pool of pools) await pool.end();
});

describe('queue deletion', () => {
  test('a queue of 2 000 partitions is deleted through a pool whose statements time out after 1 ms', async () => {
    const queue = uniqueQueue('delete-large');
    await push(sql.pool, Array.from({ length: 2000 }, (_, i) => ({ queue, partition: `p${i}`, tx: `m${i}` })));
    const database = (await sql.pool.query<{ name: string }>('SELECT current_database() AS name')).rows[0]!.name;
    const impatient = new pg.Pool({ ...serverConnection(database), max: 1, options: '-c statement_timeout=1' });
    pools.push(impatient);
    await assert.rejects(impatient.query('SELECT pg_sleep(0.05)'), /statement timeout/, 'the pool does time out');

    assert.equal(await new Store(impatient).queueDelete({ name: queue }), true);
    const left = await sql.pool.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM queen.queues WHERE name = $1)
            + (SELECT count(*) FROM queen.partitions p WHERE p.name LIKE 'p%' AND NOT EXISTS
                 (SELECT 1 FROM queen.queues q WHERE q.id = p.queue_id)) AS n`, [queue]);
    assert.equal(Number(left.rows[0]!.n), 0, 'nothing of the queue is left');
    assert.equal(await new Store(impatient).queueDelete({ name: queue }), false, 'a second delete finds nothing');
  });
});
