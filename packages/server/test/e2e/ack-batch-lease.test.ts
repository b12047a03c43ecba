/**
 * POST /api/v1/ack/batch (docs/api.md 6.2, 6.3) and POST /api/v1/lease/:leaseId/extend (docs/api.md 6.5).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { request, uniqueQueue, useBroker } from '../support/harness.js';

const setup = useBroker();

const QUEUE_MODE = '__QUEUE_MODE__';
const NOT_APPLIED = 'Not applied: an earlier message of this partition failed in this request';
const MILLIS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pushes `${prefix}-1..count` to one partition in one request; returns the partition id. */
async function pushMessages(queue: string, partition: string, count: number, prefix = 'm'): Promise<string> {
  const items = Array.from({ length: count }, (_, i) => ({ queue, partition, transactionId: `${prefix}-${i + 1}`, payload: i + 1 }));
  const res = await setup.api.push(items);
  assert.equal(res.status, 201, res.text);
  for (const r of res.json) assert.equal(r.status, 'queued', JSON.stringify(r));
  return res.json[0].partition_id;
}

async function pop(queue: string, partition: string | null, params = '') {
  const path = partition === null
    ? `/api/v1/pop/queue/${encodeURIComponent(queue)}`
    : `/api/v1/pop/queue/${encodeURIComponent(queue)}/partition/${encodeURIComponent(partition)}`;
  return setup.api.get(`${path}?${params}`);
}

async function popOk(queue: string, partition: string | null, params = ''): Promise<any> {
  const res = await pop(queue, partition, params);
  assert.equal(res.status, 200, `expected a delivery, got ${res.status} ${res.headers.get('x-queen-empty-reason')}`);
  return res.json;
}

const txids = (body: any): string[] => body.messages.map((m: any) => m.transactionId);

async function ackBatch(body: unknown): Promise<any[]> {
  const res = await setup.api.post('/api/v1/ack/batch', body);
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.json), res.text);
  return res.json;
}

function result(fields: {
  index: number;
  transactionId: string;
  success: boolean;
  error?: string | null;
  queueName?: string | null;
  partitionName?: string | null;
  leaseReleased?: boolean;
  dlq?: boolean;
}) {
  return {
    index: fields.index,
    transactionId: fields.transactionId,
    success: fields.success,
    error: fields.error ?? null,
    queueName: fields.queueName === undefined ? null : fields.queueName,
    partitionName: fields.partitionName === undefined ? null : fields.partitionName,
    leaseReleased: fields.leaseReleased ?? false,
    dlq: fields.dlq ?? false,
  };
}

async function committed(partitionId: string, group = QUEUE_MODE): Promise<number | undefined> {
  const res = await setup.db.query(`SELECT committed::int AS c FROM queen.cursors WHERE partition_id = $1 AND consumer_group = $2`, [partitionId, group]);
  return res.rows[0]?.c;
}

async function extend(leaseId: string, body?: unknown) {
  return setup.api.post(`/api/v1/lease/${leaseId}/extend`, body);
}

/** Asserts the success shape of lease extend and returns the expiry in ms since the epoch. */
function extendedAt(res: { status: number; json: any; text: string }, leaseId: string): number {
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.json) && res.json.length === 1, res.text);
  const r = res.json[0];
  assert.deepEqual(Object.keys(r).sort(), ['error', 'expiresAt', 'index', 'leaseId', 'newExpiresAt', 'success']);
  assert.equal(r.index, 0);
  assert.equal(r.leaseId, leaseId);
  assert.equal(r.success, true);
  assert.equal(r.error, null);
  assert.match(r.expiresAt, MILLIS_Z);
  assert.equal(r.newExpiresAt, r.expiresAt);
  return Date.parse(r.expiresAt);
}

function extendFailure(leaseId: string, error: string) {
  return [{ index: 0, leaseId, success: false, error, expiresAt: null, newExpiresAt: null }];
}

