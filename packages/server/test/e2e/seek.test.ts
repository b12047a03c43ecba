/**
 * Seek (docs/api.md 7.7 rules 3-4): a consumer group's cursors on every partition of a queue, or on one
 * partition, moved to the end or to a timestamp; never-contacted partitions contacted at the target (no
 * seeding from subscription records); live leases released; retry counter and not-before reset; parked pops
 * woken when a cursor moves backwards or a lease is released.
 *
 * Segment times are set through SQL to fixed instants, so "after T" is exact.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../support/harness.js';
import {
  assertNoMessages, cursorOf, messageIdOf, parkedPop, popped, pushIds, setSegmentTime, type Api,
} from '../support/group-fixtures.js';

/** A broker whose parked pops re-check only every 5 s: a quick answer can only come from a wake. */
const SLOW_TICKS = { POP_WAIT_INITIAL_INTERVAL_MS: '5000', POP_WAIT_MAX_INTERVAL_MS: '5000' };
const T1 = '2020-01-01T00:00:01.000Z';
const T2 = '2020-01-01T00:00:02.000Z';
const T3 = '2020-01-01T00:00:03.000Z';
const BEFORE_ALL = '2019-12-31T23:59:59Z';

let db: TestDatabase;
let broker: BrokerProcess;
let slow: BrokerProcess;
let api: Api;
let slowApi: Api;

before(async () => {
  db = await createDatabase();
  [broker, slow] = await Promise.all([startBroker(db), startBroker(db, SLOW_TICKS)]);
  api = client(broker.url);
  slowApi = client(slow.url);
});
after(async () => {
  await Promise.all([broker?.stop(), slow?.stop()]);
  await db?.close();
});

const uniqueGroup = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;
const seekPath = (group: string, queue: string): string => `/api/v1/consumer-groups/${group}/queues/${queue}/seek`;
const partitionSeekPath = (group: string, queue: string, partition: string): string =>
  `/api/v1/consumer-groups/${group}/queues/${queue}/partitions/${partition}/seek`;
/** Everything claimable for the group, settled at once, sorted. */
const drain = async (target: Api, queue: string, group: string): Promise<string[]> => {
  const res = await target.get(`/api/v1/pop/queue/${queue}?consumerGroup=${group}&batch=100&partitions=0&autoAck=true`);
  return res.status === 204 ? [] : popped(res).sort();
};

/** P1: [a1 a2] at T1, [a3] at T2, [a4 a5] at T3; P2: [b1] at T1, [b2] at T3. */
async function timedQueue(prefix: string): Promise<string> {
  const queue = uniqueQueue(prefix);
  const segments: Array<[string, string[], string]> = [
    ['P1', ['a1', 'a2'], T1], ['P1', ['a3'], T2], ['P1', ['a4', 'a5'], T3], ['P2', ['b1'], T1], ['P2', ['b2'], T3],
  ];
  for (const [partition, ids] of segments) await pushIds(api, queue, partition, ids);
  for (const [partition, ids, at] of segments) await setSegmentTime(db, queue, partition, at, ids);
  return queue;
}

