/**
 * POST /api/v1/configure (docs/api.md 4.2), GET /api/v1/resources/queues/:queue (docs/api.md 7.2, wave 1) and
 * DELETE /api/v1/resources/queues/:queue (docs/api.md 4.3).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MILLIS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CONFIGURE_DEFAULTS = {
  priority: 0, leaseTime: 300, retryLimit: 3, retryDelay: 0, maxSize: 0, ttl: 3600, deadLetterQueue: false,
  dlqAfterMaxRetries: false, delayedProcessing: 0, windowBuffer: 0, minPopWaitTime: 0, retentionSeconds: 0,
  completedRetentionSeconds: 0, retentionEnabled: false, encryptionEnabled: false, maxWaitTimeSeconds: 0,
};
const IMPLICIT_DEFAULTS = { ...CONFIGURE_DEFAULTS, leaseTime: 60 };
const OPTION_KEYS = Object.keys(CONFIGURE_DEFAULTS).sort();
const STATS_KEYS = ['completed', 'deadLetter', 'failed', 'pending', 'processing', 'total'];
const ENCRYPTION_WARNING = 'QUEEN_ENCRYPTION_KEY is not set; payloads are stored unencrypted';

const setup = useBroker();

const sortedKeys = (o: object): string[] => Object.keys(o).sort();
const detailPath = (queue: string): string => `/api/v1/resources/queues/${encodeURIComponent(queue)}`;

async function configure(body: Record<string, unknown>): Promise<any> {
  const res = await setup.api.post('/api/v1/configure', body);
  assert.equal(res.status, 200, res.text);
  return res.json;
}

/** A millisecond timestamp and a microsecond one denote the same instant (to within the millisecond). */
function assertSameInstant(millis: string, micros: string): void {
  assert.match(millis, MILLIS_Z);
  const microValue = Date.parse(micros.slice(0, 23) + 'Z') * 1000 + Number(micros.slice(23, 26));
  const millisValue = Date.parse(millis) * 1000;
  assert.ok(Math.abs(microValue - millisValue) < 1000, `${millis} is not the instant ${micros}`);
}

async function queueRow(name: string): Promise<Record<string, any> | undefined> {
  const r = await setup.db.query('SELECT * FROM queen.queues WHERE name = $1', [name]);
  return r.rows[0];
}

