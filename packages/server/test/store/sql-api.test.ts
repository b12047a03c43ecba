/**
 * The public SQL API (docs/sql-api.md) against a real PostgreSQL, without a broker: every function's result
 * shape and effect, the caller's transaction as the unit (a rollback leaves nothing), and the errors bad
 * input raises (SQLSTATE and a message naming the argument; nothing written).
 *
 * The broker side (a committed SQL produce waking a parked HTTP pop, SQL and HTTP consumers of one group)
 * is test/store/sql-api-broker.test.ts; roles and grants are test/store/sql-api-roles.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type pg from 'pg';
import { uniqueQueue } from '../support/harness.js';
import { useSqlSessions } from '../support/hot-path.js';

const sql = useSqlSessions();

/** Runs one statement on the pool; the rows. */
async function rows<R extends pg.QueryResultRow = any>(text: string, values: unknown[] = []): Promise<R[]> {
  return (await sql.pool.query<R>(text, values)).rows;
}

/** The single value of a one-row, one-column statement. */
async function value<T = any>(text: string, values: unknown[] = []): Promise<T> {
  const [row] = await rows(text, values);
  return Object.values(row!)[0] as T;
}

const { failure } = sql;

/** Messages stored in a queue (every partition), through the API's own count. */
const depth = (queue: string, group = '__QUEUE_MODE__'): Promise<number> => value<string>('SELECT queen.depth($1, $2)', [queue, group]).then(Number);