describe('POST /api/v1/consumer-groups/:group/queues/:queue/seek', () => {
  test('request errors: 400 with the exact texts', async () => {
    const path = seekPath(uniqueGroup('err'), uniqueQueue('seek-err'));
    const cases: Array<[unknown, string]> = [
      [{}, "Must specify either 'toEnd': true or 'timestamp'"],
      [{ toEnd: false }, "Must specify either 'toEnd': true or 'timestamp'"],
      [{ toEnd: 'true' }, "Must specify either 'toEnd': true or 'timestamp'"],
      [{ timestamp: null }, "Must specify either 'toEnd': true or 'timestamp'"],
      [{ timestamp: 'garbage' }, 'Invalid timestamp'],
      [{ timestamp: 1_700_000_000_000 }, 'Invalid timestamp'],
      [{ timestamp: 'now' }, 'Invalid timestamp'],
      [{ timestamp: '2020-02-30T00:00:00Z' }, 'Invalid timestamp'],
    ];
    for (const [body, error] of cases) {
      const res = await api.post(path, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.json, { error }, JSON.stringify(body));
    }
    const empty = await api.post(path, '');
    assert.deepEqual([empty.status, empty.json], [400, { error: 'Empty request body' }]);
    const group = await api.post(seekPath('g'.repeat(256), uniqueQueue('seek-err')), { toEnd: true });
    assert.deepEqual([group.status, group.json], [400, { error: 'Invalid consumerGroup' }]);
    const queue = await api.post(seekPath('g', 'q'.repeat(256)), { toEnd: true });
    assert.deepEqual([queue.status, queue.json], [400, { error: 'Invalid queue name' }]);
  });

  test('a missing queue: success:false, Queue not found, X-Queen-Status: 404', async () => {
    const queue = uniqueQueue('seek-missing');
    const res = await api.post(seekPath('g', queue), { toEnd: true });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-queen-status'), '404');
    assert.deepEqual(res.json, { success: false, error: 'Queue not found' });
    const rows = await db.query('SELECT 1 FROM queen.queues WHERE name = $1', [queue]);
    assert.equal(rows.rows.length, 0, 'seek never creates a queue');
  });

  test('to a timestamp: exactly the messages of the segments after it are delivered again, on every partition', async () => {
    const queue = await timedQueue('seek-ts');
    const group = uniqueGroup('ts');
    assert.deepEqual(await drain(api, queue, group), ['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b2']);

    const res = await api.post(seekPath(group, queue), { timestamp: '2020-01-01T02:00:02+02:00' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      success: true, consumerGroup: group, queueName: queue, seekToEnd: false, targetTimestamp: T2, partitionsUpdated: 2,
    });
    assert.deepEqual(await drain(api, queue, group), ['a4', 'a5', 'b2'], 'segments created at or before T settled');
    assert.deepEqual(await drain(api, queue, group), []);

    const cases: Array<[string, string[]]> = [
      ['2020-01-01T00:00:01.5Z', ['a3', 'a4', 'a5', 'b2']],
      [T1, ['a3', 'a4', 'a5', 'b2']],
      ['2020-01-01T00:00:00.999Z', ['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b2']],
      [BEFORE_ALL, ['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b2']],
      ['2030-01-01T00:00:00Z', []],
    ];
    for (const [at, expected] of cases) {
      const seek = await api.post(seekPath(group, queue), { timestamp: at });
      assert.equal(seek.json.success, true, seek.text);
      assert.deepEqual(await drain(api, queue, group), expected, `after a seek to ${at}`);
    }
  });

  test('releases live leases and resets the retry counter and not-before', async () => {
    const queue = uniqueQueue('seek-lease');
    const group = uniqueGroup('lease');
    const configured = await api.post('/api/v1/configure', { queue, options: { retryDelay: 600_000, retryLimit: 5 } });
    assert.equal(configured.status, 200, configured.text);
    await pushIds(api, queue, 'P1', ['m1', 'm2']);
    await pushIds(api, queue, 'P2', ['n1']);
    const failed = await api.get(`/api/v1/pop/queue/${queue}/partition/P1?consumerGroup=${group}&batch=10`);
    assert.deepEqual(popped(failed), ['m1', 'm2']);
    const nack = await api.post('/api/v1/ack', { transactionId: 'm1', partitionId: failed.json.partitionId, leaseId: failed.json.leaseId, consumerGroup: group, status: 'failed' });
    assert.equal(nack.json[0].success, true, nack.text);
    const leased = await api.get(`/api/v1/pop/queue/${queue}/partition/P2?consumerGroup=${group}`);
    assert.deepEqual(popped(leased), ['n1']);
    assert.equal((await cursorOf(db, queue, 'P1', group))?.retry_count, 1);
    assert.notEqual((await cursorOf(db, queue, 'P1', group))?.not_before, null);
    assert.equal((await cursorOf(db, queue, 'P2', group))?.live, true);
    assertNoMessages(await api.get(`/api/v1/pop/queue/${queue}?consumerGroup=${group}&partitions=0`));

    const res = await api.post(seekPath(group, queue), { timestamp: BEFORE_ALL });
    assert.equal(res.json.partitionsUpdated, 3, '/configure created Default too');
    for (const partition of ['P1', 'P2', 'Default']) {
      assert.deepEqual(await cursorOf(db, queue, partition, group), { committed: 0, lease_id: null, live: false, retry_count: 0, not_before: null }, partition);
    }
    const stale = await api.post('/api/v1/ack', { transactionId: 'n1', partitionId: leased.json.partitionId, leaseId: leased.json.leaseId, consumerGroup: group });
    assert.equal(stale.json[0].error, 'Invalid or expired lease');
    assert.deepEqual(await drain(api, queue, group), ['m1', 'm2', 'n1']);
  });

  test('toEnd skips everything stored and contacts never-contacted partitions, whatever their subscription', async () => {
    const queue = uniqueQueue('seek-end');
    const group = uniqueGroup('end');
    await pushIds(api, queue, 'P1', ['a1', 'a2']);
    await pushIds(api, queue, 'P2', ['b1']);
    assertNoMessages(await api.get(`/api/v1/pop/queue/${queue}?consumerGroup=${group}&subscriptionFrom=2100-01-01T00:00:00Z`));
    assert.equal(await cursorOf(db, queue, 'P1', group), null, 'a future subscription contacts nothing');

    const res = await api.post(seekPath(group, queue), { toEnd: true, timestamp: 'ignored when toEnd is true' });
    assert.deepEqual(res.json, { success: true, consumerGroup: group, queueName: queue, seekToEnd: true, targetTimestamp: null, partitionsUpdated: 2 });
    assert.equal((await cursorOf(db, queue, 'P1', group))?.committed, 2);
    assert.equal((await cursorOf(db, queue, 'P2', group))?.committed, 1);
    await pushIds(api, queue, 'P1', ['a3']);
    assert.deepEqual(await drain(api, queue, group), ['a3'], 'contacted at the end, not held back by the 2100 subscription');

    // Back to the beginning: contacted pairs are not re-seeded from the record either.
    await api.post(seekPath(group, queue), { timestamp: BEFORE_ALL });
    assert.deepEqual(await drain(api, queue, group), ['a1', 'a2', 'a3', 'b1']);
  });

  test('a queue without partitions: success, nothing updated', async () => {
    const queue = uniqueQueue('seek-empty');
    assertNoMessages(await api.get(`/api/v1/pop/queue/${queue}`));
    const res = await api.post(seekPath('g', queue), { toEnd: true });
    assert.deepEqual(res.json, { success: true, consumerGroup: 'g', queueName: queue, seekToEnd: true, targetTimestamp: null, partitionsUpdated: 0 });
  });
});

