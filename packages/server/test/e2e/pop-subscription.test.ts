/**
 * Subscription seeding (seed document "subscriptionMode and subscriptionFrom"; docs/api.md 5.3 steps 4-5, 5.7):
 * where a never-contacted (partition, named group) cursor starts, queue mode's exclusion, contacted pairs,
 * DEFAULT_SUBSCRIPTION_MODE, and the durable subscription record winning over the pop's intent.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { client, startBroker, uniqueQueue, useBroker, type BrokerProcess, type TestResponse } from '../support/harness.js';

const QUEUE_MODE = '__QUEUE_MODE__';

const setup = useBroker();

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function delivered(res: TestResponse<any>, group: string): string[] {
  assert.equal(res.status, 200, `expected 200, got ${res.status} ${res.text}`);
  assert.equal(res.json.consumerGroup, group);
  return res.json.messages.map((m: any) => m.transactionId);
}

function assertEmpty(res: TestResponse<any>, reason = 'none'): void {
  assert.equal(res.status, 204, `expected 204, got ${res.status} ${res.text}`);
  assert.equal(res.text, '');
  assert.equal(res.headers.get('x-queen-empty-reason'), reason);
}

async function pushWith(target: ReturnType<typeof client>, queue: string, partition: string, ids: string[]): Promise<void> {
  const res = await target.push(ids.map((id) => ({ queue, partition, transactionId: id })));
  assert.equal(res.status, 201, res.text);
  for (const r of res.json) assert.equal(r.status, 'queued', JSON.stringify(r));
}
const push = (queue: string, partition: string, ids: string[]): Promise<void> => pushWith(setup.api, queue, partition, ids);

/** The database clock, formatted like pop createdAt (microseconds, Z), optionally shifted. */
async function dbNow(shiftSeconds = 0): Promise<string> {
  const rows = await setup.db.query(
    `SELECT to_char((clock_timestamp() + make_interval(secs => $1)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t`,
    [shiftSeconds],
  );
  return rows.rows[0]!.t;
}

async function subscriptions(queue: string): Promise<{ consumer_group: string; partition_name: string; mode: string; from: string }[]> {
  const rows = await setup.db.query(
    `SELECT s.consumer_group, s.partition_name, s.mode,
            to_char(s.subscribed_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "from"
     FROM queen.subscriptions s JOIN queen.queues q ON q.id = s.queue_id WHERE q.name = $1
     ORDER BY s.consumer_group, s.partition_name`,
    [queue],
  );
  return rows.rows as any;
}

async function committed(queue: string, partition: string, group: string): Promise<number | null> {
  const rows = await setup.db.query(
    `SELECT c.committed::int AS committed FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
     JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND p.name = $2 AND c.consumer_group = $3`,
    [queue, partition, group],
  );
  return rows.rows.length === 0 ? null : rows.rows[0]!.committed;
}

const wild = (queue: string, query: string): Promise<TestResponse<any>> => setup.api.get(`/api/v1/pop/queue/${queue}?batch=100&partitions=0&${query}`);

