/**
 * Leases (seed document "Leases and concurrency"; docs/api.md 5.9 rule 3, 5.10, 5.11): one live lease per
 * (partition, group), skipping leased partitions, expiry and redelivery, lease length, autoAck.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker, type TestResponse } from '../support/harness.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const QUEUE_MODE = '__QUEUE_MODE__';

const setup = useBroker();

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const txIds = (body: any): string[] => body.messages.map((m: any) => m.transactionId);

function ok200(res: TestResponse<any>, group = QUEUE_MODE): any {
  assert.equal(res.status, 200, `expected 200, got ${res.status} ${res.text}`);
  assert.equal(res.json.success, true);
  assert.equal(res.json.consumerGroup, group);
  for (const m of res.json.messages) {
    assert.equal(m.leaseId, res.json.leaseId);
    assert.equal(m.consumerGroup, group);
  }
  return res.json;
}

function assertEmpty(res: TestResponse<any>, reason: string): void {
  assert.equal(res.status, 204, `expected 204, got ${res.status} ${res.text}`);
  assert.equal(res.text, '');
  assert.equal(res.headers.get('x-queen-empty-reason'), reason);
}

async function push(queue: string, partition: string, ids: string[]): Promise<any[]> {
  const res = await setup.api.push(ids.map((id) => ({ queue, partition, transactionId: id, payload: { id } })));
  assert.equal(res.status, 201, res.text);
  for (const r of res.json) assert.equal(r.status, 'queued', JSON.stringify(r));
  return res.json;
}

/** Seconds until the lease of (queue, partition, group) expires, per the database clock; null when none. */
async function leaseRemaining(queue: string, partition: string, group: string): Promise<number | null> {
  const rows = await setup.db.query(
    `SELECT extract(epoch FROM c.lease_expires_at - now())::float8 AS s
     FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
     WHERE q.name = $1 AND p.name = $2 AND c.consumer_group = $3`,
    [queue, partition, group],
  );
  assert.equal(rows.rows.length, 1, 'the (partition, group) has a cursor row');
  return rows.rows[0]!.s;
}

function assertAbout(actual: number | null, expected: number, label: string): void {
  assert.ok(actual !== null, `${label}: a lease is recorded`);
  assert.ok(actual! > expected - 3 && actual! <= expected + 0.5, `${label}: lease of ~${expected}s expected, remaining ${actual}s`);
}

