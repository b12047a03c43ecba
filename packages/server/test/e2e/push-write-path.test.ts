/**
 * The write path of push_messages (issue 40): the common batch inserts its keys first and falls back to
 * classifying item by item when that insert meets a duplicate (docs/decisions.md, "Duplicates found by the
 * key insert"), and segments are aggregated from input sorted once (sql/functions/push_messages.sql). What
 * is checked is what the database holds afterwards: keys, offsets and every segment's arrays.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';

const setup = useBroker();

/** partition name -> id of a queue's partitions. */
async function partitionIds(queue: string): Promise<Map<string, string>> {
  const r = await setup.db.query(
    'SELECT p.name, p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1', [queue]);
  return new Map(r.rows.map((row) => [row.name as string, row.id as string]));
}

/** A partition's segments in offset order, with the arrays they hold. */
async function segments(partitionId: string): Promise<Array<{ first: number; last: number; txns: string[]; ids: string[]; payloads: string[] }>> {
  const r = await setup.db.query(
    `SELECT first_offset::int AS first, last_offset::int AS last, transaction_ids AS txns, message_ids::text[] AS ids,
            payloads FROM queen.segments WHERE partition_id = $1 ORDER BY first_offset`, [partitionId]);
  return r.rows as any;
}

describe('push write path', () => {
  test('one stored duplicate in a batch: the other items are written once, offsets dense', async () => {
    const queue = uniqueQueue('write-mixed');
    const first = await setup.api.push([{ queue, partition: 'p2', payload: 'stored', transactionId: 'old' }]);
    const res = await setup.api.push([
      { queue, partition: 'p1', payload: 'x1', transactionId: 'x1' },
      { queue, partition: 'p2', payload: 'again', transactionId: 'old' },
      { queue, partition: 'p1', payload: 'x2', transactionId: 'x2' },
      { queue, partition: 'p2', payload: 'y1', transactionId: 'y1' },
    ]);
    assert.deepEqual(res.json.map((r: any) => r.status), ['queued', 'duplicate', 'queued', 'queued']);
    assert.equal(res.json[1].message_id, first.json[0].message_id);
    const ids = await partitionIds(queue);
    const keys = await setup.db.query(
      `SELECT k.partition_id, k.transaction_id, k.message_offset::int AS o FROM queen.message_keys k
       WHERE k.partition_id = ANY ($1::uuid[]) ORDER BY 1, 3`, [[ids.get('p1'), ids.get('p2')]]);
    const named = keys.rows.map((r) => [r.partition_id === ids.get('p1') ? 'p1' : 'p2', r.transaction_id, r.o]).sort();
    assert.deepEqual(named, [['p1', 'x1', 1], ['p1', 'x2', 2], ['p2', 'old', 1], ['p2', 'y1', 2]]);
    assert.deepEqual((await segments(ids.get('p1')!)).map((s) => [s.first, s.last, s.txns]), [[1, 2, ['x1', 'x2']]]);
    assert.deepEqual((await segments(ids.get('p2')!)).map((s) => [s.first, s.last, s.txns]), [[1, 1, ['old']], [2, 2, ['y1']]]);
    const retry = await setup.api.push([{ queue, partition: 'p1', payload: 'x2 again', transactionId: 'x2' }]);
    assert.deepEqual([retry.json[0].status, retry.json[0].message_id], ['duplicate', res.json[2].message_id]);
  });

  test('a repeat inside a batch takes the full path: first occurrence queued, offsets dense', async () => {
    const queue = uniqueQueue('write-repeat');
    const res = await setup.api.push([
      { queue, partition: 'p', payload: 1, transactionId: 'a' },
      { queue, partition: 'p', payload: 2, transactionId: 'a' },
      { queue, partition: 'p', payload: 3, transactionId: 'b' },
    ]);
    assert.deepEqual(res.json.map((r: any) => r.status), ['queued', 'duplicate', 'queued']);
    const [segment] = await segments((await partitionIds(queue)).get('p')!);
    assert.deepEqual([segment!.first, segment!.last, segment!.txns, segment!.payloads], [1, 2, ['a', 'b'], ['1', '3']]);
  });

  test('interleaved partitions and chunks of 200: every segment holds its items in item order', async () => {
    const queue = uniqueQueue('write-order');
    // 450 items to p1 (chunks of 200, 200, 50) interleaved with 150 to p2, in one request.
    const items = Array.from({ length: 600 }, (_, i) => {
      const partition = i % 4 === 3 ? 'p2' : 'p1';
      return { queue, partition, payload: { i }, transactionId: `t${i}` };
    });
    const res = await setup.api.push(items);
    assert.equal(res.status, 201);
    const ids = await partitionIds(queue);
    for (const [partition, chunks] of [['p1', [[1, 200], [201, 400], [401, 450]]], ['p2', [[1, 150]]]] as const) {
      const expected = items.map((item, i) => ({ item, i })).filter(({ item }) => item.partition === partition);
      const stored = await segments(ids.get(partition)!);
      assert.deepEqual(stored.map((s) => [s.first, s.last]), chunks);
      assert.deepEqual(stored.flatMap((s) => s.txns), expected.map(({ item }) => item.transactionId));
      assert.deepEqual(stored.flatMap((s) => s.ids), expected.map(({ i }) => res.json[i].message_id));
      assert.deepEqual(stored.flatMap((s) => s.payloads).map((p) => JSON.parse(p).i), expected.map(({ i }) => i));
    }
  });
});