describe('seeding a named group', () => {
  test('subscriptionMode=new skips the backlog and receives only messages pushed after its first pop', async () => {
    const queue = uniqueQueue('sub-new');
    await push(queue, 'P', ['old1', 'old2']);
    const before = await dbNow();
    assertEmpty(await wild(queue, 'consumerGroup=g&subscriptionMode=new'));
    const after = await dbNow();
    // The cursor is seeded past the backlog and persisted although nothing was delivered.
    assert.equal(await committed(queue, 'P', 'g'), 2);
    const subs = await subscriptions(queue);
    assert.equal(subs.length, 1);
    assert.equal(subs[0]!.consumer_group, 'g');
    assert.equal(subs[0]!.partition_name, '', 'the wildcard route writes a queue-wide record');
    assert.equal(subs[0]!.mode, 'new');
    assert.ok(subs[0]!.from >= before && subs[0]!.from <= after, `record time ${subs[0]!.from} within the pop`);

    await push(queue, 'P', ['new1', 'new2']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=g&subscriptionMode=new'), 'g'), ['new1', 'new2']);
    // Other groups and queue mode still see everything.
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=other'), 'other'), ['old1', 'old2', 'new1', 'new2']);
  });

  test('subscriptionMode=new applies to partitions created after the first pop only from the record time', async () => {
    const queue = uniqueQueue('sub-new-later');
    await push(queue, 'A', ['a-old']);
    assertEmpty(await wild(queue, 'consumerGroup=g&subscriptionMode=new'));
    await push(queue, 'B', ['b-new']);
    await push(queue, 'A', ['a-new']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=g'), 'g').sort(), ['a-new', 'b-new']);
  });

  test('subscriptionFrom=now behaves like new', async () => {
    const queue = uniqueQueue('sub-now');
    await push(queue, 'P', ['old1', 'old2']);
    assertEmpty(await wild(queue, 'consumerGroup=g&subscriptionFrom=now'));
    assertEmpty(await wild(queue, 'consumerGroup=g2&subscriptionFrom=now&subscriptionMode=all'), 'none');
    await push(queue, 'P', ['new1']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=g'), 'g'), ['new1']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=g2'), 'g2'), ['new1'], 'subscriptionFrom wins over subscriptionMode');
    const subs = await subscriptions(queue);
    assert.deepEqual(subs.map((s) => [s.consumer_group, s.partition_name, s.mode]), [['g', '', 'new'], ['g2', '', 'new']]);
  });

  test('subscriptionMode=new-only works as new', async () => {
    const queue = uniqueQueue('sub-newonly');
    await push(queue, 'P', ['old1']);
    assertEmpty(await wild(queue, 'consumerGroup=g&subscriptionMode=new-only'));
    await push(queue, 'P', ['new1']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=g'), 'g'), ['new1']);
  });

  test('subscriptionMode=all, an absent mode and an unknown mode start at the oldest message and write no record', async () => {
    const queue = uniqueQueue('sub-all');
    await push(queue, 'P', ['m1', 'm2']);
    await push(queue, 'P', ['m3']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=gall&subscriptionMode=all'), 'gall'), ['m1', 'm2', 'm3']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=gabsent'), 'gabsent'), ['m1', 'm2', 'm3']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=gweird&subscriptionMode=latest'), 'gweird'), ['m1', 'm2', 'm3']);
    assert.deepEqual(await subscriptions(queue), []);
  });

  test('subscriptionFrom=<timestamp> delivers the segments created at or after it', async () => {
    const queue = uniqueQueue('sub-ts');
    await push(queue, 'P', ['before1', 'before2']);
    const t = await dbNow();
    await push(queue, 'P', ['after1', 'after2']);
    await push(queue, 'P', ['after3']);

    // The same instant written three ways: Z, a +01:00 offset, and without a zone (UTC).
    const fraction = t.slice(19, 26); // ".ffffff"
    const shifted = new Date(Date.parse(t) + 3_600_000).toISOString().slice(0, 19);
    const forms: Record<string, string> = { gz: t, goffset: `${shifted}${fraction}+01:00`, gnozone: t.slice(0, -1) };
    for (const [group, value] of Object.entries(forms)) {
      const res = await wild(queue, `consumerGroup=${group}&subscriptionFrom=${encodeURIComponent(value)}`);
      assert.deepEqual(delivered(res, group), ['after1', 'after2', 'after3'], `subscriptionFrom=${value}`);
    }
    const subs = await subscriptions(queue);
    assert.deepEqual(subs.map((s) => [s.consumer_group, s.partition_name, s.mode, s.from]), [
      ['gnozone', '', 'timestamp', t],
      ['goffset', '', 'timestamp', t],
      ['gz', '', 'timestamp', t],
    ]);

    // A timestamp before everything delivers everything; it still seeds (and records) the group.
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=gpast&subscriptionFrom=2000-01-01T00:00:00Z'), 'gpast'),
      ['before1', 'before2', 'after1', 'after2', 'after3']);
    // A parseable subscriptionFrom wins over subscriptionMode.
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=gpastnew&subscriptionMode=new&subscriptionFrom=2000-01-01T00:00:00Z'), 'gpastnew'),
      ['before1', 'before2', 'after1', 'after2', 'after3']);
    assert.deepEqual(delivered(await wild(queue, `consumerGroup=gtsnew&subscriptionMode=all&subscriptionFrom=${encodeURIComponent(t)}`), 'gtsnew'),
      ['after1', 'after2', 'after3']);
  });

  test('a future subscriptionFrom delivers nothing until then', async () => {
    const queue = uniqueQueue('sub-future');
    await push(queue, 'P', ['old']);
    const t = await dbNow(1.5);
    assertEmpty(await wild(queue, `consumerGroup=g&subscriptionFrom=${encodeURIComponent(t)}`));
    await push(queue, 'P', ['early']);
    assertEmpty(await wild(queue, 'consumerGroup=g'));
    await sleep(1700);
    await push(queue, 'P', ['late']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=g'), 'g'), ['late']);
  });

  test('an unparseable subscriptionFrom is ignored: the mode (or the default all) applies', async () => {
    const queue = uniqueQueue('sub-bad-ts');
    await push(queue, 'P', ['old1', 'old2']);
    for (const bad of ['yesterday', '2024-13-45T00:00:00Z', '2024-02-30T10:00:00Z', '12345', 'now-ish']) {
      const group = `g${randomUUID().slice(0, 6)}`;
      assert.deepEqual(delivered(await wild(queue, `consumerGroup=${group}&subscriptionFrom=${encodeURIComponent(bad)}`), group), ['old1', 'old2'], bad);
    }
    assertEmpty(await wild(queue, 'consumerGroup=gnew&subscriptionMode=new&subscriptionFrom=garbage'));
    assert.deepEqual((await subscriptions(queue)).map((s) => [s.consumer_group, s.mode]), [['gnew', 'new']]);
    await push(queue, 'P', ['new1']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=gnew'), 'gnew'), ['new1']);
  });

  test('the single-partition route seeds that partition and writes a partition-scoped record', async () => {
    const queue = uniqueQueue('sub-single');
    await push(queue, 'A', ['a-old']);
    await push(queue, 'B', ['b-old']);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/A?consumerGroup=g&subscriptionMode=new`));
    assert.deepEqual((await subscriptions(queue)).map((s) => [s.consumer_group, s.partition_name, s.mode]), [['g', 'A', 'new']]);
    assert.equal(await committed(queue, 'A', 'g'), 1);
    // Partition B has no applicable record: its first contact with intent `all` starts at the oldest.
    assert.deepEqual(delivered(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/B?consumerGroup=g`), 'g'), ['b-old']);
    await push(queue, 'A', ['a-new']);
    assert.deepEqual(delivered(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/A?consumerGroup=g`), 'g'), ['a-new']);
  });

  test('the discovery route seeds too and records the subscription on first contact', async () => {
    const ns = `sns${randomUUID().slice(0, 8)}`;
    const queue = `${ns}.task.q`;
    await push(queue, 'P', ['old1']);
    assertEmpty(await setup.api.get(`/api/v1/pop?namespace=${ns}&consumerGroup=g&subscriptionMode=new&batch=10`));
    assert.deepEqual((await subscriptions(queue)).map((s) => [s.consumer_group, s.partition_name, s.mode]), [['g', '', 'new']]);
    await push(queue, 'P', ['new1']);
    const res = await setup.api.get(`/api/v1/pop?namespace=${ns}&consumerGroup=g&batch=10`);
    assert.deepEqual(delivered(res, 'g'), ['new1']);
    assert.equal(res.json.queue, '');
  });

  test('a group may subscribe before the queue exists: the pop creates the queue and the record', async () => {
    const queue = uniqueQueue('sub-early');
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=early&subscriptionMode=new`));
    assert.deepEqual((await subscriptions(queue)).map((s) => [s.consumer_group, s.partition_name, s.mode]), [['early', '', 'new']]);
    await push(queue, 'P', ['first']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=early'), 'early'), ['first']);
  });
});