describe('one live lease per (partition, group)', () => {
  test('a second pop of the same group on a leased partition gets 204 leased; other groups are not blocked', async () => {
    const queue = uniqueQueue('lease-one');
    await push(queue, 'P', ['m1', 'm2', 'm3']);
    const first = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&batch=1`), 'g');
    assert.deepEqual(txIds(first), ['m1']);

    // The rest of the partition (m2, m3) is not claimable for g while the lease lives: not even the tail.
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&batch=10`), 'leased');
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=g&batch=10`), 'none');
    assertEmpty(await setup.api.get(`/api/v1/pop?namespace=${queue}&consumerGroup=g&batch=10`), 'none');

    const other = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=h&batch=10`), 'h');
    assert.deepEqual(txIds(other), ['m1', 'm2', 'm3']);
    const qm = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?batch=2`));
    assert.deepEqual(txIds(qm), ['m1', 'm2']);

    const rows = await setup.db.query(
      `SELECT c.consumer_group, c.lease_id::text AS lease_id, c.lease_span_end::int AS span_end
       FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
       WHERE q.name = $1 ORDER BY c.consumer_group`,
      [queue],
    );
    assert.deepEqual(rows.rows, [
      { consumer_group: QUEUE_MODE, lease_id: qm.leaseId, span_end: 2 },
      { consumer_group: 'g', lease_id: first.leaseId, span_end: 1 },
      { consumer_group: 'h', lease_id: other.leaseId, span_end: 3 },
    ]);
  });

  test('an ack that settles the span releases the lease and the next pop continues after the cursor', async () => {
    const queue = uniqueQueue('lease-ack');
    await push(queue, 'P', ['m1', 'm2']);
    const first = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?batch=1`));
    const ack = await setup.api.post('/api/v1/ack', { transactionId: 'm1', partitionId: first.partitionId, leaseId: first.leaseId });
    assert.equal(ack.json[0].success, true, ack.text);
    assert.equal(ack.json[0].leaseReleased, true);
    const second = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?batch=10`));
    assert.deepEqual(txIds(second), ['m2']);
    assert.notEqual(second.leaseId, first.leaseId);
  });

  test('wildcard pops skip leased partitions: three pops with partitions=1 take three different partitions', async () => {
    const queue = uniqueQueue('lease-skip');
    for (const p of ['a', 'b', 'c']) await push(queue, p, [`${p}1`, `${p}2`]);
    const claimed: string[] = [];
    const delivered: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const body = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&partitions=1`));
      assert.equal(body.partitionsClaimed, 1);
      claimed.push(body.partition);
      delivered.push(...txIds(body));
      assert.deepEqual(txIds(body), [`${body.partition}1`, `${body.partition}2`]);
    }
    assert.deepEqual([...claimed].sort(), ['a', 'b', 'c']);
    assert.deepEqual(delivered.sort(), ['a1', 'a2', 'b1', 'b2', 'c1', 'c2']);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&partitions=1`), 'none');
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&partitions=0`), 'none');
  });

  test('concurrent pops of one group never share a partition or a message', async () => {
    const queue = uniqueQueue('lease-race');
    const partitions = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'];
    for (const p of partitions) await push(queue, p, [`${p}-1`, `${p}-2`, `${p}-3`]);
    const results = await Promise.all(Array.from({ length: 10 }, () => setup.api.get(`/api/v1/pop/queue/${queue}?batch=3&consumerGroup=race`)));
    const delivered: string[] = [];
    const seenPartitions: string[] = [];
    for (const res of results) {
      if (res.status === 204) {
        assert.equal(res.headers.get('x-queen-empty-reason'), 'none');
        continue;
      }
      const body = ok200(res, 'race');
      assert.equal(body.partitionsClaimed, 1);
      seenPartitions.push(body.partition);
      delivered.push(...txIds(body));
    }
    assert.equal(new Set(seenPartitions).size, seenPartitions.length, 'one live lease per partition');
    assert.equal(new Set(delivered).size, delivered.length, 'no message delivered twice');
    // Whatever the racing pops did not take is still there, in order, for the same group.
    const rest = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=100&partitions=0&consumerGroup=race`);
    if (rest.status === 200) delivered.push(...txIds(ok200(rest, 'race')));
    else assertEmpty(rest, 'none');
    assert.deepEqual(delivered.sort(), partitions.flatMap((p) => [`${p}-1`, `${p}-2`, `${p}-3`]).sort());
  });
});

describe('lease expiry', () => {
  test('an expired lease redelivers the same transactionIds in the same order under a new leaseId', async () => {
    const queue = uniqueQueue('expiry');
    await push(queue, 'P', ['e1', 'e2', 'e3', 'e4']);
    const first = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?batch=3&leaseSeconds=1&consumerGroup=g`), 'g');
    assert.deepEqual(txIds(first), ['e1', 'e2', 'e3']);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?batch=3&consumerGroup=g`), 'leased');

    await sleep(1600);
    const again = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?batch=3&leaseSeconds=30&consumerGroup=g`), 'g');
    assert.deepEqual(txIds(again), ['e1', 'e2', 'e3']);
    assert.deepEqual(again.messages.map((m: any) => m.id), first.messages.map((m: any) => m.id));
    assert.deepEqual(again.messages.map((m: any) => m.data), first.messages.map((m: any) => m.data));
    assert.match(again.leaseId, UUID_V7);
    assert.notEqual(again.leaseId, first.leaseId);

    // Expiry never spends retry budget.
    const rows = await setup.db.query(
      `SELECT c.retry_count, c.committed::int AS committed FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
       JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND c.consumer_group = 'g'`,
      [queue],
    );
    assert.deepEqual(rows.rows, [{ retry_count: 0, committed: 0 }]);
    const dlq = await setup.db.query(
      `SELECT count(*)::int AS n FROM queen.dead_letters d JOIN queen.partitions p ON p.id = d.partition_id
       JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1`,
      [queue],
    );
    assert.equal(dlq.rows[0]!.n, 0);

    // The old lease id is dead: acking with it is refused, the new one works.
    const stale = await setup.api.post('/api/v1/ack', { transactionId: 'e1', partitionId: first.partitionId, leaseId: first.leaseId, consumerGroup: 'g' });
    assert.equal(stale.json[0].success, false);
    assert.equal(stale.json[0].error, 'Invalid or expired lease');
    const fresh = await setup.api.post('/api/v1/ack', { transactionId: 'e3', partitionId: again.partitionId, leaseId: again.leaseId, consumerGroup: 'g' });
    assert.equal(fresh.json[0].success, true, fresh.text);
    const next = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?batch=3&consumerGroup=g`), 'g');
    assert.deepEqual(txIds(next), ['e4']);
  });

  test('a wildcard pop takes an expired partition again', async () => {
    const queue = uniqueQueue('expiry-wild');
    await push(queue, 'P', ['w1', 'w2']);
    const first = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&leaseSeconds=1`));
    assert.deepEqual(txIds(first), ['w1', 'w2']);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10`), 'none');
    await sleep(1600);
    const again = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10`));
    assert.deepEqual(txIds(again), ['w1', 'w2']);
    assert.notEqual(again.leaseId, first.leaseId);
  });
});

