/**
 * Queue builder against a real broker: create/config/delete, push (payload rule, client-minted UUIDv7 ids,
 * traceIds of any version, callbacks, PUSH_FAILED), pop routes and parameters (autoAck fix), trace().
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { messaging, UUID_V7 } from '../../server/test/support/messaging.js';
import { QUEUE_DEFAULTS, QueenError, type Message, type PushItem, type PushResultItem } from '../src/index.js';
import { recordingLogger, testClient } from './support.js';

const setup = useBroker();
const queen = () => testClient(setup.broker.url);

interface Order {
  orderId: string;
  amountCents: number;
}

describe('create, config, delete', () => {
  test('create() sends QUEUE_DEFAULTS merged with config(), namespace and task', async () => {
    const name = uniqueQueue('orders');
    const res = await queen().queue(name).namespace('shop').task('billing').config({ leaseTime: 42, retryLimit: 7 }).create();
    assert.equal(res.configured, true);
    assert.equal(res.namespace, 'shop');
    assert.equal(res.task, 'billing');
    assert.equal(res.options.leaseTime, 42);
    assert.equal(res.options.retryLimit, 7);
    assert.equal(res.options.priority, QUEUE_DEFAULTS.priority);
    const plain = await queen().queue(`${name}.x`).create();
    assert.equal(plain.options.leaseTime, 300);
    assert.equal(plain.namespace, name);
  });

  test('create() rejects with QueenError on a 400, onError absorbs it, onSuccess sees the result', async () => {
    await assert.rejects(Promise.resolve(queen().queue('q').config({ leaseTime: -1 }).create()), (e: QueenError) => e.code === 'HTTP' && e.status === 400 && e.message === 'Invalid option leaseTime: must be a non-negative integer');
    let seen: unknown;
    const absorbed = await queen().queue('q').config({ leaseTime: -1 }).create().onError((e) => (seen = e));
    assert.equal(absorbed, undefined);
    assert.ok(seen instanceof QueenError);
    let ok: unknown;
    await queen().queue(uniqueQueue()).create().onSuccess((r) => (ok = r.configured));
    assert.equal(ok, true);
  });

  test('delete() reports existed', async () => {
    const name = uniqueQueue();
    await queen().queue(name).create();
    assert.deepEqual(await queen().queue(name).delete(), { deleted: true, queue: name, existed: true });
    assert.deepEqual(await queen().queue(name).delete(), { deleted: true, queue: name, existed: false });
  });
});

describe('push', () => {
  test('payload rule: data, else payload, else the whole item; ids are client-minted UUIDv7', async () => {
    const name = uniqueQueue();
    const q = queen();
    const results = await q.queue<unknown>(name).push([{ data: { a: 1 } }, { payload: { b: 2 } }, { c: 3, transactionId: 'mine' }, 'plain']);
    assert.equal(results.length, 4);
    assert.ok(results.every((r) => r.status === 'queued'));
    assert.match(results[0]!.transaction_id, UUID_V7);
    assert.match(results[1]!.transaction_id, UUID_V7);
    assert.equal(results[2]!.transaction_id, 'mine');
    const popped = await q.queue(name).batch(10).wait(false).pop();
    assert.deepEqual(popped.map((m) => m.data), [{ a: 1 }, { b: 2 }, { c: 3, transactionId: 'mine' }, 'plain']);
    assert.deepEqual(popped.map((m) => m.partition), ['Default', 'Default', 'Default', 'Default']);
  });

  test('a retried push with the same minted ids deduplicates (onDuplicate gets only its items)', async () => {
    const name = uniqueQueue();
    const q = queen();
    const first = await q.queue(name).push([{ data: 1, transactionId: 'dup-1' }]);
    assert.equal(first[0]!.status, 'queued');
    const calls: Record<string, PushItem[]> = {};
    const results = await q
      .queue(name)
      .push([{ data: 2, transactionId: 'dup-1' }, { data: 3, transactionId: 'new-1' }])
      .onSuccess((items) => (calls.success = items))
      .onDuplicate((items, error) => {
        calls.duplicate = items;
        assert.equal(error.message, 'Duplicate transactionId');
      });
    assert.deepEqual(results.map((r) => r.status), ['duplicate', 'queued']);
    assert.deepEqual(calls.duplicate!.map((i) => i.transactionId), ['dup-1']);
    assert.deepEqual(calls.success!.map((i) => i.transactionId), ['new-1']);
  });

  test('traceId: any UUID version is forwarded; anything else is dropped with a warning', async () => {
    const name = uniqueQueue();
    const logger = recordingLogger();
    const q = testClient(setup.broker.url, { logger });
    const v1 = 'c232ab00-9414-11ec-b3c8-9f6bdeced846';
    const v7 = '01890a5d-ac96-774b-bcce-b302099a8057';
    const results = await q.queue(name).push([{ data: 1, traceId: v1 }, { data: 2, traceId: v7.toUpperCase() }, { data: 3, traceId: 'not-a-uuid' }]);
    assert.deepEqual(results.map((r) => (r.status === 'queued' ? r.trace_id : 'x')), [v1, v7, null]);
    const warn = logger.entries.find((e) => e.level === 'warn');
    assert.equal(warn?.msg, 'traceId dropped: not a UUID');
    const popped = await q.queue(name).batch(3).wait(false).pop();
    assert.deepEqual(popped.map((m) => m.traceId), [v1, v7, null]);
  });

  test('failed items reject with PUSH_FAILED, or go to onError with only their items', async () => {
    const name = uniqueQueue();
    const q = queen();
    await q.queue(name).config({ maxSize: 1 }).create();
    const error = await Promise.resolve(q.queue(name).push([{ data: 1 }, { data: 2 }])).then(
      () => assert.fail('expected PUSH_FAILED'),
      (e: QueenError) => e,
    );
    assert.equal(error.code, 'PUSH_FAILED');
    assert.equal((error.results as PushResultItem[])[0]!.status, 'failed');
    let failedItems: PushItem[] = [];
    const results = await q
      .queue(name)
      .push([{ data: 3 }])
      .onError((items, e) => {
        failedItems = items;
        assert.equal(e.code, 'PUSH_FAILED');
      });
    assert.equal(results[0]!.status, 'failed');
    assert.deepEqual(failedItems.map((i) => i.payload), [3]);
  });

  test('a transport failure goes to onError (resolving []) or rejects', async () => {
    const { deadUrl } = await import('./support.js');
    const q = testClient(await deadUrl(), { retryAttempts: 1 });
    let seen: QueenError | undefined;
    assert.deepEqual(await q.queue('q').push([{ data: 1 }]).onError((_, e) => (seen = e)), []);
    assert.equal(seen?.code, 'NETWORK');
    await assert.rejects(Promise.resolve(q.queue('q').push([{ data: 1 }])), (e: QueenError) => e.code === 'NETWORK');
  });

  test('push() without a queue name rejects (never throws), and onError sees it', async () => {
    const q = queen();
    let pending: PromiseLike<unknown> | undefined;
    assert.doesNotThrow(() => (pending = q.queue().push({ data: 1 })));
    await assert.rejects(Promise.resolve(pending), (e: QueenError) => e.code === 'VALIDATION' && e.message === 'push() needs a queue name');
    let seen: QueenError | undefined;
    assert.deepEqual(await q.queue().push({ data: 1 }).onError((_, e) => (seen = e)), []);
    assert.equal(seen?.code, 'VALIDATION');
  });
});

describe('pop', () => {
  test('partition route, wildcard route, leaseSeconds, message fields and a non-enumerable trace()', async () => {
    const name = uniqueQueue();
    const q = queen();
    await q.queue<Order>(name).partition('p1').push([{ data: { orderId: 'o1', amountCents: 100 } }]);
    await q.queue<Order>(name).partition('p2').push([{ data: { orderId: 'o2', amountCents: 200 } }]);
    const fromP2 = await q.queue<Order>(name).partition('p2').leaseSeconds(120).wait(false).pop();
    assert.equal(fromP2.length, 1);
    const msg = fromP2[0]!;
    assert.equal(msg.data.amountCents, 200);
    assert.equal(msg.partition, 'p2');
    assert.deepEqual(Object.keys(msg).sort(), ['consumerGroup', 'createdAt', 'data', 'id', 'leaseId', 'partition', 'partitionId', 'producerSub', 'traceId', 'transactionId']);
    assert.ok(!JSON.stringify(msg).includes('trace"'));
    const detail = await setup.db.query<{ live: boolean; secs: number }>(
      `SELECT extract(epoch FROM lease_expires_at - now())::int AS secs FROM queen.cursors WHERE partition_id = $1`,
      [msg.partitionId],
    );
    assert.ok(detail.rows[0]!.secs > 100 && detail.rows[0]!.secs <= 120, `lease of ${detail.rows[0]!.secs} s`);
    const traced = await msg.trace({ traceName: 'checkout', data: { step: 1 } });
    assert.equal(traced.success, true);
    assert.match(traced.traceId!, UUID_V7);
    const traces = await q.admin.getTracesForMessage(msg.partitionId, msg.transactionId);
    assert.deepEqual(traces.traces.map((t: { trace_names: string[]; event_type: string }) => [t.trace_names, t.event_type]), [[['checkout'], 'info']]);
    const wildcard = await q.queue<Order>(name).wait(false).pop();
    assert.equal(wildcard[0]!.data.orderId, 'o1');
  });

  test('trace() never throws: a missing message resolves success:false', async () => {
    const name = uniqueQueue();
    const q = queen();
    await q.queue(name).push([{ data: 1 }]);
    const [msg] = await q.queue(name).wait(false).pop();
    await q.admin.deleteMessage(msg!.partitionId, msg!.transactionId);
    assert.deepEqual(await msg!.trace({ data: 'x' }), { success: false, error: 'Message not found' });
  });

  test('autoAck(true) sends autoAck=true: no lease, the message is consumed (fix 1)', async () => {
    const name = uniqueQueue();
    const q = queen();
    await q.queue(name).push([{ data: 1 }, { data: 2 }]);
    const [m] = await q.queue(name).autoAck(true).wait(false).pop();
    assert.equal(m!.leaseId, '');
    const next = await q.queue(name).wait(false).pop();
    assert.deepEqual(next.map((x) => x.data), [2], 'the auto-acked message is not redelivered');
    const cursor = await messaging(setup.api, setup.db).cursor(m!.partitionId);
    assert.equal(cursor?.committed, 1);
  });

  test('empty pops are [], a waiting pop parks until a push arrives', async () => {
    const name = uniqueQueue();
    const q = queen();
    assert.deepEqual(await q.queue(name).wait(false).pop(), []);
    const parked = q.queue(name).wait(true).timeoutMillis(10_000).pop();
    await new Promise((r) => setTimeout(r, 300));
    await q.queue(name).push([{ data: 'wake' }]);
    const got = await parked;
    assert.deepEqual(got.map((m: Message) => m.data), ['wake']);
  });

  test('a 4xx rejects; discovery without namespace/task is a VALIDATION error before any request', async () => {
    const q = queen();
    await assert.rejects(q.queue('x'.repeat(256)).wait(false).pop(), (e: QueenError) => e.code === 'HTTP' && e.status === 400 && e.message === 'Invalid queue name');
    await assert.rejects(q.queue().pop(), (e: QueenError) => e.code === 'VALIDATION');
  });

  test('discovery consumer: queue() with namespace/task pops across matching queues', async () => {
    const ns = uniqueQueue('ns');
    const q = queen();
    await q.queue(`${ns}.alpha`).push([{ data: 'a' }]);
    await q.queue(`${ns}.beta`).push([{ data: 'b' }]);
    await q.queue(`${uniqueQueue('other')}.alpha`).push([{ data: 'no' }]);
    const got = await q.queue().namespace(ns).batch(10).partitions(0).wait(false).pop();
    assert.deepEqual(got.map((m) => m.data).sort(), ['a', 'b']);
    const byTask = await q.queue().namespace(ns).task('alpha').wait(false).pop();
    assert.deepEqual(byTask, [], 'already leased');
  });

  test('consumer groups fan out; subscriptionMode new skips the backlog; partitions() caps partitions per pop', async () => {
    const name = uniqueQueue();
    const q = queen();
    await q.queue(name).partition('a').push([{ data: 'a1' }]);
    await q.queue(name).partition('b').push([{ data: 'b1' }]);
    const one = await q.queue(name).group('g1').batch(10).wait(false).pop();
    assert.equal(one.length, 1, 'partitions defaults to 1');
    const two = await q.queue(name).group('g2').batch(10).partitions(2).wait(false).pop();
    assert.equal(two.length, 2);
    assert.ok(two.every((m) => m.consumerGroup === 'g2'));
    assert.deepEqual(await q.queue(name).group('late').subscriptionMode('new').wait(false).pop(), []);
    await q.queue(name).partition('a').push([{ data: 'a2' }]);
    const late = await q.queue(name).group('late').subscriptionFrom('now').batch(10).wait(false).pop();
    assert.deepEqual(late.map((m) => m.data), ['a2']);
  });

  test('names are percent-encoded on every route', async () => {
    const name = `${uniqueQueue()}/with space?#%`;
    const q = queen();
    await q.queue(name).partition('p/1 x').push([{ data: 1 }]);
    const got = await q.queue(name).partition('p/1 x').wait(false).pop();
    assert.equal(got.length, 1);
    const detail = await q.admin.getQueue(name);
    assert.equal('name' in detail && detail.name, name);
  });
});
