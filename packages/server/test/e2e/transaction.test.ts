/**
 * POST /api/v1/transaction (docs/api.md 7.1): the 400s, result objects, all-or-nothing (a failing duplicate push,
 * stale lease, item failure or unknown type leaves nothing behind: no message, no queue, cursor and lease
 * unmoved), operations seeing earlier ones, requiredLeases, and wake-ups after the commit.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';
import { messaging, UUID_V7 } from '../support/messaging.js';

let fx: ReturnType<typeof messaging>;
// Re-check ticks 20 s apart: a parked pop that answers at once was woken by the commit.
const setup = useBroker({ POP_WAIT_INITIAL_INTERVAL_MS: '20000', POP_WAIT_MAX_INTERVAL_MS: '20000' }, ({ api, db }) => {
  fx = messaging(api, db);
});

const PUSH_KEYS = ['index', 'type', 'success', 'transactionId', 'messageId', 'partitionId', 'queueName'];
const ACK_KEYS = ['index', 'type', 'success', 'transactionId', 'error', 'dlq', 'leaseReleased'];

async function transaction(body: unknown): Promise<any> {
  const res = await setup.api.post('/api/v1/transaction', body);
  assert.equal(res.status, 200, res.text);
  assert.match(res.json.transactionId, UUID_V7);
  return res.json;
}

describe('POST /api/v1/transaction: 400s', () => {
  const cases: Array<[string, unknown, string]> = [
    ['operations missing', {}, 'operations array required'],
    ['operations not an array', { operations: { type: 'push' } }, 'operations array required'],
    ['operations empty', { operations: [] }, 'operations array cannot be empty'],
    ['an operation that is a number', { operations: [5] }, 'Each operation must be an object'],
    ['an operation that is null', { operations: [null] }, 'Each operation must be an object'],
    ['an operation that is an array', { operations: [[]] }, 'Each operation must be an object'],
    ['push op without items', { operations: [{ type: 'push' }] }, 'push operation requires an items array'],
    ['push op with an object as items', { operations: [{ type: 'push', items: {} }] }, 'push operation requires an items array'],
    ['push item not an object', { operations: [{ type: 'push', items: [7] }] }, 'Each item must be an object'],
    ['push item without queue', { operations: [{ type: 'push', items: [{ payload: 1 }] }] }, 'Queue must be a string'],
    ['push item with a numeric partition', { operations: [{ type: 'push', items: [{ queue: 'q', partition: 3 }] }] }, 'Partition must be a string'],
    ['push item with a numeric transactionId', { operations: [{ type: 'push', items: [{ queue: 'q', transactionId: 3 }] }] }, 'TransactionId must be a string'],
    ['push item with a numeric traceId', { operations: [{ type: 'push', items: [{ queue: 'q', traceId: 3 }] }] }, 'TraceId must be a string'],
    ['ack op without ids', { operations: [{ type: 'ack' }] }, 'ack operation requires transactionId and partitionId'],
    ['ack op without partitionId', { operations: [{ type: 'ack', transactionId: 'x' }] }, 'ack operation requires transactionId and partitionId'],
    ['ack op with a numeric transactionId', { operations: [{ type: 'ack', transactionId: 1, partitionId: randomUUID() }] }, 'ack operation requires transactionId and partitionId'],
  ];
  for (const [name, body, error] of cases) {
    test(`${name} -> 400 ${error}`, async () => {
      const res = await setup.api.post('/api/v1/transaction', body);
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, { error });
    });
  }

  test('empty body and non-object body use the global texts', async () => {
    assert.deepEqual((await setup.api.post('/api/v1/transaction', '')).json, { error: 'Empty request body' });
    assert.deepEqual((await setup.api.post('/api/v1/transaction', '[1]')).json, { error: 'Request body must be a JSON object' });
  });

  test('a 400 anywhere in the request applies nothing, not even the valid operations before it', async () => {
    const queue = uniqueQueue('tx-400');
    const res = await setup.api.post('/api/v1/transaction', { operations: [{ type: 'push', items: [{ queue, payload: 1 }] }, { type: 'ack' }] });
    assert.equal(res.status, 400);
    assert.equal(await fx.queueExists(queue), false);
  });
});

describe('POST /api/v1/transaction: success', () => {
  test('pushes across queues: flattened indexes, exact result objects, payload absent -> {}', async () => {
    const a = uniqueQueue('tx-a');
    const b = uniqueQueue('tx-b');
    const body = await transaction({
      operations: [
        { type: 'push', items: [{ queue: a, transactionId: 'a-1', payload: { n: 1 } }, { queue: a, partition: 'p2', transactionId: 'a-2' }] },
        { type: 'push', items: [{ queue: b }] },
      ],
    });
    assert.deepEqual(Object.keys(body), ['transactionId', 'success', 'results']);
    assert.equal(body.success, true);
    assert.equal(body.results.length, 3);
    body.results.forEach((r: any, i: number) => {
      assert.deepEqual(Object.keys(r), PUSH_KEYS);
      assert.equal(r.index, i);
      assert.equal(r.type, 'push');
      assert.equal(r.success, true);
      assert.match(r.messageId, UUID_V7);
    });
    assert.deepEqual(body.results.map((r: any) => [r.transactionId, r.queueName]).slice(0, 2), [['a-1', a], ['a-2', a]]);
    assert.match(body.results[2].transactionId, UUID_V7, 'a missing transactionId is minted');
    assert.notEqual(body.results[0].partitionId, body.results[1].partitionId);

    const popped = await fx.popOk(a, 'p2');
    assert.deepEqual(popped.messages.map((m: any) => [m.transactionId, m.data, m.id]), [['a-2', {}, body.results[1].messageId]]);
    const fromB = await fx.popOk(b);
    assert.deepEqual(fromB.messages[0].data, {});
    assert.equal(fromB.messages[0].producerSub, null);
  });

  test('exactly-once hand-off: pop from A, push to B and ack A in one call', async () => {
    const a = uniqueQueue('tx-src');
    const b = uniqueQueue('tx-dst');
    const pid = await fx.push(a, 'Default', 1);
    const held = await fx.popOk(a);
    const body = await transaction({
      operations: [
        { type: 'push', items: [{ queue: b, transactionId: 'out-1', payload: { from: 'm-1' } }] },
        { type: 'ack', transactionId: 'm-1', partitionId: pid, leaseId: held.leaseId },
      ],
    });
    assert.equal(body.success, true);
    assert.deepEqual(Object.keys(body.results[1]), ACK_KEYS);
    assert.deepEqual(body.results[1], { index: 1, type: 'ack', success: true, transactionId: 'm-1', error: null, dlq: false, leaseReleased: true });
    assert.deepEqual(await fx.cursor(pid), { committed: 1, retry_count: 0, lease_id: null, live: false });
    assert.deepEqual((await fx.popOk(b)).messages[0].data, { from: 'm-1' });
    await fx.popEmpty(a);
  });

  test('later operations see earlier ones: a message pushed in the transaction can be acked in it', async () => {
    const queue = uniqueQueue('tx-see');
    const body = await transaction({
      operations: [
        { type: 'push', items: [{ queue, transactionId: 'x-1' }, { queue, transactionId: 'x-2' }] },
        { type: 'ack', transactionId: 'x-1', partitionId: '' },
      ],
    });
    assert.equal(body.success, false, 'a malformed partitionId finds nothing');
    assert.equal(body.error, 'ACK operation failed: Message not found');

    const pushed = await transaction({ operations: [{ type: 'push', items: [{ queue, transactionId: 'x-1' }] }] });
    const pid = pushed.results[0].partitionId;
    const both = await transaction({
      operations: [
        { type: 'push', items: [{ queue, transactionId: 'x-2' }] },
        { type: 'ack', transactionId: 'x-2', partitionId: pid, status: 'completed' },
      ],
    });
    assert.equal(both.success, true, JSON.stringify(both));
    assert.deepEqual(await fx.cursor(pid), { committed: 2, retry_count: 0, lease_id: null, live: false });
  });

  test('an ack at or below the cursor (C3) is an idempotent success and does not fail the transaction', async () => {
    const queue = uniqueQueue('tx-c3');
    const pid = await fx.push(queue, 'Default', 2);
    const held = await fx.popOk(queue, undefined, 'autoAck=true');
    assert.equal(held.leaseId, '');
    const body = await transaction({ operations: [{ type: 'ack', transactionId: 'm-1', partitionId: pid }, { type: 'push', items: [{ queue, transactionId: 'm-3' }] }] });
    assert.equal(body.success, true);
    assert.deepEqual(body.results[0], { index: 0, type: 'ack', success: true, transactionId: 'm-1', error: null, dlq: false, leaseReleased: false });
    assert.deepEqual(await fx.retained(pid), ['m-1', 'm-2', 'm-3']);
  });

  test('requiredLeases: an ack without leaseId on a pair whose live lease is listed carries that lease', async () => {
    const queue = uniqueQueue('tx-req');
    const pid = await fx.push(queue, 'Default', 1);
    const held = await fx.popOk(queue, undefined, 'consumerGroup=g');
    const without = await transaction({ operations: [{ type: 'ack', transactionId: 'm-1', partitionId: pid, consumerGroup: 'g' }] });
    assert.equal(without.success, false);
    assert.equal(without.error, 'ACK operation failed: leaseId required: partition is leased');
    const unlisted = await transaction({ operations: [{ type: 'ack', transactionId: 'm-1', partitionId: pid, consumerGroup: 'g' }], requiredLeases: [randomUUID()] });
    assert.equal(unlisted.error, 'ACK operation failed: leaseId required: partition is leased');
    assert.equal((await fx.cursor(pid, 'g'))!.live, true);

    const listed = await transaction({ operations: [{ type: 'ack', transactionId: 'm-1', partitionId: pid, consumerGroup: 'g' }], requiredLeases: [held.leaseId.toUpperCase()] });
    assert.equal(listed.success, true, JSON.stringify(listed));
    assert.equal(listed.results[0].leaseReleased, true);
    assert.deepEqual(await fx.cursor(pid, 'g'), { committed: 1, retry_count: 0, lease_id: null, live: false });
  });

  test('a dlq ack inside a transaction creates the DLQ entry and reports dlq: true', async () => {
    const queue = uniqueQueue('tx-dlq');
    const pid = await fx.push(queue, 'Default', 1);
    const held = await fx.popOk(queue);
    const body = await transaction({ operations: [{ type: 'ack', transactionId: 'm-1', partitionId: pid, leaseId: held.leaseId, status: 'dlq', error: 'bad input' }] });
    assert.deepEqual(body.results[0], { index: 0, type: 'ack', success: true, transactionId: 'm-1', error: null, dlq: true, leaseReleased: true });
    assert.deepEqual(await fx.deadLetters(pid), [{ consumer_group: '__QUEUE_MODE__', transaction_id: 'm-1', error_message: 'bad input', retry_count: 0 }]);
  });

  test('after the commit, parked pops of the pushed queue are woken at once', async () => {
    const queue = uniqueQueue('tx-wake');
    const parked = setup.api.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=15000`);
    await fx.untilQueueCreated(queue);
    const committed = Date.now();
    const body = await transaction({ operations: [{ type: 'push', items: [{ queue, transactionId: 'w-1' }] }] });
    assert.equal(body.success, true);
    const res = await parked;
    assert.equal(res.status, 200, `parked pop answered ${res.status} ${res.headers.get('x-queen-empty-reason')}`);
    assert.equal(res.json.messages[0].transactionId, 'w-1');
    assert.ok(Date.now() - committed < 5000, 'the pop was answered by the wake, not by its 20 s re-check');
  });
});

describe('POST /api/v1/transaction: failures leave nothing behind', () => {
  test('a duplicate push fails the transaction: earlier pushes and acks are rolled back, cursor and lease unmoved', async () => {
    const src = uniqueQueue('tx-dup-src');
    const dst = uniqueQueue('tx-dup-dst');
    const fresh = uniqueQueue('tx-dup-new');
    const pid = await fx.push(src, 'Default', 1);
    const dstPid = await fx.push(dst, 'Default', 1, 'dup');
    const held = await fx.popOk(src);
    const body = await transaction({
      operations: [
        { type: 'ack', transactionId: 'm-1', partitionId: pid, leaseId: held.leaseId },
        { type: 'push', items: [{ queue: fresh, transactionId: 'n-1' }, { queue: dst, transactionId: 'dup-1', payload: { again: true } }] },
        { type: 'push', items: [{ queue: dst, transactionId: 'never' }] },
      ],
    });
    assert.deepEqual(Object.keys(body), ['transactionId', 'success', 'error', 'results']);
    assert.equal(body.success, false);
    assert.equal(body.error, 'PUSH operation failed: Duplicate transactionId: dup-1');
    assert.equal(body.results.length, 3, 'results end with the failing operation');
    assert.deepEqual(body.results[0], { index: 0, type: 'ack', success: true, transactionId: 'm-1', error: null, dlq: false, leaseReleased: true });
    assert.equal(body.results[1].success, true);
    assert.deepEqual(body.results[2], { index: 2, type: 'push', success: false, transactionId: 'dup-1', queueName: dst, error: 'Duplicate transactionId: dup-1' });

    const cursor = await fx.cursor(pid);
    assert.equal(cursor!.committed, 0, 'the ack was rolled back');
    assert.equal(cursor!.lease_id, held.leaseId, 'the lease is still the pop\'s');
    assert.equal(cursor!.live, true);
    assert.deepEqual(await fx.retained(dstPid), ['dup-1']);
    assert.equal(await fx.queueExists(fresh), false, 'the implicitly created queue was rolled back too');
    assert.equal((await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: held.leaseId })).success, true, 'the lease still works');
  });

  test('a duplicate within one push op fails too', async () => {
    const queue = uniqueQueue('tx-dup-self');
    const body = await transaction({ operations: [{ type: 'push', items: [{ queue, transactionId: 's' }, { queue, transactionId: 's' }] }] });
    assert.equal(body.error, 'PUSH operation failed: Duplicate transactionId: s');
    assert.deepEqual(body.results.map((r: any) => [r.index, r.success]), [[0, true], [1, false]]);
    assert.equal(await fx.queueExists(queue), false);
  });

  test('a stale lease fails the transaction: the push before it is rolled back, the cursor stays', async () => {
    const src = uniqueQueue('tx-stale');
    const dst = uniqueQueue('tx-stale-dst');
    const pid = await fx.push(src, 'Default', 1);
    const first = await fx.popOk(src);
    assert.equal((await fx.ack({ transactionId: 'm-1', partitionId: pid, leaseId: first.leaseId, status: 'retry' })).leaseReleased, true);
    const second = await fx.popOk(src);
    assert.notEqual(second.leaseId, first.leaseId);
    const body = await transaction({
      operations: [
        { type: 'push', items: [{ queue: dst, transactionId: 'out' }] },
        { type: 'ack', transactionId: 'm-1', partitionId: pid, leaseId: first.leaseId },
      ],
    });
    assert.equal(body.success, false);
    assert.equal(body.error, 'ACK operation failed: Invalid or expired lease');
    assert.deepEqual(body.results[1], { index: 1, type: 'ack', success: false, transactionId: 'm-1', error: 'Invalid or expired lease', dlq: false, leaseReleased: false });
    assert.equal(await fx.queueExists(dst), false);
    assert.deepEqual(await fx.cursor(pid), { committed: 0, retry_count: 0, lease_id: second.leaseId, live: true });
  });

  test('a failing push item (checks of docs/api.md 4.4) fails the transaction with its error; maxSize too', async () => {
    const queue = uniqueQueue('tx-item');
    const invalid = await transaction({ operations: [{ type: 'push', items: [{ queue, transactionId: 'ok' }, { queue: '', transactionId: 'bad' }] }] });
    assert.equal(invalid.error, 'PUSH operation failed: Invalid queue name');
    assert.deepEqual(invalid.results[1], { index: 1, type: 'push', success: false, transactionId: 'bad', queueName: '', error: 'Invalid queue name' });
    const trace = await transaction({ operations: [{ type: 'push', items: [{ queue, traceId: 'nope' }] }] });
    assert.equal(trace.error, 'PUSH operation failed: Invalid traceId: must be a UUID');
    assert.equal(await fx.queueExists(queue), false);

    const capped = uniqueQueue('tx-cap');
    await fx.configure(capped, { maxSize: 1 });
    const full = await transaction({ operations: [{ type: 'push', items: [{ queue: capped, transactionId: 'c-1' }, { queue: capped, transactionId: 'c-2' }] }] });
    assert.equal(full.error, `PUSH operation failed: Queue '${capped}' would exceed max capacity`);
    await fx.popEmpty(capped);
  });

  test('an unknown operation type fails the transaction when reached', async () => {
    const queue = uniqueQueue('tx-unknown');
    const body = await transaction({ operations: [{ type: 'push', items: [{ queue }] }, { type: 'bogus' }, { type: 'push', items: [{ queue }] }] });
    assert.equal(body.success, false);
    assert.equal(body.error, 'Unknown operation type: bogus');
    assert.equal(body.results.length, 2);
    assert.deepEqual(body.results[1], { index: 1, type: 'bogus', success: false, error: 'Unknown operation type: bogus' });
    assert.equal(await fx.queueExists(queue), false);
    const untyped = await transaction({ operations: [{ items: [] }] });
    assert.equal(untyped.error, 'Unknown operation type: undefined');
    assert.deepEqual(untyped.results, [{ index: 0, type: null, success: false, error: 'Unknown operation type: undefined' }]);
  });

  test('a failed ack with retry budget spends nothing when the transaction fails later', async () => {
    const queue = uniqueQueue('tx-failed');
    const pid = await fx.push(queue, 'Default', 1);
    const held = await fx.popOk(queue);
    const body = await transaction({
      operations: [
        { type: 'ack', transactionId: 'm-1', partitionId: pid, leaseId: held.leaseId, status: 'failed' },
        { type: 'bogus' },
      ],
    });
    assert.equal(body.results[0].leaseReleased, true);
    assert.equal(body.success, false);
    assert.deepEqual(await fx.cursor(pid), { committed: 0, retry_count: 0, lease_id: held.leaseId, live: true });
  });
});

describe('POST /api/v1/transaction: concurrency', () => {
  test('transactions pushing to two partitions in opposite orders all commit (a deadlock victim is run again)', async () => {
    const queue = uniqueQueue('tx-order');
    const rounds = 15;
    const answers = await Promise.all(Array.from({ length: rounds }, (_, i) => [
      setup.api.post('/api/v1/transaction', { operations: [
        { type: 'push', items: [{ queue, partition: 'left', transactionId: `l-a${i}` }] },
        { type: 'push', items: [{ queue, partition: 'right', transactionId: `r-a${i}` }] },
      ] }),
      setup.api.post('/api/v1/transaction', { operations: [
        { type: 'push', items: [{ queue, partition: 'right', transactionId: `r-b${i}` }] },
        { type: 'push', items: [{ queue, partition: 'left', transactionId: `l-b${i}` }] },
      ] }),
    ]).flat());
    for (const res of answers) {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.success, true, res.text);
    }
    const stored = await setup.db.query(
      `SELECT p.name, sum(s.last_offset - s.first_offset + 1)::int AS n FROM queen.partitions p
         JOIN queen.queues q ON q.id = p.queue_id JOIN queen.segments s ON s.partition_id = p.id
        WHERE q.name = $1 GROUP BY p.name ORDER BY p.name`,
      [queue],
    );
    assert.deepEqual(stored.rows, [{ name: 'left', n: 2 * rounds }, { name: 'right', n: 2 * rounds }]);
  });
});
