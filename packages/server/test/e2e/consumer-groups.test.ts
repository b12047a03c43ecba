/**
 * Consumer groups (docs/api.md 7.7, rules 1-2): the listing with its lag figures and states, lagging pairs, one
 * group's detail, deletion (all queues or one; with and without the subscription records) and re-subscription
 * per the group's mode, and the subscription re-timing route. Seek is in seek.test.ts.
 *
 * Lag figures are hand-computed from the offsets of each case; time lags are made deterministic by setting
 * segment times through SQL (allowing a few seconds for the test itself to run).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';
import { assertNoMessages, cursorOf, popped, pushIds, recordsOf, setSegmentTime } from '../support/group-fixtures.js';

const QUEUE_MODE = '__QUEUE_MODE__';
const MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const setup = useBroker();

const uniqueGroup = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;
const wildcard = (queue: string, query: string) => setup.api.get(`/api/v1/pop/queue/${queue}?batch=100&partitions=0&${query}`);

function within(value: number, min: number, max: number, label: string): void {
  assert.ok(value >= min && value <= max, `${label}: ${value} not in [${min}, ${max}]`);
}

async function ack(transactionId: string, partitionId: string, group: string, leaseId?: string) {
  const res = await setup.api.post('/api/v1/ack', { transactionId, partitionId, consumerGroup: group, ...(leaseId ? { leaseId } : {}) });
  assert.equal(res.status, 200, res.text);
  return res.json[0];
}

describe('GET /api/v1/consumer-groups', () => {
  test('no group anywhere: []', async () => {
    const res = await setup.api.get('/api/v1/consumer-groups');
    assert.equal(res.status, 200);
    assert.equal(res.text, '[]');
  });

  test('one element per (group, queue) with members, lag, state and the queue-wide subscription', async () => {
    const queue = uniqueQueue('cg-list');
    const [dead, stable, future] = [uniqueGroup('d'), uniqueGroup('s'), uniqueGroup('f')];
    await pushIds(setup.api, queue, 'P1', ['a1', 'a2', 'a3']);
    await pushIds(setup.api, queue, 'P2', ['b1', 'b2']);
    // Queue mode settles a1 on P1 only; `dead` settles everything; `stable` subscribes at the tail (new).
    assert.deepEqual(popped(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P1?autoAck=true`)), ['a1']);
    assert.deepEqual(popped(await wildcard(queue, `consumerGroup=${dead}&autoAck=true`)).sort(), ['a1', 'a2', 'a3', 'b1', 'b2']);
    assertNoMessages(await wildcard(queue, `consumerGroup=${stable}&subscriptionMode=new`));
    assertNoMessages(await wildcard(queue, `consumerGroup=${future}&subscriptionFrom=2100-01-01T00:00:00Z`));
    await pushIds(setup.api, queue, 'P1', ['a4']);
    await setSegmentTime(setup.db, queue, 'P1', 400, ['a1']);
    await setup.db.query(
      `UPDATE queen.cursors SET last_activity_at = now() - interval '25 hours' WHERE consumer_group = $1`,
      [dead],
    );
    const record = (await setup.db.query(
      `SELECT queen.format_millis(s.subscribed_from) AS at, queen.format_millis(s.created_at) AS created
       FROM queen.subscriptions s WHERE s.consumer_group = $1`,
      [stable],
    )).rows[0]!;

    const res = await setup.api.get('/api/v1/consumer-groups');
    assert.equal(res.status, 200);
    const mine = res.json.filter((g: any) => g.queueName === queue);
    assert.deepEqual(mine.map((g: any) => g.name), [QUEUE_MODE, dead, future, stable].sort());
    const byName = new Map(mine.map((g: any) => [g.name, g]));
    for (const g of mine) {
      assert.deepEqual(Object.keys(g), ['name', 'topics', 'queueName', 'members', 'partitionsWithLag', 'totalLag', 'maxTimeLag', 'state',
        'subscriptionMode', 'subscriptionTimestamp', 'subscriptionCreatedAt']);
    }

    // Queue mode: contacted P1 only, cursor 1 of 4 -> a2, a3, a4 unconsumed, its head a2 400 s old; P2, which it
    // has not touched, counts from the start: b1, b2 unconsumed (just pushed).
    const qm: any = byName.get(QUEUE_MODE);
    within(qm.maxTimeLag, 400, 405, 'queue mode maxTimeLag');
    assert.deepEqual({ ...qm, maxTimeLag: 0 }, {
      name: QUEUE_MODE, topics: [queue], queueName: queue, members: 1, partitionsWithLag: 2, totalLag: 5, maxTimeLag: 0,
      state: 'Lagging', subscriptionMode: 'all', subscriptionTimestamp: null, subscriptionCreatedAt: null,
    });
    // dead: both partitions, only a4 unconsumed (pushed just now), no activity for 25 h.
    const d: any = byName.get(dead);
    within(d.maxTimeLag, 0, 5, 'dead maxTimeLag');
    assert.deepEqual({ ...d, maxTimeLag: 0 }, {
      name: dead, topics: [queue], queueName: queue, members: 2, partitionsWithLag: 1, totalLag: 1, maxTimeLag: 0,
      state: 'Dead', subscriptionMode: 'all', subscriptionTimestamp: null, subscriptionCreatedAt: null,
    });
    // stable: seeded at both tails by its `new` subscription, then a4 arrived.
    const s: any = byName.get(stable);
    within(s.maxTimeLag, 0, 5, 'stable maxTimeLag');
    assert.deepEqual({ ...s, maxTimeLag: 0 }, {
      name: stable, topics: [queue], queueName: queue, members: 2, partitionsWithLag: 1, totalLag: 1, maxTimeLag: 0,
      state: 'Stable', subscriptionMode: 'new', subscriptionTimestamp: record.at, subscriptionCreatedAt: record.created,
    });
    assert.match(record.at, MILLIS);
    // future: a record only (its start is in the future, so nothing was contacted, and nothing is unconsumed).
    const f: any = byName.get(future);
    assert.equal(f.members, 0);
    assert.equal(f.totalLag, 0);
    assert.equal(f.state, 'Stable');
    assert.equal(f.subscriptionMode, 'timestamp');
    assert.equal(f.subscriptionTimestamp, '2100-01-01T00:00:00.000Z');
  });
});

describe('GET /api/v1/consumer-groups/lagging and /:group', () => {
  const queue = uniqueQueue('cg-lag');
  const group = uniqueGroup('lag');
  let leaseId = '';
  let p1Head = '';
  let p2Head = '';

  before(async () => {
    await pushIds(setup.api, queue, 'P1', ['x1', 'x2', 'x3']);
    await pushIds(setup.api, queue, 'P2', ['y1', 'y2']);
    const leased = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P1?consumerGroup=${group}`);
    assert.deepEqual(popped(leased), ['x1']);
    leaseId = leased.json.leaseId;
    assert.deepEqual(popped(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P2?consumerGroup=${group}&autoAck=true`)), ['y1']);
    p1Head = await setSegmentTime(setup.db, queue, 'P1', 7200);
    p2Head = await setSegmentTime(setup.db, queue, 'P2', 1000);
  });

  test('pairs lagging by at least minLagSeconds (default 3600), largest lag first, exact shape', async () => {
    const byDefault = await setup.api.get('/api/v1/consumer-groups/lagging');
    assert.equal(byDefault.status, 200);
    const mine = byDefault.json.filter((p: any) => p.consumer_group === group);
    assert.equal(mine.length, 1, 'only the 7200 s pair lags by an hour');
    const [p1] = mine;
    assert.deepEqual(Object.keys(p1), ['consumer_group', 'queue_name', 'partition_name', 'partition_id', 'worker_id', 'offset_lag',
      'time_lag_seconds', 'lag_hours', 'oldest_unconsumed_at', 'last_consumed_at']);
    within(p1.time_lag_seconds, 7200, 7205, 'P1 time lag');
    assert.deepEqual({ ...p1, partition_id: '', time_lag_seconds: 0 }, {
      consumer_group: group, queue_name: queue, partition_name: 'P1', partition_id: '', worker_id: leaseId, offset_lag: 3,
      time_lag_seconds: 0, lag_hours: 2, oldest_unconsumed_at: p1Head, last_consumed_at: null,
    });

    const wide = await setup.api.get('/api/v1/consumer-groups/lagging?minLagSeconds=500');
    const both = wide.json.filter((p: any) => p.consumer_group === group);
    assert.deepEqual(both.map((p: any) => [p.partition_name, p.offset_lag, p.worker_id, p.lag_hours]), [['P1', 3, leaseId, 2], ['P2', 1, null, 0.28]]);
    within(both[1].time_lag_seconds, 1000, 1005, 'P2 time lag');
    assert.equal(both[1].oldest_unconsumed_at, p2Head);
    assert.match(both[1].last_consumed_at, MILLIS);
    const lags = wide.json.map((p: any) => p.time_lag_seconds);
    assert.deepEqual(lags, [...lags].sort((a: number, b: number) => b - a), 'largest lag first');

    const strict = await setup.api.get('/api/v1/consumer-groups/lagging?minLagSeconds=100000');
    assert.deepEqual(strict.json.filter((p: any) => p.consumer_group === group), []);
    const empty = await setup.api.get('/api/v1/consumer-groups/lagging?minLagSeconds=');
    assert.deepEqual(empty.json.filter((p: any) => p.consumer_group === group).length, 1, 'an empty value is the default');
  });

  test('minLagSeconds that is not an integer: 400', async () => {
    for (const value of ['abc', '1.5', '1e3', '99999999999999999999']) {
      const res = await setup.api.get(`/api/v1/consumer-groups/lagging?minLagSeconds=${value}`);
      assert.equal(res.status, 400, value);
      assert.deepEqual(res.json, { error: 'minLagSeconds must be an integer' });
    }
  });

  test('detail of a group: its partitions per queue, exact shape', async () => {
    const res = await setup.api.get(`/api/v1/consumer-groups/${group}`);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json), [queue]);
    const [p1, p2] = res.json[queue].partitions;
    within(p1.timeLagSeconds, 7200, 7205, 'P1');
    within(p2.timeLagSeconds, 1000, 1005, 'P2');
    assert.match(p2.lastConsumedAt, MILLIS);
    assert.deepEqual([{ ...p1, timeLagSeconds: 0 }, { ...p2, timeLagSeconds: 0, lastConsumedAt: '' }], [
      { partition: 'P1', workerId: leaseId, lastConsumedAt: null, totalConsumed: 0, offsetLag: 3, timeLagSeconds: 0, leaseActive: true },
      { partition: 'P2', workerId: null, lastConsumedAt: '', totalConsumed: 1, offsetLag: 1, timeLagSeconds: 0, leaseActive: false },
    ]);
  });

  test('detail of an unknown group is {}; an invalid group name is a 400', async () => {
    const unknown = await setup.api.get(`/api/v1/consumer-groups/${uniqueGroup('nobody')}`);
    assert.equal(unknown.status, 200);
    assert.equal(unknown.text, '{}');
    const long = await setup.api.get(`/api/v1/consumer-groups/${'g'.repeat(256)}`);
    assert.equal(long.status, 400);
    assert.deepEqual(long.json, { error: 'Invalid consumerGroup' });
    const nul = await setup.api.del('/api/v1/consumer-groups/a%00b');
    assert.equal(nul.status, 400);
    assert.deepEqual(nul.json, { error: 'Invalid consumerGroup' });
  });
});

describe('DELETE /api/v1/consumer-groups/:group', () => {
  test('removes cursors, leases and records on every queue; a pop then re-subscribes per its mode (new)', async () => {
    const [a, b] = [uniqueQueue('cg-del-a'), uniqueQueue('cg-del-b')];
    const group = uniqueGroup('del');
    await pushIds(setup.api, a, 'P', ['m1', 'm2']);
    await pushIds(setup.api, b, 'P', ['n1']);
    assertNoMessages(await wildcard(a, `consumerGroup=${group}&subscriptionMode=new`));
    await pushIds(setup.api, a, 'P', ['m3']);
    assert.deepEqual(popped(await wildcard(a, `consumerGroup=${group}`)), ['m3']);
    const leased = await wildcard(b, `consumerGroup=${group}`);
    assert.deepEqual(popped(leased), ['n1']);
    assert.deepEqual((await recordsOf(setup.db, group)).map((r) => r.slice(0, 3)), [[a, '', 'new']]);
    assert.equal((await cursorOf(setup.db, b, 'P', group))?.live, true);

    const res = await setup.api.del(`/api/v1/consumer-groups/${group}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { success: true, consumerGroup: group, deletedPartitions: 2, metadataDeleted: true });
    assert.equal(await cursorOf(setup.db, a, 'P', group), null);
    assert.equal(await cursorOf(setup.db, b, 'P', group), null);
    assert.deepEqual(await recordsOf(setup.db, group), []);

    // The lease went with the cursor.
    const stale = await ack('n1', leased.json.partitionId, group, leased.json.leaseId);
    assert.equal(stale.success, false);
    assert.equal(stale.error, 'Invalid or expired lease');
    // A new subscription on A: the backlog (m1..m4) is skipped again, only later messages arrive.
    await pushIds(setup.api, a, 'P', ['m4']);
    assertNoMessages(await wildcard(a, `consumerGroup=${group}&subscriptionMode=new`));
    await pushIds(setup.api, a, 'P', ['m5']);
    assert.deepEqual(popped(await wildcard(a, `consumerGroup=${group}`)), ['m5']);
  });

  test('a group without a subscription (mode all) replays the whole retained backlog after deletion', async () => {
    const queue = uniqueQueue('cg-del-all');
    const group = uniqueGroup('all');
    await pushIds(setup.api, queue, 'P', ['m1', 'm2', 'm3']);
    assert.deepEqual(popped(await wildcard(queue, `consumerGroup=${group}&autoAck=true`)), ['m1', 'm2', 'm3']);
    assertNoMessages(await wildcard(queue, `consumerGroup=${group}`));
    const res = await setup.api.del(`/api/v1/consumer-groups/${group}?deleteMetadata=true`);
    assert.deepEqual(res.json, { success: true, consumerGroup: group, deletedPartitions: 1, metadataDeleted: true });
    assert.deepEqual(popped(await wildcard(queue, `consumerGroup=${group}`)), ['m1', 'm2', 'm3']);
  });

  test('deleteMetadata=false keeps the records: the group restarts from its old subscription time', async () => {
    const queue = uniqueQueue('cg-del-keep');
    const group = uniqueGroup('keep');
    await pushIds(setup.api, queue, 'P', ['old']);
    assertNoMessages(await wildcard(queue, `consumerGroup=${group}&subscriptionMode=new`));
    await pushIds(setup.api, queue, 'P', ['n1', 'n2']);
    assert.deepEqual(popped(await wildcard(queue, `consumerGroup=${group}&autoAck=true`)), ['n1', 'n2']);
    const records = await recordsOf(setup.db, group);

    for (const flag of ['false', '0']) {
      const res = await setup.api.del(`/api/v1/consumer-groups/${group}?deleteMetadata=${flag}`);
      assert.deepEqual(res.json, { success: true, consumerGroup: group, deletedPartitions: flag === 'false' ? 1 : 0, metadataDeleted: false });
    }
    assert.deepEqual(await recordsOf(setup.db, group), records);
    // The kept record (taken before n1) wins over the pop's intent: n1, n2 again, never `old`.
    assert.deepEqual(popped(await wildcard(queue, `consumerGroup=${group}&subscriptionMode=all`)), ['n1', 'n2']);
  });

  test('an unknown group: nothing deleted, still a success', async () => {
    const group = uniqueGroup('ghost');
    const res = await setup.api.del(`/api/v1/consumer-groups/${group}`);
    assert.deepEqual(res.json, { success: true, consumerGroup: group, deletedPartitions: 0, metadataDeleted: true });
  });
});

describe('DELETE /api/v1/consumer-groups/:group/queues/:queue', () => {
  test('removes the group on that queue only', async () => {
    const [a, b] = [uniqueQueue('cg-dq-a'), uniqueQueue('cg-dq-b')];
    const group = uniqueGroup('dq');
    await pushIds(setup.api, a, 'P1', ['a1']);
    await pushIds(setup.api, a, 'P2', ['a2']);
    await pushIds(setup.api, b, 'P1', ['b1']);
    assert.deepEqual(popped(await wildcard(a, `consumerGroup=${group}&subscriptionFrom=2000-01-01T00:00:00Z&autoAck=true`)).sort(), ['a1', 'a2']);
    assert.deepEqual(popped(await wildcard(b, `consumerGroup=${group}&subscriptionFrom=2000-01-01T00:00:00Z&autoAck=true`)), ['b1']);

    const res = await setup.api.del(`/api/v1/consumer-groups/${group}/queues/${a}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { success: true, consumerGroup: group, queueName: a, deletedPartitions: 2, metadataDeleted: true });
    assert.equal(await cursorOf(setup.db, a, 'P1', group), null);
    assert.equal((await cursorOf(setup.db, b, 'P1', group))?.committed, 1);
    assert.deepEqual(await recordsOf(setup.db, group), [[b, '', 'timestamp', '2000-01-01T00:00:00.000Z']]);
    assert.deepEqual(popped(await wildcard(a, `consumerGroup=${group}`)).sort(), ['a1', 'a2'], 'replayed on the queue it left');
    assertNoMessages(await wildcard(b, `consumerGroup=${group}`));

    const missing = await setup.api.del(`/api/v1/consumer-groups/${group}/queues/${uniqueQueue('none')}?deleteMetadata=false`);
    assert.equal(missing.json.deletedPartitions, 0);
    assert.equal(missing.json.metadataDeleted, false);
  });
});

describe('POST /api/v1/consumer-groups/:group/subscription', () => {
  test('request errors: 400 with the exact texts; an unparsable timestamp is a success:false', async () => {
    const path = `/api/v1/consumer-groups/${uniqueGroup('sub')}/subscription`;
    const cases: Array<[unknown, string]> = [
      [{}, 'Missing subscriptionTimestamp in request body'],
      [{ subscriptionTimestamp: null }, 'Missing subscriptionTimestamp in request body'],
      [{ subscriptionTimestamp: 5 }, 'subscriptionTimestamp must be a string'],
      [{ subscriptionTimestamp: ['now'] }, 'subscriptionTimestamp must be a string'],
    ];
    for (const [body, error] of cases) {
      const res = await setup.api.post(path, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.json, { error });
    }
    const empty = await setup.api.post(path, '');
    assert.deepEqual([empty.status, empty.json], [400, { error: 'Empty request body' }]);
    const bad = await setup.api.post(path, { subscriptionTimestamp: 'yesterday' });
    assert.equal(bad.status, 200);
    assert.deepEqual(bad.json, { success: false, error: 'Invalid timestamp: yesterday' });
  });

  test('every record of the group gets the timestamp and mode timestamp; existing cursors stay', async () => {
    const [a, b] = [uniqueQueue('cg-sub-a'), uniqueQueue('cg-sub-b')];
    const group = uniqueGroup('sub');
    await pushIds(setup.api, a, 'P', ['a1', 'a2']);
    await pushIds(setup.api, b, 'P', ['b1']);
    // A queue-wide record in the future on A (nothing contacted), a partition record (new) on B.
    assertNoMessages(await wildcard(a, `consumerGroup=${group}&subscriptionFrom=2100-01-01T00:00:00Z`));
    assertNoMessages(await setup.api.get(`/api/v1/pop/queue/${b}/partition/P?consumerGroup=${group}&subscriptionFrom=now`));
    assert.equal((await cursorOf(setup.db, b, 'P', group))?.committed, 1);

    const res = await setup.api.post(`/api/v1/consumer-groups/${group}/subscription`, { subscriptionTimestamp: '2020-01-01T01:00:00+01:00' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { success: true, consumerGroup: group, newTimestamp: '2020-01-01T00:00:00.000Z', rowsUpdated: 2 });
    assert.deepEqual(await recordsOf(setup.db, group), [
      [a, '', 'timestamp', '2020-01-01T00:00:00.000Z'],
      [b, 'P', 'timestamp', '2020-01-01T00:00:00.000Z'],
    ]);
    // A's partition was never contacted: it now starts at 2020, i.e. everything. B's cursor does not move.
    assert.deepEqual(popped(await wildcard(a, `consumerGroup=${group}`)), ['a1', 'a2']);
    assertNoMessages(await wildcard(b, `consumerGroup=${group}`));
    assert.equal((await cursorOf(setup.db, b, 'P', group))?.committed, 1);
  });

  test('now: the database time; a group without records updates nothing', async () => {
    const queue = uniqueQueue('cg-sub-now');
    const group = uniqueGroup('now');
    assertNoMessages(await wildcard(queue, `consumerGroup=${group}&subscriptionMode=new`));
    const res = await setup.api.post(`/api/v1/consumer-groups/${group}/subscription`, { subscriptionTimestamp: 'now' });
    assert.equal(res.json.success, true);
    assert.equal(res.json.rowsUpdated, 1);
    assert.match(res.json.newTimestamp, MILLIS);
    assert.deepEqual(await recordsOf(setup.db, group), [[queue, '', 'timestamp', res.json.newTimestamp]]);
    const drift = Date.now() - Date.parse(res.json.newTimestamp);
    within(drift, -5000, 5000, 'now is the current time');

    const nobody = uniqueGroup('none');
    const none = await setup.api.post(`/api/v1/consumer-groups/${nobody}/subscription`, { subscriptionTimestamp: '2021-06-01T12:00:00.123456Z' });
    assert.deepEqual(none.json, { success: true, consumerGroup: nobody, newTimestamp: '2021-06-01T12:00:00.123Z', rowsUpdated: 0 });
  });
});