describe('retryDelay', () => {
  test('after a failed ack the (partition, group) is not claimable for retryDelay: 204 retry_delay, then redelivery', async () => {
    const queue = uniqueQueue('retry-delay');
    const conf = await setup.api.post('/api/v1/configure', { queue, options: { retryDelay: 1500 } });
    assert.equal(conf.status, 200, conf.text);
    await push(queue, 'Default', ['r1', 'r2']);
    const first = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&consumerGroup=g`), 'g');
    assert.deepEqual(txIds(first), ['r1', 'r2']);
    const ack = await setup.api.post('/api/v1/ack', { transactionId: 'r1', partitionId: first.partitionId, leaseId: first.leaseId, consumerGroup: 'g', status: 'failed' });
    assert.equal(ack.json[0].success, true, ack.text);
    assert.equal(ack.json[0].leaseReleased, true);
    const failedAt = Date.now();
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Default?batch=10&consumerGroup=g`), 'retry_delay');
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&consumerGroup=g`), 'none');
    // Other groups are unaffected.
    assert.deepEqual(txIds(ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&consumerGroup=h`), 'h')), ['r1', 'r2']);
    await sleep(Math.max(0, failedAt + 1700 - Date.now()));
    const again = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Default?batch=10&consumerGroup=g`), 'g');
    assert.deepEqual(txIds(again), ['r1', 'r2']);
    assert.notEqual(again.leaseId, first.leaseId);
  });
});

describe('lease length', () => {
  test('leaseSeconds overrides the queue lease for that call', async () => {
    const queue = uniqueQueue('lease-len');
    await push(queue, 'P', ['l1']);
    ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?leaseSeconds=7&consumerGroup=a`), 'a');
    assertAbout(await leaseRemaining(queue, 'P', 'a'), 7, 'leaseSeconds=7');
    ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?leaseSeconds=600&consumerGroup=b`), 'b');
    assertAbout(await leaseRemaining(queue, 'P', 'b'), 600, 'leaseSeconds=600');
  });

  test('an implicitly created queue leases for 60 s when leaseSeconds is absent, 0 or negative; a non-integer is a 400', async () => {
    const queue = uniqueQueue('lease-implicit');
    await push(queue, 'P', ['i1']);
    const junk = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=junk&leaseSeconds=abc`);
    assert.deepEqual([junk.status, junk.json.error], [400, `Invalid leaseSeconds: must be an integer of seconds up to 315360000 (0 or less: the queue's leaseTime) (got "abc")`]);
    const variants: Record<string, string> = { absent: '', zero: '&leaseSeconds=0', negative: '&leaseSeconds=-5' };
    for (const [group, variant] of Object.entries(variants)) {
      ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=${group}${variant}`), group);
      assertAbout(await leaseRemaining(queue, 'P', group), 60, `implicit queue, leaseSeconds ${variant || 'absent'}`);
    }
  });

  test('a queue created by a pop also leases for 60 s', async () => {
    const queue = uniqueQueue('lease-popcreated');
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}`), 'none');
    await push(queue, 'P', ['x']);
    ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?leaseSeconds=0`));
    assertAbout(await leaseRemaining(queue, 'P', QUEUE_MODE), 60, 'pop-created queue');
  });

  test('/configure with defaults gives 300 s; a configured leaseTime applies; leaseTime 0 means 60', async () => {
    const cases: { options: Record<string, unknown> | undefined; expected: number }[] = [
      { options: undefined, expected: 300 },
      { options: {}, expected: 300 },
      { options: { leaseTime: 17 }, expected: 17 },
      { options: { leaseTime: 0 }, expected: 60 },
    ];
    for (const { options, expected } of cases) {
      const queue = uniqueQueue('lease-conf');
      const conf = await setup.api.post('/api/v1/configure', options === undefined ? { queue } : { queue, options });
      assert.equal(conf.status, 200, conf.text);
      await push(queue, 'Default', ['c1']);
      ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?leaseSeconds=0&consumerGroup=g0`), 'g0');
      assertAbout(await leaseRemaining(queue, 'Default', 'g0'), expected, `configure ${JSON.stringify(options)}`);
      ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=gabsent`), 'gabsent');
      assertAbout(await leaseRemaining(queue, 'Default', 'gabsent'), expected, `configure ${JSON.stringify(options)}, absent`);
      ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=gover&leaseSeconds=9`), 'gover');
      assertAbout(await leaseRemaining(queue, 'Default', 'gover'), 9, `configure ${JSON.stringify(options)}, override`);
    }
  });

  test('a push after /configure does not reset the configured leaseTime', async () => {
    const queue = uniqueQueue('lease-conf-push');
    await setup.api.post('/api/v1/configure', { queue, options: { leaseTime: 23 } });
    await push(queue, 'Other', ['o1']);
    ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Other`));
    assertAbout(await leaseRemaining(queue, 'Other', QUEUE_MODE), 23, 'configured 23');
  });

  test('one discovery pop leases each partition with its own queue leaseTime under one leaseId', async () => {
    const ns = `lns${randomUUID().slice(0, 8)}`;
    const configured = `${ns}.conf`;
    const implicit = `${ns}.impl`;
    await setup.api.post('/api/v1/configure', { queue: configured, options: { leaseTime: 17 } });
    await push(configured, 'Default', ['c1']);
    await push(implicit, 'Default', ['i1']);
    const body = ok200(await setup.api.get(`/api/v1/pop?namespace=${ns}&batch=10&partitions=0`));
    assert.equal(body.queue, '');
    assert.equal(body.partitionsClaimed, 2);
    assert.deepEqual(txIds(body).sort(), ['c1', 'i1']);
    assertAbout(await leaseRemaining(configured, 'Default', QUEUE_MODE), 17, 'discovery, configured queue');
    assertAbout(await leaseRemaining(implicit, 'Default', QUEUE_MODE), 60, 'discovery, implicit queue');
    const leases = await setup.db.query(
      `SELECT DISTINCT c.lease_id::text AS lease_id FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
       JOIN queen.queues q ON q.id = p.queue_id WHERE q.namespace = $1`,
      [ns],
    );
    assert.deepEqual(leases.rows, [{ lease_id: body.leaseId }]);

    const override = ok200(await setup.api.get(`/api/v1/pop?namespace=${ns}&batch=10&partitions=0&consumerGroup=o&leaseSeconds=5`), 'o');
    assert.equal(override.partitionsClaimed, 2);
    assertAbout(await leaseRemaining(configured, 'Default', 'o'), 5, 'discovery override, configured queue');
    assertAbout(await leaseRemaining(implicit, 'Default', 'o'), 5, 'discovery override, implicit queue');
  });
});

describe('autoAck', () => {
  test('autoAck commits the cursor in the pop: empty leaseId, no lease, nothing redelivered', async () => {
    const queue = uniqueQueue('autoack');
    await push(queue, 'P', ['a1', 'a2', 'a3', 'a4']);
    const first = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=2&autoAck=true&leaseSeconds=1`);
    const body = ok200(first);
    assert.equal(body.leaseId, '');
    for (const m of body.messages) assert.equal(m.leaseId, '');
    assert.deepEqual(txIds(body), ['a1', 'a2']);
    const state = await setup.db.query(
      `SELECT c.committed::int AS committed, c.lease_id, c.lease_expires_at FROM queen.cursors c
       JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
       WHERE q.name = $1 AND c.consumer_group = $2`,
      [queue, QUEUE_MODE],
    );
    assert.equal(state.rows.length, 1);
    assert.equal(state.rows[0]!.committed, 2);
    assert.ok(state.rows[0]!.lease_expires_at === null || state.rows[0]!.lease_expires_at <= new Date(), 'no live lease after autoAck');

    // Not leased: the single-partition route serves the next messages at once.
    const second = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?batch=2&autoAck=1&leaseSeconds=1`));
    assert.equal(second.leaseId, '');
    assert.deepEqual(txIds(second), ['a3', 'a4']);

    await sleep(2000);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10`), 'none');
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?batch=10`), 'none');
  });

  test('autoAck resets the retry counter', async () => {
    const queue = uniqueQueue('autoack-retry');
    await push(queue, 'Default', ['r1', 'r2']);
    const first = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=g`), 'g');
    const failed = await setup.api.post('/api/v1/ack', { transactionId: 'r1', partitionId: first.partitionId, leaseId: first.leaseId, consumerGroup: 'g', status: 'failed' });
    assert.equal(failed.json[0].success, true, failed.text);
    const state = `SELECT c.committed::int AS committed, c.retry_count FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
       JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND c.consumer_group = 'g'`;
    assert.deepEqual((await setup.db.query(state, [queue])).rows, [{ committed: 0, retry_count: 1 }]);
    const auto = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=g&autoAck=true`), 'g');
    assert.deepEqual(txIds(auto), ['r1']);
    assert.deepEqual((await setup.db.query(state, [queue])).rows, [{ committed: 1, retry_count: 0 }]);
  });

  test('autoAck in a named group commits only that group', async () => {
    const queue = uniqueQueue('autoack-group');
    await push(queue, 'Default', ['n1', 'n2']);
    const body = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&autoAck=true&consumerGroup=fast`), 'fast');
    assert.equal(body.leaseId, '');
    assert.deepEqual(txIds(body), ['n1', 'n2']);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&consumerGroup=fast`), 'none');
    const slow = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&consumerGroup=slow`), 'slow');
    assert.deepEqual(txIds(slow), ['n1', 'n2']);
    assert.match(slow.leaseId, UUID_V7);
  });

  test('autoAck=false or 0 leases; any other value than true/1/false/0 is a 400', async () => {
    const queue = uniqueQueue('autoack-false');
    await push(queue, 'Default', ['f1']);
    const refused = await setup.api.get(`/api/v1/pop/queue/${queue}?autoAck=yes`);
    assert.equal(refused.status, 400, refused.text);
    const body = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?autoAck=false`));
    assert.match(body.leaseId, UUID_V7);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Default`), 'leased');
    for (const value of ['false', '0']) {
      const group = `g${value}`;
      const other = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?autoAck=${value}&consumerGroup=${group}`), group);
      assert.match(other.leaseId, UUID_V7, `autoAck=${value} is false`);
    }
  });

  test('acking an auto-acked message is a harmless idempotent success', async () => {
    const queue = uniqueQueue('autoack-ack');
    await push(queue, 'Default', ['k1', 'k2']);
    const body = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=1&autoAck=true&consumerGroup=g`), 'g');
    const partitionId = body.partitionId;
    const expected = [{ index: 0, transactionId: 'k1', success: true, error: null, queueName: queue, partitionName: 'Default', leaseReleased: false, dlq: false }];
    const plain = await setup.api.post('/api/v1/ack', { transactionId: 'k1', partitionId, consumerGroup: 'g' });
    assert.equal(plain.status, 200);
    assert.deepEqual(plain.json, expected);
    const emptyLease = await setup.api.post('/api/v1/ack', { transactionId: 'k1', partitionId, consumerGroup: 'g', leaseId: '' });
    assert.deepEqual(emptyLease.json, expected);
    const failed = await setup.api.post('/api/v1/ack', { transactionId: 'k1', partitionId, consumerGroup: 'g', status: 'failed' });
    assert.deepEqual(failed.json, expected);
    // Nothing moved: the next pop of g gets k2, and k1 never comes back.
    const next = ok200(await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&consumerGroup=g`), 'g');
    assert.deepEqual(txIds(next), ['k2']);
    const rows = await setup.db.query(
      `SELECT c.committed::int AS committed, c.retry_count FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
       JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND c.consumer_group = 'g'`,
      [queue],
    );
    assert.deepEqual(rows.rows, [{ committed: 1, retry_count: 0 }]);
  });
});