describe('queue mode is never seeded', () => {
  test('a queue-mode pop gets the whole backlog whatever seeding parameters it carries', async () => {
    const queue = uniqueQueue('sub-qmode');
    await push(queue, 'P', ['q1', 'q2']);
    assert.deepEqual(delivered(await wild(queue, 'subscriptionMode=new&autoAck=true'), QUEUE_MODE), ['q1', 'q2']);
    const queue2 = uniqueQueue('sub-qmode2');
    await push(queue2, 'P', ['r1']);
    assert.deepEqual(delivered(await wild(queue2, `consumerGroup=${QUEUE_MODE}&subscriptionFrom=now`), QUEUE_MODE), ['r1']);
    const queue3 = uniqueQueue('sub-qmode3');
    await push(queue3, 'P', ['s1']);
    assert.deepEqual(delivered(await setup.api.get(`/api/v1/pop/queue/${queue3}/partition/P?consumerGroup=&subscriptionMode=new-only`), QUEUE_MODE), ['s1']);
    const queue4 = uniqueQueue('sub-qmode4');
    await push(queue4, 'P', ['t1']);
    assert.deepEqual(delivered(await setup.api.get(`/api/v1/pop?namespace=${queue4}&subscriptionFrom=${encodeURIComponent(await dbNow(60))}`), QUEUE_MODE), ['t1']);
    for (const q of [queue, queue2, queue3, queue4]) assert.deepEqual(await subscriptions(q), [], `no record for queue mode on ${q}`);
  });
});