describe('POST /api/v1/ack/batch: validation', () => {
  const cases: Array<[string, unknown, string]> = [
    ['empty object', {}, 'acknowledgments array is required'],
    ['acknowledgments null', { acknowledgments: null }, 'acknowledgments array is required'],
    ['acknowledgments an object', { acknowledgments: { transactionId: 't', partitionId: randomUUID() } }, 'acknowledgments array is required'],
    ['acknowledgments a string', { acknowledgments: 'x' }, 'acknowledgments array is required'],
    ['item without transactionId', { acknowledgments: [{ partitionId: randomUUID() }] }, 'Each acknowledgment must have a valid transactionId string'],
    ['item with numeric transactionId', { acknowledgments: [{ transactionId: 1, partitionId: randomUUID() }] }, 'Each acknowledgment must have a valid transactionId string'],
    ['item that is null', { acknowledgments: [null] }, 'Each acknowledgment must have a valid transactionId string'],
    ['item that is a string', { acknowledgments: ['tx'] }, 'Each acknowledgment must have a valid transactionId string'],
    ['item without partitionId', { acknowledgments: [{ transactionId: 't' }] }, 'Each acknowledgment must have a valid partitionId string to ensure message uniqueness'],
    ['item with numeric partitionId', { acknowledgments: [{ transactionId: 't', partitionId: 12 }] }, 'Each acknowledgment must have a valid partitionId string to ensure message uniqueness'],
    ['item with null partitionId', { acknowledgments: [{ transactionId: 't', partitionId: null }] }, 'Each acknowledgment must have a valid partitionId string to ensure message uniqueness'],
  ];
  for (const [name, body, error] of cases) {
    test(`${name} -> 400 ${error}`, async () => {
      const res = await setup.api.post('/api/v1/ack/batch', body);
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, { error });
    });
  }

  test('a 400 applies nothing, even for the valid items before the bad one', async () => {
    const queue = uniqueQueue('ackb-400');
    const pid = await pushMessages(queue, 'p1', 2);
    const body = await popOk(queue, 'p1', 'batch=2');
    const res = await setup.api.post('/api/v1/ack/batch', {
      acknowledgments: [
        { transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'completed' },
        { transactionId: 'm-2', partitionId: pid, leaseId: body.leaseId, status: 'completed' },
        { transactionId: 'm-2' },
      ],
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json, { error: 'Each acknowledgment must have a valid partitionId string to ensure message uniqueness' });
    assert.equal(await committed(pid), 0);
    const leased = await pop(queue, 'p1');
    assert.equal(leased.status, 204);
    assert.equal(leased.headers.get('x-queen-empty-reason'), 'leased');
    // m-1 is still above the cursor: a retry ack is applied (releases) rather than being a C3 no-op.
    const [retry] = await ackBatch({ acknowledgments: [{ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'retry' }] });
    assert.deepEqual(retry, result({ index: 0, transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    assert.deepEqual(txids(await popOk(queue, 'p1', 'batch=2')), ['m-1', 'm-2']);
  });

  test('acknowledgments [] -> 200 []', async () => {
    const res = await setup.api.post('/api/v1/ack/batch', { acknowledgments: [] });
    assert.equal(res.status, 200);
    assert.equal(res.text, '[]');
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  });
});

describe('POST /api/v1/ack/batch: semantics', () => {
  test('results come back in input order with their index; items are applied in offset order', async () => {
    const queue = uniqueQueue('ackb-order');
    const pid = await pushMessages(queue, 'p1', 4);
    const body = await popOk(queue, 'p1', 'batch=3');
    const results = await ackBatch({
      acknowledgments: [
        { transactionId: 'm-3', partitionId: pid, leaseId: body.leaseId },
        { transactionId: 'ghost', partitionId: pid, leaseId: body.leaseId },
        { transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId },
        { transactionId: 'm-4', partitionId: pid, leaseId: body.leaseId },
        { transactionId: 'm-2', partitionId: pid, leaseId: body.leaseId, status: 'bogus' },
        { transactionId: 'm-2', partitionId: pid, leaseId: body.leaseId, status: 'success' },
      ],
    });
    assert.equal(results.length, 6);
    for (const r of results) assert.deepEqual(Object.keys(r).sort(), ['dlq', 'error', 'index', 'leaseReleased', 'partitionName', 'queueName', 'success', 'transactionId']);
    assert.deepEqual(results[0], result({ index: 0, transactionId: 'm-3', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    assert.deepEqual(results[1], result({ index: 1, transactionId: 'ghost', success: false, error: 'Message not found' }));
    assert.deepEqual(results[2], result({ index: 2, transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1' }));
    assert.deepEqual(results[3], result({ index: 3, transactionId: 'm-4', success: false, error: 'Message is outside the leased span', queueName: queue, partitionName: 'p1' }));
    assert.equal(results[4].index, 4);
    assert.equal(results[4].success, false);
    assert.equal(results[4].error, 'Invalid status: bogus');
    assert.deepEqual(results[5], result({ index: 5, transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1' }));
    assert.equal(await committed(pid), 3);
    assert.deepEqual(txids(await popOk(queue, 'p1', 'batch=10')), ['m-4']);
  });

  test('a top-level consumerGroup applies to every item and overrides the items\' own groups', async () => {
    const queue = uniqueQueue('ackb-top');
    const pid = await pushMessages(queue, 'p1', 2);
    const g1 = await popOk(queue, 'p1', 'consumerGroup=g1&batch=2');
    const results = await ackBatch({
      consumerGroup: 'g1',
      acknowledgments: [
        { transactionId: 'm-1', partitionId: pid, leaseId: g1.leaseId, consumerGroup: 'g2' },
        { transactionId: 'm-2', partitionId: pid, leaseId: g1.leaseId },
      ],
    });
    assert.deepEqual(results, [
      result({ index: 0, transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1' }),
      result({ index: 1, transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }),
    ]);
    assert.equal(await committed(pid, 'g1'), 2);
    assert.equal(await committed(pid, 'g2'), undefined, 'g2 was never contacted');
    assert.equal(await committed(pid), undefined, 'queue mode was never contacted');
    assert.equal((await pop(queue, 'p1', 'consumerGroup=g1')).status, 204);
    assert.deepEqual(txids(await popOk(queue, 'p1', 'consumerGroup=g2&batch=2')), ['m-1', 'm-2']);
    assert.deepEqual(txids(await popOk(queue, 'p1', 'batch=2')), ['m-1', 'm-2']);
  });

  test('without a top-level group (absent or "") each item\'s own group applies, else queue mode', async () => {
    const queue = uniqueQueue('ackb-items');
    const pid = await pushMessages(queue, 'p1', 2);
    const ga = await popOk(queue, 'p1', 'consumerGroup=ga&batch=2');
    const gb = await popOk(queue, 'p1', 'consumerGroup=gb&batch=2');
    const qm = await popOk(queue, 'p1', 'batch=2');
    const results = await ackBatch({
      consumerGroup: '',
      acknowledgments: [
        { transactionId: 'm-2', partitionId: pid, leaseId: ga.leaseId, consumerGroup: 'ga' },
        { transactionId: 'm-1', partitionId: pid, leaseId: gb.leaseId, consumerGroup: 'gb' },
        { transactionId: 'm-2', partitionId: pid, leaseId: qm.leaseId },
        { transactionId: 'm-2', partitionId: pid, leaseId: gb.leaseId, consumerGroup: 'ga' },
      ],
    });
    assert.deepEqual(results, [
      result({ index: 0, transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }),
      result({ index: 1, transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1' }),
      result({ index: 2, transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }),
      // Checked against the state at the start of the request: ga's m-2 was above the cursor, and gb's lease is not ga's.
      result({ index: 3, transactionId: 'm-2', success: false, error: 'Invalid or expired lease', queueName: queue, partitionName: 'p1' }),
    ]);
    assert.equal(await committed(pid, 'ga'), 2);
    assert.equal(await committed(pid, 'gb'), 1);
    assert.equal(await committed(pid), 2);

    // Top level absent entirely: same rule.
    const gb2 = await ackBatch({ acknowledgments: [{ transactionId: 'm-2', partitionId: pid, leaseId: gb.leaseId, consumerGroup: 'gb' }] });
    assert.deepEqual(gb2, [result({ index: 0, transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true })]);
    assert.equal(await committed(pid, 'gb'), 2);
  });

  test('a batch mixing two partitions is applied per partition independently', async () => {
    const queue = uniqueQueue('ackb-mix');
    const p1 = await pushMessages(queue, 'p1', 3, 'a');
    const p2 = await pushMessages(queue, 'p2', 3, 'b');
    const b1 = await popOk(queue, 'p1', 'batch=2');
    const b2 = await popOk(queue, 'p2', 'batch=2');
    const results = await ackBatch({
      acknowledgments: [
        { transactionId: 'a-1', partitionId: p1, leaseId: b1.leaseId, status: 'failed' },
        { transactionId: 'b-1', partitionId: p2, leaseId: b2.leaseId },
        { transactionId: 'a-2', partitionId: p1, leaseId: b1.leaseId },
        { transactionId: 'b-2', partitionId: p2, leaseId: b2.leaseId },
      ],
    });
    assert.deepEqual(results, [
      result({ index: 0, transactionId: 'a-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }),
      result({ index: 1, transactionId: 'b-1', success: true, queueName: queue, partitionName: 'p2' }),
      result({ index: 2, transactionId: 'a-2', success: false, error: NOT_APPLIED, queueName: queue, partitionName: 'p1' }),
      result({ index: 3, transactionId: 'b-2', success: true, queueName: queue, partitionName: 'p2', leaseReleased: true }),
    ]);
    assert.equal(await committed(p1), 0);
    assert.equal(await committed(p2), 2);
    assert.deepEqual(txids(await popOk(queue, 'p1', 'batch=10')), ['a-1', 'a-2', 'a-3']);
    assert.deepEqual(txids(await popOk(queue, 'p2', 'batch=10')), ['b-3']);
  });

  test('acks of a multi-partition pop: each message acked with its own partitionId settles every partition', async () => {
    const queue = uniqueQueue('ackb-multi');
    const pids: Record<string, string> = {};
    for (const name of ['pa', 'pb', 'pc']) pids[name] = await pushMessages(queue, name, 2, name);
    const body = await popOk(queue, null, 'batch=6&partitions=3');
    assert.equal(body.messages.length, 6);
    assert.equal(body.partitionsClaimed, 3);
    for (const m of body.messages) {
      assert.equal(m.leaseId, body.leaseId);
      assert.equal(m.partitionId, pids[m.partition]);
    }
    // Acking with the top-level partitionId (the first partition's) does not find the other partitions' messages.
    const foreign = body.messages.find((m: any) => m.partitionId !== body.partitionId);
    const [wrong] = await ackBatch({ acknowledgments: [{ transactionId: foreign.transactionId, partitionId: body.partitionId, leaseId: body.leaseId }] });
    assert.deepEqual(wrong, result({ index: 0, transactionId: foreign.transactionId, success: false, error: 'Message not found' }));

    const results = await ackBatch({
      acknowledgments: body.messages.map((m: any) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId })),
    });
    assert.equal(results.length, 6);
    body.messages.forEach((m: any, i: number) => {
      const lastOfPartition = m.transactionId.endsWith('-2');
      assert.deepEqual(results[i], result({ index: i, transactionId: m.transactionId, success: true, queueName: queue, partitionName: m.partition, leaseReleased: lastOfPartition }));
    });
    for (const pid of Object.values(pids)) assert.equal(await committed(pid), 2);
    const empty = await pop(queue, null, 'batch=10&partitions=0');
    assert.equal(empty.status, 204);
  });
});

describe('POST /api/v1/lease/:leaseId/extend', () => {
  test('no body at all: default 60 s, exact response shape, expiresAt == newExpiresAt in ms with Z', async () => {
    const queue = uniqueQueue('lease-nobody');
    await pushMessages(queue, 'p1', 1);
    const body = await popOk(queue, 'p1', 'leaseSeconds=5');
    const before = Date.now();
    const res = await request(setup.broker.url, 'POST', `/api/v1/lease/${body.leaseId}/extend`);
    const after = Date.now();
    const at = extendedAt(res, body.leaseId);
    assert.ok(at >= before + 60_000 - 2000 && at <= after + 60_000 + 2000, `expiresAt ${new Date(at).toISOString()} is not about now + 60 s`);
  });

  test('seconds defaults to 60 when absent or <= 0, and is honoured otherwise', async () => {
    const queue = uniqueQueue('lease-secs');
    await pushMessages(queue, 'p1', 1);
    const body = await popOk(queue, 'p1', 'leaseSeconds=5');
    for (const [payload, seconds] of [[{}, 60], [{ seconds: 0 }, 60], [{ seconds: -5 }, 60], [{ seconds: null }, 60], [{ seconds: 120 }, 120]] as const) {
      const before = Date.now();
      const res = await extend(body.leaseId, payload);
      const after = Date.now();
      const at = extendedAt(res, body.leaseId);
      assert.ok(at >= before + seconds * 1000 - 2000 && at <= after + seconds * 1000 + 2000,
        `${JSON.stringify(payload)}: expiresAt ${new Date(at).toISOString()} is not about now + ${seconds} s`);
    }
    // After extending to 120 s, a later 60 s extension does not shorten it.
    const res = await extend(body.leaseId, { seconds: 60 });
    const at = extendedAt(res, body.leaseId);
    assert.ok(at >= Date.now() + 110_000, `lease was shortened to ${new Date(at).toISOString()}`);
  });

  test('extending keeps the lease alive past its original expiry, on every partition of the pop', async () => {
    const queue = uniqueQueue('lease-keep');
    const pids = [await pushMessages(queue, 'p1', 1, 'a'), await pushMessages(queue, 'p2', 1, 'b')];
    const body = await popOk(queue, null, 'batch=2&partitions=2&leaseSeconds=2&consumerGroup=g');
    assert.equal(body.partitionsClaimed, 2);
    extendedAt(await extend(body.leaseId, { seconds: 10 }), body.leaseId);
    await sleep(3000);
    for (const p of ['p1', 'p2']) {
      const res = await pop(queue, p, 'consumerGroup=g');
      assert.equal(res.status, 204, `${p} was claimable again after its original expiry`);
      assert.equal(res.headers.get('x-queen-empty-reason'), 'leased');
    }
    assert.equal((await pop(queue, null, 'consumerGroup=g&partitions=0&batch=10')).status, 204);
    const results = await ackBatch({
      consumerGroup: 'g',
      acknowledgments: body.messages.map((m: any) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: body.leaseId })),
    });
    assert.deepEqual(results.map((r) => [r.success, r.error, r.leaseReleased]), [[true, null, true], [true, null, true]]);
    for (const pid of pids) assert.equal(await committed(pid, 'g'), 1);
  });

  test('a lease is never shortened: seconds=1 on a 60 s lease keeps ~60 s', async () => {
    const queue = uniqueQueue('lease-short');
    await pushMessages(queue, 'p1', 1);
    const before = Date.now();
    const body = await popOk(queue, 'p1', 'leaseSeconds=60');
    const at = extendedAt(await extend(body.leaseId, { seconds: 1 }), body.leaseId);
    assert.ok(at >= before + 60_000 - 2000 && at <= Date.now() + 60_000 + 2000, `expiresAt ${new Date(at).toISOString()} is not the original ~60 s expiry`);
    await sleep(1500);
    const res = await pop(queue, 'p1');
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('x-queen-empty-reason'), 'leased');
  });

  test('extend applies to every live record of a multi-partition lease; expiresAt is the earliest new expiry', async () => {
    // One discovery pop over two queues: each partition is leased for its own queue's leaseTime (30 s and 500 s).
    const ns = uniqueQueue('ns').replace(/-/g, '');
    const qa = `${ns}.a`;
    const qb = `${ns}.b`;
    for (const [queue, leaseTime] of [[qa, 30], [qb, 500]] as const) {
      const res = await setup.api.post('/api/v1/configure', { queue, options: { leaseTime } });
      assert.equal(res.status, 200, res.text);
    }
    const pa = await pushMessages(qa, 'Default', 1, 'a');
    await pushMessages(qb, 'Default', 1, 'b');
    const before = Date.now();
    const body = await setup.api.get(`/api/v1/pop?namespace=${ns}&batch=2&partitions=2`);
    assert.equal(body.status, 200, `discovery pop answered ${body.status}`);
    assert.equal(body.json.partitionsClaimed, 2);
    const leaseId = body.json.leaseId;
    // max(30 s, now + 100 s) = 100 s on qa, max(500 s, now + 100 s) = 500 s on qb: the earliest is ~100 s.
    const at = extendedAt(await extend(leaseId, { seconds: 100 }), leaseId);
    assert.ok(at >= before + 100_000 - 2000 && at <= Date.now() + 100_000 + 2000, `expiresAt ${new Date(at).toISOString()} is not the earliest (~100 s)`);
    // Settling qa releases its record; the qb record alone keeps the lease extendable, and is not shortened.
    const [done] = await ackBatch({ acknowledgments: [{ transactionId: 'a-1', partitionId: pa, leaseId }] });
    assert.equal(done.leaseReleased, true);
    const later = extendedAt(await extend(leaseId, { seconds: 100 }), leaseId);
    assert.ok(later >= before + 500_000 - 2000 && later <= Date.now() + 500_000 + 2000, `expiresAt ${new Date(later).toISOString()} is not the 500 s record`);
  });

  test('a body that is not valid JSON is still a 400 (only an empty body means {})', async () => {
    const res = await setup.api.post(`/api/v1/lease/${randomUUID()}/extend`, '{"seconds":');
    assert.equal(res.status, 400);
    assert.match(res.json.error, /^Invalid JSON: /);
  });

  test('Lease not found: unknown UUID, non-UUID string, and after a completing ack released the lease', async () => {
    const unknown = randomUUID();
    const r1 = await extend(unknown, { seconds: 30 });
    assert.equal(r1.status, 200);
    assert.deepEqual(r1.json, extendFailure(unknown, 'Lease not found'));
    const r2 = await extend('not-a-uuid', { seconds: 30 });
    assert.equal(r2.status, 200);
    assert.deepEqual(r2.json, extendFailure('not-a-uuid', 'Lease not found'));

    const queue = uniqueQueue('lease-gone');
    const pid = await pushMessages(queue, 'p1', 1);
    const body = await popOk(queue, 'p1');
    const ackRes = await setup.api.post('/api/v1/ack', { transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId });
    assert.equal(ackRes.json[0].leaseReleased, true);
    const r3 = await extend(body.leaseId);
    assert.equal(r3.status, 200);
    assert.deepEqual(r3.json, extendFailure(body.leaseId, 'Lease not found'));
  });

  test('Lease already expired once it expired; it is not revived; after a re-claim it is Lease not found', async () => {
    const queue = uniqueQueue('lease-exp');
    const pid = await pushMessages(queue, 'p1', 1);
    const body = await popOk(queue, 'p1', 'leaseSeconds=1');
    await sleep(1500);
    const res = await extend(body.leaseId, { seconds: 60 });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, extendFailure(body.leaseId, 'Lease already expired'));
    // Not revived: the old lease still does not validate an ack, and another pop can claim the span.
    const ackRes = await setup.api.post('/api/v1/ack', { transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId });
    assert.equal(ackRes.json[0].error, 'Invalid or expired lease');
    const again = await popOk(queue, 'p1');
    assert.deepEqual(txids(again), ['m-1']);
    assert.notEqual(again.leaseId, body.leaseId);
    const stale = await extend(body.leaseId);
    assert.deepEqual(stale.json, extendFailure(body.leaseId, 'Lease not found'));
  });
});

describe('concurrent ack requests (they may share a transaction)', () => {
  test('each of many concurrent requests on different partitions gets its own results, in its own order', async () => {
    const queue = uniqueQueue('ack-shared');
    const partitions = Array.from({ length: 12 }, (_, i) => `p${i}`);
    const pids = await Promise.all(partitions.map((p) => pushMessages(queue, p, 2, p)));
    const leases = await Promise.all(partitions.map(async (p) => (await popOk(queue, p, 'batch=2')).leaseId as string));
    const answers = await Promise.all(partitions.map((p, i) => ackBatch({ acknowledgments: [
      { transactionId: `${p}-2`, partitionId: pids[i], leaseId: leases[i], status: 'completed' },
      { transactionId: `${p}-1`, partitionId: pids[i], leaseId: leases[i], status: 'completed' },
    ] })));
    answers.forEach((answer, i) => {
      const p = partitions[i]!;
      assert.deepEqual(answer.map((r: any) => [r.index, r.transactionId, r.success, r.error, r.partitionName]),
        [[0, `${p}-2`, true, null, p], [1, `${p}-1`, true, null, p]]);
    });
    const again = await pop(queue, null, 'batch=10&wait=false');
    assert.equal(again.status, 204, 'every message was settled');
  });

  test('requests on the same partition never share one: a failure in one request does not block the other', async () => {
    // Alone, in either order: the retry of m-1 first releases the lease (the completion of m-2 then meets
    // an expired lease), or the completion of m-2 first settles both (the retry of m-1 is then a no-op).
    // Merged into one call, the completion would be "Not applied: an earlier message ... in this request".
    for (let round = 0; round < 5; round++) {
      const queue = uniqueQueue('ack-same-pair');
      const pid = await pushMessages(queue, 'p1', 2);
      const { leaseId } = await popOk(queue, 'p1', 'batch=2');
      const [retried, completed] = await Promise.all([
        ackBatch({ acknowledgments: [{ transactionId: 'm-1', partitionId: pid, leaseId, status: 'retry' }] }),
        ackBatch({ acknowledgments: [{ transactionId: 'm-2', partitionId: pid, leaseId, status: 'completed' }] }),
      ]);
      assert.equal(retried[0].success, true, JSON.stringify(retried));
      assert.notEqual(completed[0].error, NOT_APPLIED, `round ${round}: ${JSON.stringify(completed)}`);
      assert.ok(completed[0].success || completed[0].error === 'Invalid or expired lease', JSON.stringify(completed));
    }
  });
});
