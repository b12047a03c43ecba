/**
 * Partition ids computed from the names (sql/functions/partition_uuid.sql, docs/scale-out.md section 1): the
 * function agrees with SHA-256 as any other process computes it, partitions created by a push or by
 * /configure get that id, and a queue deleted and re-created gets the same ids back with nothing of before.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue } from '../support/harness.js';
import { QM, partitionUuid as expectedId, pop, push, useSqlSessions } from '../support/hot-path.js';

const sql = useSqlSessions();

async function computed(queue: string, partition: string): Promise<string> {
  const result = await sql.pool.query<{ id: string }>('SELECT queen.partition_uuid($1, $2)::text AS id', [queue, partition]);
  return result.rows[0]!.id;
}

describe('computed partition ids', () => {
  test('partition_uuid is version 8 and equals SHA-256 of the UTF-8 names around a 0x00 byte', async () => {
    for (const [queue, partition] of [['orders', 'Default'], ['a.b', 'c'], ['ab', 'c'], ['a', 'bc'], ['émoji-🐝', 'パーティション']] as const) {
      const id = await computed(queue, partition);
      assert.equal(id, expectedId(queue, partition), `${queue} / ${partition}`);
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    assert.notEqual(await computed('ab', 'c'), await computed('a', 'bc'), 'the separator keeps the pair unambiguous');
  });

  test('a push creates its partitions with the computed ids, /configure its Default partition', async () => {
    const queue = uniqueQueue('pid');
    const rows = await push(sql.pool, [{ queue, partition: 'P1', tx: 'a' }, { queue, partition: 'P2', tx: 'b' }]);
    assert.deepEqual(rows.map((r) => r.partition_id), [expectedId(queue, 'P1'), expectedId(queue, 'P2')]);
    const configured = uniqueQueue('pid-configured');
    const result = await sql.pool.query<{ id: string }>(
      `SELECT default_partition_id::text AS id FROM queen.queue_configure($1, $1, '', $2::jsonb)`,
      [configured, JSON.stringify({ leaseTime: 60, retryLimit: 3, retryDelay: 0, maxSize: 0, ttl: 3600, priority: 0, delayedProcessing: 0,
        windowBuffer: 0, minPopWaitTime: 0, retentionSeconds: 0, completedRetentionSeconds: 0, retentionEnabled: false,
        encryptionEnabled: false, maxWaitTimeSeconds: 0, deadLetterQueue: false, dlqAfterMaxRetries: false })]);
    assert.equal(result.rows[0]!.id, expectedId(configured, 'Default'));
  });

  test('a queue deleted and re-created gets the same partition id, starting empty at offset 1', async () => {
    const queue = uniqueQueue('pid-recreate');
    await push(sql.pool, [{ queue, partition: 'P', tx: 'old-1' }, { queue, partition: 'P', tx: 'old-2' }]);
    const first = await pop(sql.pool, { scope: 'partition', queue, partition: 'P', group: QM, batch: 10 });
    assert.deepEqual(first.txns, ['old-1', 'old-2']);
    await sql.pool.query('SELECT queen.queue_delete($1)', [queue]);
    const [again] = await push(sql.pool, [{ queue, partition: 'P', tx: 'old-1' }]);
    assert.equal(again!.partition_id, expectedId(queue, 'P'));
    assert.equal(again!.status, 'queued', 'the old transactionId is not a duplicate: nothing of the old partition is left');
    const state = await sql.pool.query<{ tail: string; cursors: string }>(
      `SELECT p.tail::text AS tail, (SELECT count(*) FROM queen.cursors c WHERE c.partition_id = p.id)::text AS cursors
       FROM queen.partitions p WHERE p.id = $1`, [again!.partition_id]);
    assert.deepEqual(state.rows, [{ tail: '1', cursors: '0' }]);
    const second = await pop(sql.pool, { scope: 'partition', queue, partition: 'P', group: QM, batch: 10 });
    assert.deepEqual(second.txns, ['old-1']);
  });
});
