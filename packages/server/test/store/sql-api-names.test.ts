/**
 * The name rule in the SQL API (docs/sql-api.md "Errors", docs/api.md 1.10): every function that takes a
 * queue, partition or consumer group name refuses `.` and `..` with 22023 and a message naming the argument
 * (produce_one and produce_notify are produce_full's wrappers and speak with its name), before anything is
 * written (no queue, partition or cursor row appears).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueQueue } from '../support/harness.js';
import { useSqlSessions } from '../support/hot-path.js';

const sql = useSqlSessions();

const { failure } = sql;

const LEASE = '00000000-0000-0000-0000-000000000000';
const PARTITION = '00000000-0000-0000-0000-000000000001';

test('every SQL API function refuses "." and ".." names with 22023 naming the argument, writing nothing', async () => {
  const queue = uniqueQueue('sqldots');
  await sql.pool.query(`SELECT queen.produce_one($1, '{}')`, [queue]);
  const cases: Array<[string, unknown[], string]> = [
    [`SELECT queen.produce_one('..', '{}')`, [], 'queen.produce_full: p_queue must not be "." or ".."'],
    [`SELECT queen.produce_one($1, '{}', '.')`, [queue], 'queen.produce_full: p_partition must not be "." or ".."'],
    [`SELECT queen.produce_notify('.', '{}')`, [], 'queen.produce_full: p_queue must not be "." or ".."'],
    [`SELECT * FROM queen.produce_full('..', '{}')`, [], 'queen.produce_full: p_queue must not be "." or ".."'],
    [`SELECT * FROM queen.produce_full($1, '{}', '..')`, [queue], 'queen.produce_full: p_partition must not be "." or ".."'],
    [`SELECT queen.produce($1)`, [JSON.stringify([{ queue, payload: 1 }, { queue: '..' }])], 'queen.produce: p_items[1].queue must not be "." or ".."'],
    [`SELECT queen.produce($1)`, [JSON.stringify([{ queue, partition: '..' }])], 'queen.produce: p_items[0].partition must not be "." or ".."'],
    [`SELECT * FROM queen.consume_one('..')`, [], 'queen.consume_one: p_queue must not be "." or ".."'],
    [`SELECT * FROM queen.consume_one($1, '.')`, [queue], 'queen.consume_one: p_consumer_group must not be "." or ".."'],
    [`SELECT * FROM queen.consume_one($1, p_partition => '..')`, [queue], 'queen.consume_one: p_partition must not be "." or ".."'],
    [`SELECT queen.consume($1)`, [JSON.stringify([{ queueName: '..' }])], 'queen.consume: p_requests[0].queueName must not be "." or ".."'],
    [`SELECT queen.consume($1)`, [JSON.stringify([{ queueName: queue, partitionName: '.' }])], 'queen.consume: p_requests[0].partitionName must not be "." or ".."'],
    [`SELECT queen.consume($1)`, [JSON.stringify([{ queueName: queue, consumerGroup: '..' }])], 'queen.consume: p_requests[0].consumerGroup must not be "." or ".."'],
    [`SELECT queen.commit($1)`, [JSON.stringify([{ transactionId: 't', partitionId: PARTITION, consumerGroup: '..' }])], 'queen.commit: p_acks[0].consumerGroup must not be "." or ".."'],
    [`SELECT queen.commit_one('t', $1, $2, '..')`, [PARTITION, LEASE], 'queen.commit_one: p_consumer_group must not be "." or ".."'],
    [`SELECT queen.nack('t', $1, $2, 'e', '.')`, [PARTITION, LEASE], 'queen.nack: p_consumer_group must not be "." or ".."'],
    [`SELECT queen.reject('t', $1, $2, 'e', '..')`, [PARTITION, LEASE], 'queen.reject: p_consumer_group must not be "." or ".."'],
    [`SELECT queen.forward('t', $1, $2, '..', 'dest', '{}')`, [PARTITION, LEASE], 'queen.forward: p_source_consumer_group must not be "." or ".."'],
    [`SELECT queen.forward('t', $1, $2, NULL, '..', '{}')`, [PARTITION, LEASE], 'queen.forward: p_dest_queue must not be "." or ".."'],
    [`SELECT queen.forward('t', $1, $2, NULL, 'dest', '{}', '.')`, [PARTITION, LEASE], 'queen.forward: p_dest_partition must not be "." or ".."'],
    [`SELECT queen.transaction($1)`, [JSON.stringify([{ type: 'push', items: [{ queue: '..', payload: 1 }] }])], 'queen.transaction: p_operations[0].items[0].queue must not be "." or ".."'],
    [`SELECT queen.transaction($1)`, [JSON.stringify([{ type: 'ack', transactionId: 't', partitionId: PARTITION, consumerGroup: '.' }])], 'queen.transaction: p_operations[0][0].consumerGroup must not be "." or ".."'],
    [`SELECT queen.configure('..')`, [], 'queen.configure: p_queue must not be "." or ".."'],
    [`SELECT queen.seek('..', $1, true)`, [queue], 'queen.seek: p_consumer_group must not be "." or ".."'],
    [`SELECT queen.seek('g', '.', true)`, [], 'queen.seek: p_queue must not be "." or ".."'],
    [`SELECT queen.delete_consumer_group('..')`, [], 'queen.delete_consumer_group: p_consumer_group must not be "." or ".."'],
    [`SELECT queen.delete_consumer_group('g', '..')`, [], 'queen.delete_consumer_group: p_queue must not be "." or ".."'],
    [`SELECT queen.depth('..')`, [], 'queen.depth: p_queue must not be "." or ".."'],
    [`SELECT queen.depth($1, '.')`, [queue], 'queen.depth: p_consumer_group must not be "." or ".."'],
    [`SELECT queen.lag('..')`, [], 'queen.lag: p_queue must not be "." or ".."'],
    [`SELECT queen.lag($1, '..')`, [queue], 'queen.lag: p_consumer_group must not be "." or ".."'],
    [`SELECT queen.has_messages('.')`, [], 'queen.has_messages: p_queue must not be "." or ".."'],
    [`SELECT queen.has_messages($1, '..')`, [queue], 'queen.has_messages: p_partition must not be "." or ".."'],
    [`SELECT queen.has_messages($1, NULL, '..')`, [queue], 'queen.has_messages: p_consumer_group must not be "." or ".."'],
  ];
  for (const [text, values, message] of cases) {
    const error = await failure(text, values);
    assert.deepEqual(error, { code: '22023', message }, `${text} ${JSON.stringify(values)}`);
  }
  const written = await sql.pool.query(`SELECT
    (SELECT count(*)::int FROM queen.queues WHERE name IN ('.', '..', 'dest')) AS queues,
    (SELECT count(*)::int FROM queen.partitions WHERE name IN ('.', '..')) AS partitions,
    (SELECT count(*)::int FROM queen.cursors WHERE consumer_group IN ('.', '..')) AS cursors,
    (SELECT count(*)::int FROM queen.subscriptions WHERE consumer_group IN ('.', '..')) AS subscriptions`);
  assert.deepEqual(written.rows[0], { queues: 0, partitions: 0, cursors: 0, subscriptions: 0 });
});

test('names with dots inside, and the defaults, still pass every function', async () => {
  const queue = `${uniqueQueue('sqldots')}.v2`;
  const id = (await sql.pool.query(`SELECT queen.produce_one($1, '{"n":1}', 'a..b')`, [queue])).rows[0]!.produce_one as string;
  assert.match(id, /^[0-9a-f-]{36}$/);
  const [message] = (await sql.pool.query('SELECT * FROM queen.consume_one($1, $2)', [queue, '.g.'])).rows;
  assert.equal(message.id, id);
  assert.equal((await sql.pool.query('SELECT queen.commit_one($1, $2, $3, $4)', [message.transaction_id, message.partition_id, message.lease_id, '.g.'])).rows[0]!.commit_one, true);
  assert.equal(Number((await sql.pool.query('SELECT queen.depth($1, $2)', [queue, '.g.'])).rows[0]!.depth), 0);
  assert.equal(Number((await sql.pool.query(`SELECT queen.lag($1, '')`, [queue])).rows[0]!.lag), 1, 'an empty group is queue mode');
  assert.equal((await sql.pool.query('SELECT queen.has_messages($1)', [queue])).rows[0]!.has_messages, true);
});