describe('seek wakes parked pops', () => {
  test('a cursor moved backwards wakes a parked pop of the group at once', async () => {
    const queue = uniqueQueue('seek-wake');
    const group = uniqueGroup('wake');
    await pushIds(slowApi, queue, 'P', ['m1', 'm2']);
    assert.deepEqual(await drain(slowApi, queue, group), ['m1', 'm2']);
    const parked = await parkedPop(db, slowApi, queue, 'P', group);
    const seek = await slowApi.post(seekPath(group, queue), { timestamp: BEFORE_ALL });
    const seekedAt = Date.now();
    assert.equal(seek.json.success, true);
    const res = await parked.response;
    assert.deepEqual(popped(res), ['m1']);
    assert.ok(Date.now() - seekedAt < 1000, `woken ${Date.now() - seekedAt} ms after the seek, not by a 5 s re-check`);
  });

  test('a released lease wakes a parked pop of the group, in another broker too', async () => {
    const queue = uniqueQueue('seek-wake-lease');
    const group = uniqueGroup('wake');
    await pushIds(slowApi, queue, 'P', ['m1', 'm2']);
    assert.deepEqual(popped(await slowApi.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=${group}&batch=10`)), ['m1', 'm2']);
    const parked = await parkedPop(db, slowApi, queue, 'P', group);
    // The cursor stays at 0: only the lease release can make the partition claimable.
    const seek = await api.post(partitionSeekPath(group, queue, 'P'), { timestamp: BEFORE_ALL });
    const seekedAt = Date.now();
    assert.equal(seek.json.cursorMovedTo, null);
    const res = await parked.response;
    assert.deepEqual(popped(res), ['m1']);
    assert.ok(Date.now() - seekedAt < 1000, `woken ${Date.now() - seekedAt} ms after the seek, not by a 5 s re-check`);
  });
});

describe('POST /api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek', () => {
  test('an empty body or {} means toEnd; cursorMovedTo is the id of the last settled message', async () => {
    const queue = await timedQueue('pseek-end');
    const group = uniqueGroup('pend');
    const a5 = await messageIdOf(db, queue, 'P1', 'a5');
    for (const body of ['', {}, { toEnd: true }, { toEnd: null }]) {
      const res = await api.post(partitionSeekPath(group, queue, 'P1'), body);
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.deepEqual(res.json, { success: true, consumerGroup: group, queueName: queue, partitionName: 'P1', updated: true, cursorMovedTo: a5 });
    }
    assert.equal(await cursorOf(db, queue, 'P2', group), null, 'the other partition is not contacted');
    assert.deepEqual(await drain(api, queue, group), ['b1', 'b2']);
  });

  test('to a timestamp: only that partition moves', async () => {
    const queue = await timedQueue('pseek-ts');
    const group = uniqueGroup('pts');
    assert.deepEqual(await drain(api, queue, group), ['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b2']);
    const res = await api.post(partitionSeekPath(group, queue, 'P1'), { timestamp: T1 });
    assert.deepEqual(res.json, {
      success: true, consumerGroup: group, queueName: queue, partitionName: 'P1', updated: true, cursorMovedTo: await messageIdOf(db, queue, 'P1', 'a2'),
    });
    assert.equal((await cursorOf(db, queue, 'P2', group))?.committed, 2);
    assert.deepEqual(await drain(api, queue, group), ['a3', 'a4', 'a5']);

    const first = await api.post(partitionSeekPath(group, queue, 'P1'), { timestamp: BEFORE_ALL });
    assert.equal(first.json.cursorMovedTo, null, 'nothing settled');
    assert.deepEqual(await drain(api, queue, group), ['a1', 'a2', 'a3', 'a4', 'a5']);
  });

  test('request errors and misses', async () => {
    const queue = uniqueQueue('pseek-miss');
    await pushIds(api, queue, 'P1', ['a1']);
    const errors: Array<[unknown, string]> = [
      [{ toEnd: false }, "Must specify either 'toEnd': true or 'timestamp'"],
      [{ timestamp: 'x' }, 'Invalid timestamp'],
    ];
    for (const [body, error] of errors) {
      const res = await api.post(partitionSeekPath('g', queue, 'P1'), body);
      assert.deepEqual([res.status, res.json], [400, { error }]);
    }
    const long = await api.post(partitionSeekPath('g', queue, 'x'.repeat(256)), {});
    assert.deepEqual([long.status, long.json], [400, { error: 'Invalid partition name' }], 'a name no partition can have (docs/api.md 1.10)');
    for (const path of [partitionSeekPath('g', queue, 'nope'), partitionSeekPath('g', uniqueQueue('none'), 'P1')]) {
      const res = await api.post(path, {});
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-queen-status'), '404');
      assert.deepEqual(res.json, { success: false, error: 'Partition not found' });
    }
    assert.equal(await cursorOf(db, queue, 'P1', 'g'), null);
  });
});