describe('produce', () => {
  test('answers the push results of the wire, in item order: queued, duplicate, and the ids', async () => {
    const queue = uniqueQueue('sqlp');
    const results = await value<any[]>('SELECT queen.produce($1)', [JSON.stringify([
      { queue, payload: { n: 1 }, transactionId: 'a', traceId: '0198F2E0-51C4-7E22-A1B0-3C4D5E6F7081' },
      { queue, partition: 'p2', payload: { n: 2 } },
      { queue, payload: { n: 3 }, transactionId: 'a' },
    ])]);
    assert.equal(results.length, 3);
    assert.deepEqual(results.map((r) => [r.index, r.status, r.queueName]), [[0, 'queued', queue], [1, 'queued', queue], [2, 'duplicate', queue]]);
    assert.equal(results[0].transaction_id, 'a');
    assert.equal(results[0].trace_id, '0198f2e0-51c4-7e22-a1b0-3c4d5e6f7081');
    assert.match(results[1].transaction_id, /^[0-9a-f-]{36}$/, 'a missing transactionId is minted');
    assert.equal(results[2].message_id, results[0].message_id, 'a duplicate points at the stored message');
    const [stored] = await rows(`SELECT s.payloads FROM queen.segments s JOIN queen.partitions p ON p.id = s.partition_id
      JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND p.name = 'Default'`, [queue]);
    assert.deepEqual(stored!.payloads.map((p: string) => JSON.parse(p)), [{ n: 1 }]);
    assert.equal(await depth(queue), 2);
  });

  test('maxSize refuses items as `failed` in the batch form and raises 54000 in the scalar form', async () => {
    const queue = uniqueQueue('sqlcap');
    await value('SELECT queen.configure($1)', [queue]);
    await sql.pool.query(`UPDATE queen.queues SET max_size = 1 WHERE name = $1`, [queue]);
    const results = await value<any[]>('SELECT queen.produce($1)', [JSON.stringify([{ queue, payload: 1 }, { queue, payload: 2, transactionId: 'x' }])]);
    assert.deepEqual(results.map((r) => r.status), ['queued', 'failed']);
    assert.equal(results[1].error, `Queue '${queue}' would exceed max capacity`);
    assert.equal(results[1].transaction_id, 'x');
    const refused = await failure('SELECT queen.produce_one($1, $2)', [queue, '{"n":3}']);
    assert.equal(refused.code, '54000');
    assert.match(refused.message, /would exceed max capacity/);
    assert.equal(await depth(queue), 1);
  });

  test('a produce inside a transaction that rolls back leaves nothing; one that commits is there', async () => {
    const queue = uniqueQueue('sqltx');
    const { client } = await sql.session();
    await client.query('BEGIN');
    await client.query('SELECT queen.produce_one($1, $2)', [queue, '{"order":1}']);
    assert.equal(await depth(queue), 0, 'not visible before the commit');
    await client.query('ROLLBACK');
    assert.equal(await depth(queue), 0);
    assert.equal(await value('SELECT count(*)::int FROM queen.queues WHERE name = $1', [queue]), 0, 'not even the implicit queue');
    await client.query('BEGIN');
    await client.query('SELECT queen.produce_one($1, $2)', [queue, '{"order":2}']);
    await client.query('COMMIT');
    const delivered = await rows('SELECT payload FROM queen.consume_one($1)', [queue]);
    assert.deepEqual(delivered.map((r) => r.payload), [{ order: 2 }]);
  });

  test('the broker\'s wake-up: one queen_wake NOTIFY per queue at commit, none at rollback, none with queen.wake = off', async () => {
    const queue = `billing.${uniqueQueue('sqlwake')}`;
    const { client: listener } = await sql.session();
    const heard: Array<Record<string, unknown>> = [];
    listener.on('notification', (n) => {
      const body = JSON.parse(n.payload ?? '{}');
      if (n.channel === 'queen_wake' && body.queue === queue) heard.push(body);
    });
    await listener.query('LISTEN queen_wake');
    const { client: app } = await sql.session();
    const settle = async (): Promise<void> => {
      await listener.query('SELECT 1'); // notifications that were sent have arrived once this returns
      await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await app.query('BEGIN');
    await app.query(`SELECT queen.produce_one($1, '{}')`, [queue]);
    await app.query('ROLLBACK');
    await settle();
    assert.deepEqual(heard, []);
    await app.query('BEGIN');
    await app.query('SELECT queen.produce($1)', [JSON.stringify([{ queue, payload: 1 }, { queue, partition: 'b', payload: 2 }])]);
    await app.query(`SELECT queen.produce_one($1, '{}')`, [queue]);
    await app.query('COMMIT');
    await settle();
    assert.deepEqual(heard, [{ origin: 'sql', queue, namespace: 'billing', task: queue.split('.')[1] }]);
    await app.query(`SET queen.wake = 'off'`);
    await app.query(`SELECT queen.produce_one($1, '{}')`, [queue]);
    await settle();
    assert.equal(heard.length, 1, 'queen.wake = off withholds the hint');
    assert.equal(await depth(queue), 4);
  });

  test('produce_one, produce_full and produce_notify keep their defaults and return the message id', async () => {
    const queue = uniqueQueue('sqlone');
    const first = await value<string>('SELECT queen.produce_one($1, $2)', [queue, '{"a":1}']);
    const again = await value<string>(`SELECT queen.produce_one($1, '{"a":9}', 'Default', 'k1')`, [queue]);
    assert.equal(await value<string>(`SELECT queen.produce_one($1, '{"a":10}', 'Default', 'k1')`, [queue]), again, 'a duplicate answers the stored id');
    const [full] = await rows(`SELECT * FROM queen.produce_full($1, '{"a":2}', 'p9', NULL, 'ns', 'task')`, [queue]);
    assert.match(full!.transaction_id, /^[0-9a-f-]{36}$/);
    const { client } = await sql.session();
    await client.query(`LISTEN ${await value<string>('SELECT queen.channel_name($1)', [queue])}`);
    const heard = new Promise<string | undefined>((resolve) => client.once('notification', (n) => resolve(n.payload)));
    const notified = await value<string>(`SELECT queen.produce_notify($1, '{"a":3}')`, [queue]);
    assert.equal(await heard, notified, 'the queue channel carries the message id');
    assert.notEqual(first, again);
    const partitions = await rows(`SELECT p.name FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 ORDER BY 1`, [queue]);
    assert.deepEqual(partitions.map((r) => r.name), ['Default', 'p9']);
    assert.equal(await depth(queue), 4);
  });

  test('bad input raises 22023 naming the argument, and nothing of the batch is written', async () => {
    const queue = uniqueQueue('sqlbad');
    const cases: Array<[unknown, RegExp]> = [
      [{ not: 'an array' }, /p_items\[0\]\.queue must be a string/],
      [[{ queue, payload: 1 }, { queue: '' }], /p_items\[1\]\.queue must be a name of 1 to 255 characters/],
      [[{ queue, payload: 1 }, { queue, partition: 7 }], /p_items\[1\]\.partition must be a string/],
      [[{ queue, transactionId: 'x'.repeat(256) }], /p_items\[0\]\.transactionId must be at most 255 characters/],
      [[{ queue, traceId: 'nope' }], /p_items\[0\]\.traceId must be a UUID/],
      [[{ queue, payload: 1 }, 3], /p_items\[1\] must be an object/],
      ['text', /p_items must be a JSON array of items/],
    ];
    for (const [items, message] of cases) {
      const error = await failure('SELECT queen.produce($1)', [JSON.stringify(items)]);
      assert.equal(error.code, '22023', JSON.stringify(items));
      assert.match(error.message, message);
    }
    for (const [text, message] of [
      [`SELECT queen.produce_one(NULL, '{}')`, /p_queue must be a name/],
      [`SELECT queen.produce_one('${queue}', '{}', '')`, /p_partition must be a name/],
      [`SELECT queen.consume('[{"queueName":"${queue}","batchSize":"ten"}]')`, /p_requests\[0\]\.batchSize must be an integer/],
      [`SELECT queen.consume('[{"batchSize":1}]')`, /p_requests\[0\] needs queueName, or namespace and\/or task/],
      [`SELECT queen.commit('[{"transactionId":"t"}]')`, /p_acks\[0\] needs transactionId and partitionId strings/],
      [`SELECT queen.commit('[{"transactionId":"t","partitionId":"p","status":"done"}]')`, /p_acks\[0\]\.status must be/],
      [`SELECT queen.renew('[{"leaseId":"x","extendSeconds":1.5}]')`, /p_leases\[0\]\.extendSeconds must be an integer/],
      [`SELECT queen.transaction('[]')`, /p_operations must be a non-empty JSON array/],
      [`SELECT queen.transaction('[{"type":"pull"}]')`, /p_operations\[0\] must be an object of type push or ack/],
      [`SELECT queen.configure('${queue}', -1)`, /p_lease_time and p_retry_limit must be non-negative/],
      [`SELECT queen.seek('g', '${queue}')`, /give p_to_end => true or p_to_timestamp/],
    ] as Array<[string, RegExp]>) {
      const error = await failure(text);
      assert.equal(error.code, '22023', text);
      assert.match(error.message, message);
    }
    assert.equal(await value('SELECT count(*)::int FROM queen.queues WHERE name = $1', [queue]), 0);
  });

  test('a future p_delay_until is refused (0A000): delays are per queue', async () => {
    const error = await failure(`SELECT * FROM queen.produce_full('${uniqueQueue('sqldelay')}', '{}', p_delay_until => now() + interval '1 hour')`);
    assert.equal(error.code, '0A000');
    assert.match(error.message, /p_delay_until in the future is not supported/);
  });

  test('an encrypted queue: produce and consume raise 0A000 and write nothing', async () => {
    const queue = uniqueQueue('sqlenc');
    await value('SELECT queen.configure($1)', [queue]);
    await sql.pool.query('UPDATE queen.queues SET encryption_enabled = true WHERE name = $1', [queue]);
    const produced = await failure('SELECT queen.produce_one($1, $2)', [queue, '{"secret":1}']);
    assert.equal(produced.code, '0A000');
    assert.match(produced.message, /has encryption enabled; the SQL API cannot encrypt payloads/);
    const consumed = await failure('SELECT * FROM queen.consume_one($1)', [queue]);
    assert.equal(consumed.code, '0A000');
    assert.equal(await depth(queue), 0);
  });
});

describe('consume', () => {
  test('the pop body of the wire, with index; leases block a second consumer; autoAck commits', async () => {
    const queue = uniqueQueue('sqlc');
    await value('SELECT queen.produce($1)', [JSON.stringify([1, 2, 3].map((n) => ({ queue, payload: { n }, transactionId: `t${n}` })))]);
    const [result] = await value<any[]>('SELECT queen.consume($1)', [JSON.stringify([{ queueName: queue, batchSize: 2 }])]);
    assert.equal(result.index, 0);
    assert.equal(result.success, true);
    assert.equal(result.queue, queue);
    assert.equal(result.partition, 'Default');
    assert.equal(result.consumerGroup, '__QUEUE_MODE__');
    assert.equal(result.partitionsClaimed, 1);
    assert.deepEqual(result.messages.map((m: any) => m.data), [{ n: 1 }, { n: 2 }]);
    assert.deepEqual(Object.keys(result.messages[0]).sort(),
      ['consumerGroup', 'createdAt', 'data', 'id', 'leaseId', 'partition', 'partitionId', 'producerSub', 'traceId', 'transactionId']);
    assert.match(result.messages[0].createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(result.messages[0].leaseId, result.leaseId);

    const [leased] = await value<any[]>('SELECT queen.consume($1)', [JSON.stringify({ queueName: queue, partitionName: 'Default' })]);
    assert.deepEqual(leased.messages, []);
    assert.equal(leased.emptyReason, 'leased');

    const [auto] = await value<any[]>('SELECT queen.consume($1)', [JSON.stringify({ queueName: queue, consumerGroup: 'g', autoAck: true, batchSize: 10 })]);
    assert.equal(auto.leaseId, '');
    assert.equal(auto.messages.length, 3);
    assert.equal(await depth(queue, 'g'), 0, 'autoAck committed the group');
    assert.equal(await depth(queue), 3, 'queue mode is independent');
  });

  test('subscription mode new skips the backlog for a new named group; discovery scans a namespace', async () => {
    const ns = `ns${Date.now()}`;
    const queue = `${ns}.${uniqueQueue('t')}`;
    await value(`SELECT queen.produce_one($1, '{"old":true}')`, [queue]);
    const [fresh] = await value<any[]>('SELECT queen.consume($1)', [JSON.stringify({ queueName: queue, consumerGroup: 'late', subMode: 'new' })]);
    assert.deepEqual(fresh.messages, []);
    await value(`SELECT queen.produce_one($1, '{"old":false}')`, [queue]);
    const late = await rows('SELECT payload FROM queen.consume_one($1, $2)', [queue, 'late']);
    assert.deepEqual(late.map((r) => r.payload), [{ old: false }]);
    const [found] = await value<any[]>('SELECT queen.consume($1)', [JSON.stringify({ namespace: ns, consumerGroup: 'finder', batchSize: 5 })]);
    assert.equal(found.queue, '');
    assert.equal(found.messages.length, 2);
  });

  test('pop maintenance answers paused and takes no lease', async () => {
    const queue = uniqueQueue('sqlpause');
    await value(`SELECT queen.produce_one($1, '{}')`, [queue]);
    await sql.pool.query(`SELECT queen.maintenance_set('pop', true)`);
    try {
      const [paused] = await value<any[]>('SELECT queen.consume($1)', [JSON.stringify({ queueName: queue })]);
      assert.equal(paused.emptyReason, 'paused');
      assert.equal((await rows('SELECT * FROM queen.consume_one($1, p_timeout_seconds => 5)', [queue])).length, 0, 'no wait while paused');
    } finally {
      await sql.pool.query(`SELECT queen.maintenance_set('pop', false)`);
    }
    assert.equal((await rows('SELECT * FROM queen.consume_one($1)', [queue])).length, 1);
  });

  test('consume_one waits inside SQL and is woken by a produce committed in another session', async () => {
    const queue = uniqueQueue('sqlwait');
    await value('SELECT queen.configure($1)', [queue]);
    const { client: consumer } = await sql.session();
    const { client: producer } = await sql.session();
    const started = Date.now();
    const waiting = consumer.query('SELECT payload, lease_id FROM queen.consume_one($1, p_timeout_seconds => 20)', [queue]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await producer.query('BEGIN');
    await producer.query(`SELECT queen.produce_one($1, '{"late":1}')`, [queue]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await producer.query('COMMIT');
    const committedAt = Date.now();
    const result = await waiting;
    const latency = Date.now() - committedAt;
    assert.deepEqual(result.rows.map((r) => r.payload), [{ late: 1 }]);
    assert.ok(Date.now() - started >= 600, 'it waited for the commit');
    assert.ok(latency < 500, `claimed ${latency} ms after the commit`);
    console.log(`consume_one claimed ${latency} ms after the commit`);
  });

  test('the wait ends before the statement timeout with no rows; a missing queue is created at once; REPEATABLE READ refuses to wait', async () => {
    const queue = uniqueQueue('sqlto');
    const { client } = await sql.session();
    let started = Date.now();
    assert.equal((await client.query('SELECT * FROM queen.consume_one($1, p_timeout_seconds => 30)', [queue])).rows.length, 0);
    assert.ok(Date.now() - started < 1000, 'a queue that does not exist yet is created, not waited on');
    assert.equal(await value('SELECT count(*)::int FROM queen.queues WHERE name = $1', [queue]), 1);
    await client.query(`SET statement_timeout = '1500ms'`);
    started = Date.now();
    const result = await client.query('SELECT * FROM queen.consume_one($1, p_timeout_seconds => 30)', [queue]);
    const waited = Date.now() - started;
    assert.equal(result.rows.length, 0);
    assert.ok(waited >= 1000 && waited < 1500, `waited ${waited} ms`);
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await assert.rejects(client.query('SELECT * FROM queen.consume_one($1, p_timeout_seconds => 1)', [queue]), { code: '25000' });
    await client.query('ROLLBACK');
  });
});

describe('commit, renew, transaction', () => {
  /** Produces `count` messages and consumes them in one lease; the rows of consume_one. */
  async function leased(queue: string, count: number, group = '__QUEUE_MODE__'): Promise<any[]> {
    await value('SELECT queen.produce($1)', [JSON.stringify(Array.from({ length: count }, (_, i) => ({ queue, payload: { i }, transactionId: `m${i}` })))]);
    return rows('SELECT * FROM queen.consume_one($1, $2, $3)', [queue, group, count]);
  }

  test('commit answers the ack results of the wire; the cursor moves and the lease is released at the span end', async () => {
    const queue = uniqueQueue('sqlack');
    const got = await leased(queue, 2);
    const acks = got.map((m) => ({ transactionId: m.transaction_id, partitionId: m.partition_id, leaseId: m.lease_id }));
    const results = await value<any[]>('SELECT queen.commit($1)', [JSON.stringify([...acks, { transactionId: 'nope', partitionId: 'not-a-uuid' }])]);
    assert.deepEqual(results.map((r) => [r.index, r.success, r.error, r.leaseReleased]),
      [[0, true, null, false], [1, true, null, true], [2, false, 'Message not found', false]]);
    assert.equal(results[0].queueName, queue);
    assert.equal(results[0].partitionName, 'Default');
    assert.equal(await depth(queue), 0);
  });

  test('nack redelivers, reject dead-letters, commit_one with a wrong lease is false', async () => {
    const queue = uniqueQueue('sqlnack');
    const [first] = await leased(queue, 1);
    assert.equal(await value('SELECT queen.commit_one($1, $2, $3)', [first.transaction_id, first.partition_id, '01a23c56-0000-7000-8000-000000000000']), false);
    assert.equal(await value('SELECT queen.nack($1, $2, $3)', [first.transaction_id, first.partition_id, first.lease_id]), true);
    const [again] = await rows('SELECT * FROM queen.consume_one($1)', [queue]);
    assert.equal(again.transaction_id, first.transaction_id, 'redelivered after nack');
    assert.equal(await value('SELECT queen.reject($1, $2, $3, $4)', [again.transaction_id, again.partition_id, again.lease_id, 'bad payload']), true);
    const [dead] = await rows('SELECT error_message, consumer_group FROM queen.dead_letters WHERE transaction_id = $1 AND partition_id = $2', [again.transaction_id, again.partition_id]);
    assert.deepEqual(dead, { error_message: 'bad payload', consumer_group: '__QUEUE_MODE__' });
    assert.equal(await depth(queue), 0);
  });

  test('renew extends a live lease and reports unknown ones; renew_one returns the expiry or null', async () => {
    const queue = uniqueQueue('sqlrenew');
    const [m] = await leased(queue, 1);
    const [ok, missing] = await value<any[]>('SELECT queen.renew($1)', [JSON.stringify([{ leaseId: m.lease_id, extendSeconds: 600 }, { leaseId: 'zzz' }])]);
    assert.equal(ok.success, true);
    assert.ok(Date.parse(ok.expiresAt) > Date.now() + 550_000);
    assert.equal(ok.newExpiresAt, ok.expiresAt);
    assert.deepEqual([missing.success, missing.error, missing.expiresAt], [false, 'Lease not found', null]);
    const expiry = await value<Date | null>('SELECT queen.renew_one($1, 900)', [m.lease_id]);
    assert.ok(expiry !== null && expiry.getTime() > Date.now() + 850_000);
    assert.equal(await value('SELECT queen.renew_one($1)', ['01a23c56-0000-7000-8000-000000000000']), null);
  });

  test('transaction: all or nothing inside the caller\'s transaction, which keeps its own earlier work', async () => {
    const source = uniqueQueue('sqltxs');
    const target = uniqueQueue('sqltxt');
    const [m] = await leased(source, 1);
    const ack = { type: 'ack', transactionId: m.transaction_id, partitionId: m.partition_id };
    const { client } = await sql.session();
    await client.query('BEGIN');
    await client.query(`SELECT queen.produce_one($1, '{"mine":true}')`, [target]);
    const failed = (await client.query('SELECT queen.transaction($1) AS t', [JSON.stringify([
      { type: 'push', items: [{ queue: target, payload: { next: 1 } }] },
      { ...ack, leaseId: '01a23c56-0000-7000-8000-000000000000' },
    ])])).rows[0].t;
    assert.equal(failed.success, false);
    assert.equal(failed.error, 'ACK operation failed: Invalid or expired lease');
    assert.deepEqual(failed.results.map((r: any) => [r.index, r.type, r.success]), [[0, 'push', true], [1, 'ack', false]]);
    const done = (await client.query('SELECT queen.transaction($1) AS t', [JSON.stringify({
      operations: [ack, { type: 'push', items: [{ queue: target, payload: { next: 2 } }] }],
      requiredLeases: [m.lease_id],
    })])).rows[0].t;
    assert.equal(done.success, true, JSON.stringify(done));
    assert.deepEqual(done.results.map((r: any) => [r.index, r.type, r.success, r.leaseReleased ?? null]), [[0, 'ack', true, true], [1, 'push', true, null]]);
    await client.query('COMMIT');
    const delivered = await rows('SELECT payload FROM queen.consume_one($1, p_batch_size => 10)', [target]);
    assert.deepEqual(delivered.map((r) => r.payload), [{ mine: true }, { next: 2 }], 'the failed call left nothing, the caller\'s produce stayed');
    assert.equal(await depth(source), 0);
  });

  test('forward acks the source and produces the successor atomically; a failed ack produces nothing', async () => {
    const source = uniqueQueue('sqlfws');
    const target = uniqueQueue('sqlfwt');
    const [m] = await leased(source, 1);
    assert.equal(await value('SELECT queen.forward($1, $2, $3, NULL, $4, $5)',
      [m.transaction_id, m.partition_id, '01a23c56-0000-7000-8000-000000000000', target, '{"step":2}']), null);
    assert.equal(await depth(target), 0);
    const id = await value<string>('SELECT queen.forward($1, $2, $3, NULL, $4, $5, \'Default\', \'next-1\')',
      [m.transaction_id, m.partition_id, m.lease_id, target, '{"step":2}']);
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(await depth(source), 0);
    assert.deepEqual((await rows('SELECT transaction_id, payload FROM queen.consume_one($1)', [target])).map((r) => [r.transaction_id, r.payload]), [['next-1', { step: 2 }]]);
  });
});

describe('administration', () => {
  test('configure sets three options and keeps the others; seek, delete_consumer_group, depth and has_messages', async () => {
    const queue = uniqueQueue('sqladm');
    assert.equal(await value('SELECT queen.configure($1, 30, 1, true)', [queue]), true);
    await sql.pool.query('UPDATE queen.queues SET priority = 7 WHERE name = $1', [queue]);
    await value('SELECT queen.configure($1, p_lease_time => 45)', [queue]);
    const [row] = await rows('SELECT lease_time, retry_limit, dead_letter_queue, priority, ttl FROM queen.queues WHERE name = $1', [queue]);
    assert.deepEqual(row, { lease_time: 45, retry_limit: 3, dead_letter_queue: false, priority: 7, ttl: 3600 });

    await value('SELECT queen.produce($1)', [JSON.stringify([{ queue, payload: 1 }, { queue, payload: 2, partition: 'b' }])]);
    assert.equal(await value('SELECT queen.has_messages($1)', [queue]), true);
    assert.equal(await value(`SELECT queen.has_messages($1, 'nope')`, [queue]), false);
    assert.equal(await depth(queue, 'g'), 2);
    assert.equal(await value(`SELECT queen.lag($1, 'g')`, [queue]), '2');
    assert.equal(await value(`SELECT queen.seek('g', $1, true)`, [queue]), true);
    assert.equal(await depth(queue, 'g'), 0);
    assert.equal(await value(`SELECT queen.has_messages($1, NULL, 'g')`, [queue]), false);
    assert.equal(await value(`SELECT queen.seek('g', $1, p_to_timestamp => '2000-01-01')`, [queue]), true);
    assert.equal(await depth(queue, 'g'), 2, 'seek to an old timestamp replays everything');
    assert.equal(await value(`SELECT queen.seek('g', 'no-such-queue', true)`), false);
    await value(`SELECT queen.seek('g', $1, true)`, [queue]);
    assert.equal(await value(`SELECT queen.delete_consumer_group('g', $1)`, [queue]), true);
    assert.equal(await depth(queue, 'g'), 2, 'a deleted group starts over');
    assert.equal(await value(`SELECT queen.delete_consumer_group('g', $1)`, [queue]), false);
    assert.equal(await depth('no-such-queue'), 0);
  });

  test('UUIDv7 helpers: version 7, time round trip, boundaries', async () => {
    const [r] = await rows(`SELECT queen.uuid_generate_v7()::text AS a, queen.uuid_generate_v7_at('2024-05-01T12:00:00.123Z')::text AS b,
      queen.uuid_v7_to_timestamptz(queen.uuid_generate_v7_at('2024-05-01T12:00:00.123Z')) AS t,
      queen.uuid_v7_boundary('2024-05-01T12:00:00.123Z')::text AS lo, queen.channel_name('billing.in-voices') AS channel`);
    assert.match(r!.a, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.match(r!.b, /^018f3406-9e7b-7/);
    assert.equal((r!.t as Date).toISOString(), '2024-05-01T12:00:00.123Z');
    assert.equal(r!.lo, '018f3406-9e7b-7000-8000-000000000000');
    assert.ok(r!.lo <= r!.b);
    assert.equal(r!.channel, 'queen_billing_in_voices');
  });
});