describe('contacted pairs ignore seeding', () => {
  test('a later subscriptionMode=new does not skip anything for a group that already contacted the partition', async () => {
    const queue = uniqueQueue('sub-contacted');
    await push(queue, 'P', ['m1', 'm2']);
    const first = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&batch=1`);
    assert.deepEqual(delivered(first, 'g'), ['m1']);
    const ack = await setup.api.post('/api/v1/ack', { transactionId: 'm1', partitionId: first.json.partitionId, leaseId: first.json.leaseId, consumerGroup: 'g' });
    assert.equal(ack.json[0].success, true, ack.text);
    await push(queue, 'P', ['m3']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=g&subscriptionMode=new&subscriptionFrom=now'), 'g'), ['m2', 'm3']);
  });

  test('a later subscriptionMode=all does not rewind a group seeded with new', async () => {
    const queue = uniqueQueue('sub-contacted2');
    await push(queue, 'P', ['m1', 'm2']);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&subscriptionMode=new`));
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&subscriptionMode=all`));
    assertEmpty(await wild(queue, 'consumerGroup=g&subscriptionFrom=2000-01-01T00:00:00Z'));
    await push(queue, 'P', ['m3']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=g&subscriptionMode=all'), 'g'), ['m3']);
  });
});

describe('the subscription record wins over later pop intent', () => {
  test('record (new, T0): a later pop with a future subscriptionFrom on a new partition still starts at T0', async () => {
    const queue = uniqueQueue('sub-rec-new');
    await push(queue, 'A', ['a-old']);
    assertEmpty(await wild(queue, 'consumerGroup=g&subscriptionMode=new'));
    const record = await subscriptions(queue);
    assert.deepEqual(record.map((s) => [s.consumer_group, s.partition_name, s.mode]), [['g', '', 'new']]);

    await push(queue, 'B', ['b1', 'b2']);
    // The pop's own intent (a timestamp an hour ahead) would skip b1 and b2; the record says T0, which is older.
    const future = await dbNow(3600);
    assert.deepEqual(delivered(await wild(queue, `consumerGroup=g&subscriptionFrom=${encodeURIComponent(future)}`), 'g'), ['b1', 'b2']);
    assert.deepEqual(await subscriptions(queue), record, 'the record is neither replaced nor re-timed');

    await push(queue, 'C', ['c1']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=g&subscriptionMode=all'), 'g'), ['c1']);
    assert.deepEqual(await subscriptions(queue), record);
  });

  test('record (timestamp in the future): a later pop with subscriptionMode=all on a new partition skips what precedes it', async () => {
    const queue = uniqueQueue('sub-rec-ts');
    const future = await dbNow(1.5);
    assertEmpty(await wild(queue, `consumerGroup=g&subscriptionFrom=${encodeURIComponent(future)}`));
    assert.deepEqual((await subscriptions(queue)).map((s) => [s.consumer_group, s.partition_name, s.mode, s.from]), [['g', '', 'timestamp', future]]);

    await push(queue, 'New', ['n-early']);
    assertEmpty(await wild(queue, 'consumerGroup=g&subscriptionMode=all'));
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/New?consumerGroup=g&subscriptionMode=all`));
    // Another group without a record reads it.
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=h&subscriptionMode=all'), 'h'), ['n-early']);

    await sleep(1700);
    await push(queue, 'New', ['n-late']);
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=g'), 'g'), ['n-late']);
  });

  test('a partition-scoped record wins over a later queue-wide one for its partition', async () => {
    const queue = uniqueQueue('sub-rec-part');
    await push(queue, 'Other', ['o-old']);
    // Partition P does not exist yet: 204 no_partition, but the record for (g, queue, P) is written.
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&subscriptionMode=new`), 'no_partition');
    const future = await dbNow(3600);
    assertEmpty(await wild(queue, `consumerGroup=g&subscriptionFrom=${encodeURIComponent(future)}`));
    assert.deepEqual((await subscriptions(queue)).map((s) => [s.consumer_group, s.partition_name, s.mode]), [['g', '', 'timestamp'], ['g', 'P', 'new']]);
    await push(queue, 'P', ['p1']);
    await push(queue, 'Fresh', ['f1']);
    // P starts at its own record (p1 is newer); Fresh follows the queue-wide record (an hour ahead).
    assert.deepEqual(delivered(await wild(queue, 'consumerGroup=g'), 'g'), ['p1']);
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Fresh?consumerGroup=g`));
  });

  test('a queue-wide record also governs partitions first reached through the single-partition route', async () => {
    const queue = uniqueQueue('sub-rec-scope');
    const future = await dbNow(3600);
    assertEmpty(await wild(queue, `consumerGroup=g&subscriptionFrom=${encodeURIComponent(future)}`));
    await push(queue, 'P', ['p1']);
    // The pop's own intent (a timestamp long past) would deliver p1; the queue-wide record (an hour ahead) wins.
    assertEmpty(await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P?consumerGroup=g&subscriptionFrom=2000-01-01T00:00:00Z`));
    // The partition-scoped write yields to the existing queue-wide record.
    assert.deepEqual((await subscriptions(queue)).map((s) => [s.consumer_group, s.partition_name]), [['g', '']]);
  });
});

describe('DEFAULT_SUBSCRIPTION_MODE=new', () => {
  let newBroker: BrokerProcess;
  let newApi: ReturnType<typeof client>;
  before(async () => {
    newBroker = await startBroker(setup.db, { DEFAULT_SUBSCRIPTION_MODE: 'new' });
    newApi = client(newBroker.url);
  });
  after(async () => {
    await newBroker?.stop();
  });

  test('a named group without subscriptionMode skips the backlog; explicit all and queue mode do not', async () => {
    const queue = uniqueQueue('sub-env');
    await pushWith(newApi, queue, 'P', ['old1', 'old2']);
    const popNew = (query: string): Promise<TestResponse<any>> => newApi.get(`/api/v1/pop/queue/${queue}?batch=100&${query}`);
    assertEmpty(await popNew('consumerGroup=g'));
    assert.deepEqual(delivered(await popNew('consumerGroup=gall&subscriptionMode=all'), 'gall'), ['old1', 'old2']);
    assert.deepEqual(delivered(await popNew(''), QUEUE_MODE), ['old1', 'old2']);
    assert.deepEqual((await subscriptions(queue)).map((s) => [s.consumer_group, s.mode]), [['g', 'new']]);
    await pushWith(newApi, queue, 'P', ['new1']);
    assert.deepEqual(delivered(await popNew('consumerGroup=g'), 'g'), ['new1']);
  });
});