describe('POST /api/v1/configure', () => {
  test('response shape: ids, derived namespace/task and every option with its /configure default', async () => {
    const queue = uniqueQueue('orders') + '.created';
    const res = await setup.api.post('/api/v1/configure', { queue });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(sortedKeys(res.json), ['configured', 'namespace', 'options', 'partitionId', 'queue', 'queueId', 'task']);
    assert.equal(res.json.configured, true);
    assert.equal(res.json.queue, queue);
    assert.equal(res.json.namespace, queue.split('.')[0]);
    assert.equal(res.json.task, 'created');
    assert.deepEqual(res.json.options, CONFIGURE_DEFAULTS);
    assert.match(res.json.queueId, UUID);
    assert.match(res.json.partitionId, UUID);
    const row = await queueRow(queue);
    assert.equal(row?.id, res.json.queueId);
    const partitions = await setup.db.query('SELECT id, name FROM queen.partitions WHERE queue_id = $1', [res.json.queueId]);
    assert.deepEqual(partitions.rows, [{ id: res.json.partitionId, name: 'Default' }]);
  });

  test('every option given is stored and echoed', async () => {
    const queue = uniqueQueue('all-options');
    const options = {
      priority: -2, leaseTime: 45, retryLimit: 0, retryDelay: 1500, maxSize: 1000, ttl: 120, deadLetterQueue: true,
      dlqAfterMaxRetries: true, delayedProcessing: 2, windowBuffer: 3, minPopWaitTime: 250, retentionSeconds: 600,
      completedRetentionSeconds: 60, retentionEnabled: true, encryptionEnabled: false, maxWaitTimeSeconds: 900,
    };
    const res = await configure({ queue, options });
    assert.deepEqual(res.options, options);
    const detail = await setup.api.get(detailPath(queue));
    assert.deepEqual(detail.json.config, options);
  });

  test('full replace: options not sent go back to their /configure defaults; ids are kept', async () => {
    const queue = uniqueQueue('replace');
    const first = await configure({ queue, options: { retryLimit: 9, leaseTime: 10, priority: 7, deadLetterQueue: true } });
    assert.equal(first.options.retryLimit, 9);
    assert.equal(first.options.leaseTime, 10);
    const second = await configure({ queue });
    assert.deepEqual(second.options, CONFIGURE_DEFAULTS);
    assert.equal(second.queueId, first.queueId);
    assert.equal(second.partitionId, first.partitionId);
    const detail = await setup.api.get(detailPath(queue));
    assert.deepEqual(detail.json.config, CONFIGURE_DEFAULTS);
  });

  test('configure over an implicitly created queue replaces leaseTime 60 with 300 and keeps its partitions', async () => {
    const queue = uniqueQueue('implicit-then-configure');
    const pushed = await setup.api.push([{ queue, partition: 'p1', payload: 1 }]);
    assert.equal(pushed.json[0].status, 'queued');
    assert.equal((await setup.api.get(detailPath(queue))).json.config.leaseTime, 60);
    const res = await configure({ queue });
    assert.equal(res.options.leaseTime, 300);
    const detail = await setup.api.get(detailPath(queue));
    assert.deepEqual(detail.json.partitions.map((p: any) => p.name).sort(), ['Default', 'p1']);
    assert.equal(detail.json.totals.total, 1);
  });

  test('namespace and task: given values are stored, absent/null/non-string are derived (also on replace)', async () => {
    const tag = uniqueQueue('').slice(1);
    const given = await configure({ queue: `billing${tag}.invoices`, namespace: 'ns-given', task: 'task-given' });
    assert.equal(given.namespace, 'ns-given');
    assert.equal(given.task, 'task-given');
    const row = await queueRow(`billing${tag}.invoices`);
    assert.equal(row?.namespace, 'ns-given');
    assert.equal(row?.task, 'task-given');

    const replaced = await configure({ queue: `billing${tag}.invoices` });
    assert.equal(replaced.namespace, `billing${tag}`);
    assert.equal(replaced.task, 'invoices');

    const viaNull = await configure({ queue: `orders${tag}.created.v2`, namespace: null, task: null });
    assert.equal(viaNull.namespace, `orders${tag}`);
    assert.equal(viaNull.task, 'created');

    const viaNumber = await configure({ queue: `orders${tag}`, namespace: 5, task: { x: 1 } });
    assert.equal(viaNumber.namespace, `orders${tag}`);
    assert.equal(viaNumber.task, '');

    const onlyTask = await configure({ queue: `mixed${tag}.a.b`, task: 'explicit' });
    assert.equal(onlyTask.namespace, `mixed${tag}`);
    assert.equal(onlyTask.task, 'explicit');

    const detail = await setup.api.get(detailPath(`orders${tag}.created.v2`));
    assert.equal(detail.json.namespace, `orders${tag}`);
    assert.equal(detail.json.task, 'created');
  });

  test('the queue name: missing / non-string / empty / over 255 are 400s; 255 is accepted', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'queue is required'],
      [{ queue: null }, 'queue is required'],
      [{ queue: 12 }, 'queue is required'],
      [{ queue: ['a'] }, 'queue is required'],
      [{ queue: '' }, 'Invalid queue name'],
      [{ queue: 'x'.repeat(256) }, 'Invalid queue name'],
    ];
    for (const [body, error] of cases) {
      const res = await setup.api.post('/api/v1/configure', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.json, { error });
    }
    assert.equal(await queueRow('x'.repeat(256)), undefined);
    const name = uniqueQueue('len');
    const q255 = name + 'y'.repeat(255 - name.length);
    const ok = await configure({ queue: q255 });
    assert.equal(ok.queue, q255);
  });

  test('leaseTime -1, "10", 1.5: 400 Invalid option leaseTime: must be a non-negative integer; nothing written', async () => {
    const queue = uniqueQueue('bad-lease');
    for (const value of [-1, '10', 1.5, true, [], {}]) {
      const res = await setup.api.post('/api/v1/configure', { queue, options: { leaseTime: value } });
      assert.equal(res.status, 400, JSON.stringify(value));
      assert.deepEqual(res.json, { error: 'Invalid option leaseTime: must be a non-negative integer' });
    }
    assert.equal(await queueRow(queue), undefined, 'a rejected configure creates nothing');
  });

  test('the other non-negative integer options reject negatives, strings and fractions with the same pattern', async () => {
    const names = ['retryLimit', 'retryDelay', 'maxSize', 'delayedProcessing', 'windowBuffer', 'minPopWaitTime',
      'retentionSeconds', 'completedRetentionSeconds', 'maxWaitTimeSeconds'];
    const queue = uniqueQueue('bad-ints');
    for (const name of names) {
      for (const value of [-1, '5', 2.5]) {
        const res = await setup.api.post('/api/v1/configure', { queue, options: { [name]: value } });
        assert.equal(res.status, 400, `${name}=${JSON.stringify(value)}`);
        assert.deepEqual(res.json, { error: `Invalid option ${name}: must be a non-negative integer` });
      }
    }
    assert.equal(await queueRow(queue), undefined);
  });

  test('ttl and priority (signed integers) reject strings and fractions, accept negatives', async () => {
    const queue = uniqueQueue('bad-signed');
    for (const name of ['ttl', 'priority']) {
      for (const value of ['5', 2.5, false]) {
        const res = await setup.api.post('/api/v1/configure', { queue, options: { [name]: value } });
        assert.equal(res.status, 400, `${name}=${JSON.stringify(value)}`);
        assert.deepEqual(sortedKeys(res.json), ['error']);
        assert.ok(res.json.error.startsWith(`Invalid option ${name}: `), res.json.error);
      }
    }
    assert.equal(await queueRow(queue), undefined);
    const ok = await configure({ queue, options: { priority: -5, ttl: 0 } });
    assert.equal(ok.options.priority, -5);
    assert.equal(ok.options.ttl, 0);
  });

  test('boolean options given a number or a string: 400 Invalid option <name>: ...', async () => {
    const queue = uniqueQueue('bad-bools');
    for (const name of ['retentionEnabled', 'encryptionEnabled', 'deadLetterQueue', 'dlqAfterMaxRetries']) {
      for (const value of [1, 0, 'true']) {
        const res = await setup.api.post('/api/v1/configure', { queue, options: { [name]: value } });
        assert.equal(res.status, 400, `${name}=${JSON.stringify(value)}`);
        assert.deepEqual(sortedKeys(res.json), ['error']);
        assert.ok(res.json.error.startsWith(`Invalid option ${name}: `), res.json.error);
      }
    }
    assert.equal(await queueRow(queue), undefined);
  });

  test('a rejected configure leaves an existing configuration untouched', async () => {
    const queue = uniqueQueue('bad-keeps');
    await configure({ queue, options: { leaseTime: 42, retryLimit: 8 } });
    const res = await setup.api.post('/api/v1/configure', { queue, options: { leaseTime: 10, retryLimit: -3 } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json, { error: 'Invalid option retryLimit: must be a non-negative integer' });
    const detail = await setup.api.get(detailPath(queue));
    assert.equal(detail.json.config.leaseTime, 42);
    assert.equal(detail.json.config.retryLimit, 8);
  });

  test('minPopWaitTime above 60000 is stored as 60000; 60000 and 0 are kept', async () => {
    const queue = uniqueQueue('mpwt');
    assert.equal((await configure({ queue, options: { minPopWaitTime: 70000 } })).options.minPopWaitTime, 60000);
    assert.equal((await setup.api.get(detailPath(queue))).json.config.minPopWaitTime, 60000);
    assert.equal((await configure({ queue, options: { minPopWaitTime: 60000 } })).options.minPopWaitTime, 60000);
    assert.equal((await configure({ queue, options: { minPopWaitTime: 59999 } })).options.minPopWaitTime, 59999);
    assert.equal((await configure({ queue, options: { minPopWaitTime: 0 } })).options.minPopWaitTime, 0);
  });

  test('retentionEnabled is implied by a retention value > 0 when not sent; an explicit value is respected', async () => {
    const queue = uniqueQueue('retention');
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{ retentionSeconds: 100 }, true],
      [{ completedRetentionSeconds: 50 }, true],
      [{ retentionSeconds: 100, retentionEnabled: null }, true],
      [{ retentionSeconds: 100, retentionEnabled: false }, false],
      [{ retentionSeconds: 0, completedRetentionSeconds: 0 }, false],
      [{ retentionEnabled: true }, true],
      [{}, false],
    ];
    for (const [options, expected] of cases) {
      const res = await configure({ queue, options });
      assert.equal(res.options.retentionEnabled, expected, JSON.stringify(options));
      assert.equal((await setup.api.get(detailPath(queue))).json.config.retentionEnabled, expected);
    }
  });

  test('encryptionEnabled without QUEEN_ENCRYPTION_KEY: configured, with the exact warning', async () => {
    const queue = uniqueQueue('enc');
    const res = await setup.api.post('/api/v1/configure', { queue, options: { encryptionEnabled: true } });
    assert.equal(res.status, 200);
    assert.equal(res.json.configured, true);
    assert.equal(res.json.warning, ENCRYPTION_WARNING);
    assert.deepEqual(sortedKeys(res.json), ['configured', 'namespace', 'options', 'partitionId', 'queue', 'queueId', 'task', 'warning']);
    assert.equal(res.json.options.encryptionEnabled, true);
    assert.equal((await setup.api.get(detailPath(queue))).json.config.encryptionEnabled, true);
    // Payloads stay usable (stored unencrypted).
    await setup.api.push([{ queue, payload: { secret: 'visible' } }]);
    const pop = await setup.api.get(`/api/v1/pop/queue/${queue}?autoAck=true`);
    assert.equal(pop.status, 200);
    assert.deepEqual(pop.json.messages[0].data, { secret: 'visible' });

    const off = await setup.api.post('/api/v1/configure', { queue, options: { encryptionEnabled: false } });
    assert.equal(off.status, 200);
    assert.equal('warning' in off.json, false);
  });

  test('null option values count as absent; unknown option keys and body fields are ignored; options null is {}', async () => {
    const queue = uniqueQueue('nulls');
    const res = await configure({
      queue,
      options: { leaseTime: null, retryLimit: null, deadLetterQueue: null, maxSize: 12, somethingElse: 'x', lease_time: 5, LeaseTime: 9 },
      unknownTopLevel: { a: 1 },
    });
    assert.deepEqual(res.options, { ...CONFIGURE_DEFAULTS, maxSize: 12 });
    assert.deepEqual(sortedKeys(res.options), OPTION_KEYS);
    const viaNull = await configure({ queue, options: null });
    assert.deepEqual(viaNull.options, CONFIGURE_DEFAULTS);
  });

  test('new options apply from the next push (maxSize) and the next pop (leaseTime)', async () => {
    const queue = uniqueQueue('effect');
    await configure({ queue, options: { maxSize: 1 } });
    const pushed = await setup.api.push([{ queue, payload: 1 }, { queue, payload: 2 }]);
    assert.deepEqual(pushed.json.map((r: any) => r.status), ['queued', 'failed']);
    await configure({ queue, options: { maxSize: 0, leaseTime: 1234 } });
    const more = await setup.api.push([{ queue, payload: 3 }]);
    assert.equal(more.json[0].status, 'queued');
    const pop = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10`);
    assert.equal(pop.status, 200);
    const lease = await setup.db.query(
      'SELECT extract(epoch FROM lease_expires_at - now())::float8 AS s FROM queen.cursors WHERE partition_id = $1 AND lease_id = $2',
      [pop.json.partitionId, pop.json.leaseId],
    );
    assert.equal(lease.rowCount, 1);
    const seconds = lease.rows[0]!.s as number;
    assert.ok(seconds > 1200 && seconds <= 1234, `lease of ${seconds} s, expected about 1234`);
  });
});

describe('GET /api/v1/resources/queues/:queue', () => {
  test('shape and hand-computed counts', async () => {
    const queue = uniqueQueue('detail');
    const configured = await configure({ queue, options: { leaseTime: 120, retryLimit: 2 } });
    const pushA = await setup.api.push(Array.from({ length: 5 }, (_, i) => ({ queue, partition: 'A', payload: i, transactionId: `a-${i}` })));
    const pushB = await setup.api.push(Array.from({ length: 3 }, (_, i) => ({ queue, partition: 'B', payload: i, transactionId: `b-${i}` })));
    assert.ok([...pushA.json, ...pushB.json].every((r: any) => r.status === 'queued'));

    // A: lease 2 (not autoAck), ack the first with the lease -> completed 1, processing 1, pending 3.
    const popA = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/A?batch=2`);
    assert.equal(popA.status, 200);
    assert.deepEqual(popA.json.messages.map((m: any) => m.transactionId), ['a-0', 'a-1']);
    const viewLeased = await setup.api.get(detailPath(queue));
    const leasedA = viewLeased.json.partitions.find((p: any) => p.name === 'A');
    assert.deepEqual(leasedA.stats, { total: 5, pending: 3, processing: 2, completed: 0, failed: 0, deadLetter: 0 });

    const ackA = await setup.api.post('/api/v1/ack', { transactionId: 'a-0', partitionId: popA.json.partitionId, leaseId: popA.json.leaseId });
    assert.equal(ackA.json[0].success, true, ackA.text);

    // B: lease 1, fail it (retry counter 1, lease released), lease it again and send it to the DLQ.
    const popB = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/B`);
    assert.equal(popB.status, 200);
    const failB = await setup.api.post('/api/v1/ack', { transactionId: 'b-0', partitionId: popB.json.partitionId, leaseId: popB.json.leaseId, status: 'failed' });
    assert.equal(failB.json[0].success, true, failB.text);
    const viewFailed = await setup.api.get(detailPath(queue));
    assert.deepEqual(viewFailed.json.partitions.find((p: any) => p.name === 'B').stats,
      { total: 3, pending: 3, processing: 0, completed: 0, failed: 1, deadLetter: 0 });
    const popB2 = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/B`);
    assert.equal(popB2.status, 200);
    assert.equal(popB2.json.messages[0].transactionId, 'b-0');
    const dlqB = await setup.api.post('/api/v1/ack', { transactionId: 'b-0', partitionId: popB2.json.partitionId, leaseId: popB2.json.leaseId, status: 'dlq' });
    assert.equal(dlqB.json[0].success, true, dlqB.text);
    assert.equal(dlqB.json[0].dlq, true);

    const res = await setup.api.get(detailPath(queue));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-queen-status'), null);
    const d = res.json;
    assert.deepEqual(sortedKeys(d), ['config', 'createdAt', 'id', 'name', 'namespace', 'partitions', 'task', 'totals']);
    assert.equal(d.id, configured.queueId);
    assert.equal(d.name, queue);
    assert.equal(d.namespace, queue);
    assert.equal(d.task, '');
    assert.match(d.createdAt, MILLIS_Z);
    assert.deepEqual(d.config, { ...CONFIGURE_DEFAULTS, leaseTime: 120, retryLimit: 2 });
    assert.equal(d.partitions.length, 3);
    for (const p of d.partitions) {
      assert.deepEqual(sortedKeys(p), ['createdAt', 'id', 'name', 'newestMessage', 'oldestMessage', 'stats']);
      assert.deepEqual(sortedKeys(p.stats), STATS_KEYS);
      assert.match(p.id, UUID);
      assert.match(p.createdAt, MILLIS_Z);
    }
    const byName = Object.fromEntries(d.partitions.map((p: any) => [p.name, p]));
    assert.deepEqual(Object.keys(byName).sort(), ['A', 'B', 'Default']);
    assert.equal(byName.Default.id, configured.partitionId);
    assert.deepEqual(byName.Default.stats, { total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 });
    assert.equal(byName.Default.oldestMessage, null);
    assert.equal(byName.Default.newestMessage, null);
    assert.equal(byName.A.id, popA.json.partitionId);
    assert.deepEqual(byName.A.stats, { total: 5, pending: 3, processing: 1, completed: 1, failed: 0, deadLetter: 0 });
    assert.equal(byName.B.id, popB.json.partitionId);
    assert.deepEqual(byName.B.stats, { total: 3, pending: 2, processing: 0, completed: 1, failed: 0, deadLetter: 1 });
    for (const name of ['A', 'B']) {
      assert.match(byName[name].oldestMessage, MILLIS_Z);
      assert.match(byName[name].newestMessage, MILLIS_Z);
      assert.ok(byName[name].oldestMessage <= byName[name].newestMessage);
    }
    // One push per partition: oldest and newest are that push's segment timestamp (the pop's createdAt, in ms).
    assertSameInstant(byName.A.oldestMessage, popA.json.messages[0].createdAt);
    assert.equal(byName.A.newestMessage, byName.A.oldestMessage);
    assert.deepEqual(d.totals, { total: 8, pending: 5, processing: 1, completed: 2, failed: 0, deadLetter: 1 });
  });

  test('oldest and newest follow the segments of separate pushes', async () => {
    const queue = uniqueQueue('detail-times');
    await setup.api.push([{ queue, payload: 1 }]);
    await setup.api.push([{ queue, payload: 2 }]);
    const pop = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10`);
    assert.equal(pop.status, 200);
    const [m1, m2] = pop.json.messages;
    const detail = await setup.api.get(detailPath(queue));
    const p = detail.json.partitions[0];
    assertSameInstant(p.oldestMessage, m1.createdAt);
    assertSameInstant(p.newestMessage, m2.createdAt);
    assert.deepEqual(p.stats, { total: 2, pending: 0, processing: 2, completed: 0, failed: 0, deadLetter: 0 });
  });

  test('counts use the queue-mode cursor when queue mode contacted the partition, else the lowest named group', async () => {
    const queue = uniqueQueue('detail-ref');
    await setup.api.push(Array.from({ length: 4 }, (_, i) => ({ queue, payload: i })));
    // Named groups only: g1 consumed 3, g2 consumed 1 -> reference 1.
    assert.equal((await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=g1&batch=3&autoAck=true`)).status, 200);
    assert.equal((await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=g2&batch=1&autoAck=true`)).status, 200);
    let p = (await setup.api.get(detailPath(queue))).json.partitions[0];
    assert.deepEqual(p.stats, { total: 4, pending: 3, processing: 0, completed: 1, failed: 0, deadLetter: 0 });
    // Queue mode consumed 2 -> it is the reference.
    assert.equal((await setup.api.get(`/api/v1/pop/queue/${queue}?batch=2&autoAck=true`)).status, 200);
    p = (await setup.api.get(detailPath(queue))).json.partitions[0];
    assert.deepEqual(p.stats, { total: 4, pending: 2, processing: 0, completed: 2, failed: 0, deadLetter: 0 });
  });

  test('a missing queue answers 200 {"error":"Queue not found"} with X-Queen-Status: 404', async () => {
    const res = await setup.api.get(detailPath(uniqueQueue('missing')));
    assert.equal(res.status, 200);
    assert.equal(res.text, '{"error":"Queue not found"}');
    assert.equal(res.headers.get('x-queen-status'), '404');
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  });
});

describe('queue detail counts with deleted messages', () => {
  test('a message deleted in the middle of a partition is counted nowhere', async () => {
    const queue = uniqueQueue('gaps');
    const pushed = await setup.api.push(['m1', 'm2', 'm3', 'm4'].map((id) => ({ queue, partition: 'P', transactionId: id, payload: id })));
    const partitionId = pushed.json[0].partition_id as string;
    const deleted = await setup.api.del(`/api/v1/messages/${partitionId}/m2`);
    assert.equal(deleted.json.success, true);

    const first = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=1&autoAck=true`);
    assert.deepEqual(first.json.messages.map((m: any) => m.transactionId), ['m1']);
    let stats = (await setup.api.get(detailPath(queue))).json.partitions[0].stats;
    assert.deepEqual(stats, { total: 3, pending: 2, processing: 0, completed: 1, failed: 0, deadLetter: 0 });

    const rest = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&autoAck=true`);
    assert.deepEqual(rest.json.messages.map((m: any) => m.transactionId), ['m3', 'm4']);
    stats = (await setup.api.get(detailPath(queue))).json.partitions[0].stats;
    assert.deepEqual(stats, { total: 3, pending: 0, processing: 0, completed: 3, failed: 0, deadLetter: 0 });
  });
});

describe('DELETE /api/v1/resources/queues/:queue', () => {
  test('deletes the queue and everything under it; a second delete answers existed:false', async () => {
    const queue = uniqueQueue('delete');
    const pushed = await setup.api.push([
      { queue, partition: 'p1', payload: 1, transactionId: 't1' },
      { queue, partition: 'p1', payload: 2, transactionId: 't2' },
      { queue, partition: 'p2', payload: 3, transactionId: 't3' },
    ]);
    assert.ok(pushed.json.every((r: any) => r.status === 'queued'));
    // State under the queue: a DLQ entry, a live lease, a named group cursor and a subscription record.
    const pop1 = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/p1`);
    assert.equal(pop1.status, 200);
    const dlq = await setup.api.post('/api/v1/ack', { transactionId: 't1', partitionId: pop1.json.partitionId, leaseId: pop1.json.leaseId, status: 'dlq' });
    assert.equal(dlq.json[0].dlq, true);
    const pop2 = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/p2`);
    assert.equal(pop2.status, 200);
    const sub = await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=late&subscriptionMode=new`);
    assert.equal(sub.status, 204);
    const queueId = (await queueRow(queue))!.id;
    const partitionIds = (await setup.db.query('SELECT id FROM queen.partitions WHERE queue_id = $1', [queueId])).rows.map((r) => r.id);
    assert.equal(partitionIds.length, 2);
    assert.equal((await setup.db.query('SELECT 1 FROM queen.subscriptions WHERE queue_id = $1', [queueId])).rowCount, 1);
    assert.equal((await setup.db.query('SELECT 1 FROM queen.dead_letters WHERE partition_id = ANY($1::uuid[])', [partitionIds])).rowCount, 1);

    const res = await setup.api.del(detailPath(queue));
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { deleted: true, queue, existed: true });

    for (const [table, column] of [['segments', 'partition_id'], ['message_keys', 'partition_id'], ['cursors', 'partition_id'],
      ['dead_letters', 'partition_id'], ['partitions', 'id']] as const) {
      const left = await setup.db.query(`SELECT count(*)::int AS n FROM queen.${table} WHERE ${column} = ANY($1::uuid[])`, [partitionIds]);
      assert.equal(left.rows[0]!.n, 0, `queen.${table} still has rows of the deleted queue`);
    }
    assert.equal((await setup.db.query('SELECT 1 FROM queen.subscriptions WHERE queue_id = $1', [queueId])).rowCount, 0);
    assert.equal(await queueRow(queue), undefined);

    const detail = await setup.api.get(detailPath(queue));
    assert.equal(detail.text, '{"error":"Queue not found"}');
    assert.equal(detail.headers.get('x-queen-status'), '404');

    const again = await setup.api.del(detailPath(queue));
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, { deleted: true, queue, existed: false });

    // Acks for its messages: Message not found (leased one included).
    const ack = await setup.api.post('/api/v1/ack', { transactionId: 't3', partitionId: pop2.json.partitionId, leaseId: pop2.json.leaseId });
    assert.equal(ack.status, 200);
    assert.deepEqual(ack.json, [{
      index: 0, transactionId: 't3', success: false, error: 'Message not found', queueName: null, partitionName: null, leaseReleased: false, dlq: false,
    }]);
  });

  test('after a delete the messages are gone: a pop answers 204 (and recreates an empty queue row)', async () => {
    const queue = uniqueQueue('delete-pop');
    await setup.api.push([{ queue, payload: 1, transactionId: 'x1' }, { queue, payload: 2, transactionId: 'x2' }]);
    const res = await setup.api.del(detailPath(queue));
    assert.deepEqual(res.json, { deleted: true, queue, existed: true });
    const pop = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10`);
    assert.equal(pop.status, 204);
    assert.equal(pop.text, '');
    // The queue-scoped pop created the queue row again, with the implicit defaults and no partitions.
    const detail = await setup.api.get(detailPath(queue));
    assert.equal(detail.status, 200);
    assert.equal(detail.json.name, queue);
    assert.deepEqual(detail.json.config, IMPLICIT_DEFAULTS);
    assert.deepEqual(detail.json.partitions, []);
    assert.deepEqual(detail.json.totals, { total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 });
    // Deduplication state is gone with the messages: the same transactionId is accepted again.
    const again = await setup.api.push([{ queue, payload: 'new', transactionId: 'x1' }]);
    assert.equal(again.json[0].status, 'queued');
    const popNew = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=10&autoAck=true`);
    assert.deepEqual(popNew.json.messages.map((m: any) => [m.transactionId, m.data]), [['x1', 'new']]);
  });

  test('deleting a queue that never existed is not an error', async () => {
    const queue = uniqueQueue('never');
    const res = await setup.api.del(detailPath(queue));
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { deleted: true, queue, existed: false });
    assert.equal(await queueRow(queue), undefined);
  });

  test('percent-encoded names: a%2Fb is the queue a/b', async () => {
    const tag = uniqueQueue('').slice(1);
    for (const name of [`a/b${tag}`, `with space${tag}`, `pct%${tag}`, `ü-ñ${tag}`]) {
      await configure({ queue: name, options: { leaseTime: 33 } });
      const detail = await setup.api.get(`/api/v1/resources/queues/${encodeURIComponent(name)}`);
      assert.equal(detail.status, 200);
      assert.equal(detail.json.name, name);
      assert.equal(detail.json.config.leaseTime, 33);
      const del = await setup.api.del(`/api/v1/resources/queues/${encodeURIComponent(name)}`);
      assert.deepEqual(del.json, { deleted: true, queue: name, existed: true });
      assert.equal(await queueRow(name), undefined);
    }
    // The literal path a%2Fb is one segment, never two.
    const slashName = `a/b${tag}-2`;
    await setup.api.push([{ queue: slashName, payload: 1 }]);
    const lower = await setup.api.get(`/api/v1/resources/queues/a%2fb${tag}-2`);
    assert.equal(lower.json.name, slashName);
    const del = await setup.api.del(`/api/v1/resources/queues/a%2Fb${tag}-2`);
    assert.deepEqual(del.json, { deleted: true, queue: slashName, existed: true });
    // `+` stays a plus in a path segment.
    const plusName = `x+y${tag}`;
    await configure({ queue: plusName });
    const plus = await setup.api.get(`/api/v1/resources/queues/x+y${tag}`);
    assert.equal(plus.json.name, plusName);
  });
});
