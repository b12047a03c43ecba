/**
 * POST /api/v1/ack (docs/api.md 6.1, 6.3, 6.4): body validation, the result object, checks C1-C6, the effects table
 * and "Further rules" 1-7, observed over HTTP and through the stored state (queen.cursors, queen.dead_letters).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';

// Long re-check ticks: a parked pop that answers early was woken (rule 5); no other test here parks.
const setup = useBroker({ POP_WAIT_INITIAL_INTERVAL_MS: '20000', POP_WAIT_MAX_INTERVAL_MS: '20000' });

const QUEUE_MODE = '__QUEUE_MODE__';
const NOT_APPLIED = 'Not applied: an earlier message of this partition failed in this request';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pushes `count` messages `${prefix}-1..count` to one partition in one request; returns the partition id. */
async function pushMessages(queue: string, partition: string, count: number, prefix = 'm'): Promise<string> {
  const items = Array.from({ length: count }, (_, i) => ({ queue, partition, transactionId: `${prefix}-${i + 1}`, payload: { n: i + 1 } }));
  const res = await setup.api.push(items);
  assert.equal(res.status, 201, res.text);
  for (const r of res.json) assert.equal(r.status, 'queued', JSON.stringify(r));
  return res.json[0].partition_id;
}

/** Single-partition pop; `params` is appended to the query string. */
async function pop(queue: string, partition: string, params = '') {
  return setup.api.get(`/api/v1/pop/queue/${encodeURIComponent(queue)}/partition/${encodeURIComponent(partition)}?${params}`);
}

/** A pop that must deliver; returns the body. */
async function popOk(queue: string, partition: string, params = ''): Promise<any> {
  const res = await pop(queue, partition, params);
  assert.equal(res.status, 200, `expected a delivery, got ${res.status} ${res.headers.get('x-queen-empty-reason')}`);
  return res.json;
}

const txids = (body: any): string[] => body.messages.map((m: any) => m.transactionId);

/** POST /api/v1/ack; asserts 200 and an array of one, returns that result. */
async function ack(body: Record<string, unknown>): Promise<any> {
  const res = await setup.api.post('/api/v1/ack', body);
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.json), res.text);
  assert.equal(res.json.length, 1, res.text);
  return res.json[0];
}

async function configure(queue: string, options: Record<string, unknown>): Promise<void> {
  const res = await setup.api.post('/api/v1/configure', { queue, options });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.configured, true);
}

/** The full expected result object of §6.4. */
function result(fields: {
  transactionId: string;
  success: boolean;
  error?: string | null;
  queueName?: string | null;
  partitionName?: string | null;
  leaseReleased?: boolean;
  dlq?: boolean;
  index?: number;
}) {
  return {
    index: fields.index ?? 0,
    transactionId: fields.transactionId,
    success: fields.success,
    error: fields.error ?? null,
    queueName: fields.queueName === undefined ? null : fields.queueName,
    partitionName: fields.partitionName === undefined ? null : fields.partitionName,
    leaseReleased: fields.leaseReleased ?? false,
    dlq: fields.dlq ?? false,
  };
}

async function deadLetters(partitionId: string): Promise<any[]> {
  const res = await setup.db.query(
    `SELECT consumer_group, message_offset, message_id::text AS message_id, transaction_id, error_message, retry_count
       FROM queen.dead_letters WHERE partition_id = $1 ORDER BY id`,
    [partitionId],
  );
  return res.rows;
}

async function cursor(partitionId: string, group = QUEUE_MODE): Promise<any> {
  const res = await setup.db.query(
    `SELECT committed::int AS committed, retry_count FROM queen.cursors WHERE partition_id = $1 AND consumer_group = $2`,
    [partitionId, group],
  );
  return res.rows[0];
}

describe('POST /api/v1/ack: body validation (400)', () => {
  const cases: Array<[string, unknown, string]> = [
    ['empty object', {}, 'transactionId is required'],
    ['transactionId missing', { partitionId: randomUUID() }, 'transactionId is required'],
    ['transactionId null', { transactionId: null, partitionId: randomUUID() }, 'transactionId is required'],
    ['transactionId a number', { transactionId: 42, partitionId: randomUUID() }, 'transactionId is required'],
    ['transactionId an object', { transactionId: { a: 1 }, partitionId: randomUUID() }, 'transactionId is required'],
    ['partitionId missing', { transactionId: 'tx' }, 'partitionId is required to ensure message uniqueness'],
    ['partitionId null', { transactionId: 'tx', partitionId: null }, 'partitionId is required to ensure message uniqueness'],
    ['partitionId a number', { transactionId: 'tx', partitionId: 7 }, 'partitionId is required to ensure message uniqueness'],
    ['partitionId an array', { transactionId: 'tx', partitionId: [randomUUID()] }, 'partitionId is required to ensure message uniqueness'],
  ];
  for (const [name, body, error] of cases) {
    test(`${name} -> 400 ${error}`, async () => {
      const res = await setup.api.post('/api/v1/ack', body);
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, { error });
    });
  }

  test('empty body -> 400 Empty request body; a non-object -> 400 Request body must be a JSON object', async () => {
    const empty = await setup.api.post('/api/v1/ack', '');
    assert.equal(empty.status, 400);
    assert.deepEqual(empty.json, { error: 'Empty request body' });
    const arr = await setup.api.post('/api/v1/ack', '[]');
    assert.equal(arr.status, 400);
    assert.deepEqual(arr.json, { error: 'Request body must be a JSON object' });
  });
});

describe('POST /api/v1/ack: result object and checks C1-C6', () => {
  test('a completing ack answers an array of exactly one result object with the 8 keys of §6.4', async () => {
    const queue = uniqueQueue('ack-shape');
    const pid = await pushMessages(queue, 'p1', 1);
    const body = await popOk(queue, 'p1');
    const res = await setup.api.post('/api/v1/ack', { transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.json.length, 1);
    assert.deepEqual(Object.keys(res.json[0]).sort(), ['dlq', 'error', 'index', 'leaseReleased', 'partitionName', 'queueName', 'success', 'transactionId']);
    assert.deepEqual(res.json[0], result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
  });

  test('C1: an unknown status -> Invalid status: bogus, and nothing is applied', async () => {
    const queue = uniqueQueue('ack-c1');
    const pid = await pushMessages(queue, 'p1', 2);
    const body = await popOk(queue, 'p1', 'batch=2');
    const r = await ack({ transactionId: 'm-2', partitionId: pid, leaseId: body.leaseId, status: 'bogus' });
    assert.equal(r.success, false);
    assert.equal(r.error, 'Invalid status: bogus');
    assert.equal(r.leaseReleased, false);
    assert.equal(r.dlq, false);
    assert.equal(r.index, 0);
    assert.equal(r.transactionId, 'm-2');
    // C1 fires even for a message that does not exist (C1 comes before C2).
    const missing = await ack({ transactionId: 'nope', partitionId: pid, status: 'bogus' });
    assert.equal(missing.success, false);
    assert.equal(missing.error, 'Invalid status: bogus');
    // The lease is still held and the cursor did not move.
    const again = await pop(queue, 'p1');
    assert.equal(again.status, 204);
    assert.equal(again.headers.get('x-queen-empty-reason'), 'leased');
    assert.equal((await cursor(pid)).committed, 0);
  });

  test('C1: a status that is "" or not a string is not one of the five values -> Invalid status', async () => {
    const queue = uniqueQueue('ack-c1t');
    const pid = await pushMessages(queue, 'p1', 1);
    const body = await popOk(queue, 'p1');
    for (const [status, text] of [['', 'Invalid status: '], [5, 'Invalid status: 5'], [true, 'Invalid status: true'], ['COMPLETED', 'Invalid status: COMPLETED']] as const) {
      const r = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status });
      assert.equal(r.success, false, `status ${JSON.stringify(status)} was applied`);
      assert.equal(r.error, text);
      assert.equal(r.leaseReleased, false);
    }
    assert.equal((await cursor(pid)).committed, 0);
  });

  test('C2: unknown transactionId, a partitionId that is not a UUID, or a UUID of no partition -> Message not found', async () => {
    const queue = uniqueQueue('ack-c2');
    const pid = await pushMessages(queue, 'p1', 1);
    const body = await popOk(queue, 'p1');
    const unknownTx = await ack({ transactionId: 'does-not-exist', partitionId: pid, leaseId: body.leaseId });
    assert.deepEqual(unknownTx, result({ transactionId: 'does-not-exist', success: false, error: 'Message not found' }));
    const notUuid = await ack({ transactionId: 'm-1', partitionId: 'not-a-uuid', leaseId: body.leaseId });
    assert.deepEqual(notUuid, result({ transactionId: 'm-1', success: false, error: 'Message not found' }));
    const otherUuid = await ack({ transactionId: 'm-1', partitionId: randomUUID(), leaseId: body.leaseId });
    assert.deepEqual(otherUuid, result({ transactionId: 'm-1', success: false, error: 'Message not found' }));
    const emptyPid = await ack({ transactionId: 'm-1', partitionId: '', leaseId: body.leaseId });
    assert.deepEqual(emptyPid, result({ transactionId: 'm-1', success: false, error: 'Message not found' }));
    // None of them touched the lease.
    const leased = await pop(queue, 'p1');
    assert.equal(leased.status, 204);
    assert.equal(leased.headers.get('x-queen-empty-reason'), 'leased');
  });

  test('C3: acking twice is an idempotent success; the lease is not checked at or below the cursor', async () => {
    const queue = uniqueQueue('ack-c3');
    const pid = await pushMessages(queue, 'p1', 2);
    const body = await popOk(queue, 'p1');
    assert.deepEqual(txids(body), ['m-1']);
    const first = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId });
    assert.deepEqual(first, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    const second = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId });
    assert.deepEqual(second, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1' }));
    // A wrong lease, no lease, and a failing status are all no-op successes below the cursor.
    const wrongLease = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: randomUUID() });
    assert.deepEqual(wrongLease, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1' }));
    const noLease = await ack({ transactionId: 'm-1', partitionId: pid });
    assert.deepEqual(noLease, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1' }));
    const failed = await ack({ transactionId: 'm-1', partitionId: pid, status: 'failed' });
    assert.deepEqual(failed, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1' }));
    const dlq = await ack({ transactionId: 'm-1', partitionId: pid, status: 'dlq' });
    assert.deepEqual(dlq, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1' }));
    assert.deepEqual(await deadLetters(pid), []);
    const next = await popOk(queue, 'p1');
    assert.deepEqual(txids(next), ['m-2']);
    assert.equal((await cursor(pid)).retry_count, 0);
  });

  test('C4: a wrong leaseId -> Invalid or expired lease; nothing changes', async () => {
    const queue = uniqueQueue('ack-c4');
    const pid = await pushMessages(queue, 'p1', 1);
    const body = await popOk(queue, 'p1');
    for (const leaseId of [randomUUID(), 'not-a-uuid']) {
      const r = await ack({ transactionId: 'm-1', partitionId: pid, leaseId });
      assert.deepEqual(r, result({ transactionId: 'm-1', success: false, error: 'Invalid or expired lease', queueName: queue, partitionName: 'p1' }));
    }
    // The real lease still works afterwards.
    const ok = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId });
    assert.deepEqual(ok, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
  });

  test('C4: an expired lease -> Invalid or expired lease, and the message is redelivered', async () => {
    const queue = uniqueQueue('ack-c4x');
    const pid = await pushMessages(queue, 'p1', 1);
    const body = await popOk(queue, 'p1', 'leaseSeconds=1');
    await sleep(1500);
    const r = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId });
    assert.deepEqual(r, result({ transactionId: 'm-1', success: false, error: 'Invalid or expired lease', queueName: queue, partitionName: 'p1' }));
    assert.equal((await cursor(pid)).committed, 0);
    const again = await popOk(queue, 'p1');
    assert.deepEqual(txids(again), ['m-1']);
    assert.notEqual(again.leaseId, body.leaseId);
  });

  test('C4: the leaseId of a lease released by a failed ack -> Invalid or expired lease (budget not spent again)', async () => {
    const queue = uniqueQueue('ack-c4r');
    const pid = await pushMessages(queue, 'p1', 1);
    const body = await popOk(queue, 'p1');
    const first = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed' });
    assert.deepEqual(first, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    const again = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed' });
    assert.deepEqual(again, result({ transactionId: 'm-1', success: false, error: 'Invalid or expired lease', queueName: queue, partitionName: 'p1' }));
    assert.deepEqual(await cursor(pid), { committed: 0, retry_count: 1 });
  });

  test('C4: the leaseId of a lease released by a completing ack does not settle later messages', async () => {
    const queue = uniqueQueue('ack-c4c');
    const pid = await pushMessages(queue, 'p1', 2);
    const body = await popOk(queue, 'p1');
    assert.deepEqual(txids(body), ['m-1']);
    const first = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId });
    assert.equal(first.leaseReleased, true);
    // m-2 was never delivered under this lease, and the lease no longer exists.
    const stale = await ack({ transactionId: 'm-2', partitionId: pid, leaseId: body.leaseId });
    assert.deepEqual(stale, result({ transactionId: 'm-2', success: false, error: 'Invalid or expired lease', queueName: queue, partitionName: 'p1' }));
    assert.equal((await cursor(pid)).committed, 1);
    assert.deepEqual(txids(await popOk(queue, 'p1')), ['m-2']);
  });

  test('C5: a message beyond the leased span -> Message is outside the leased span', async () => {
    const queue = uniqueQueue('ack-c5');
    const pid = await pushMessages(queue, 'p1', 5);
    const body = await popOk(queue, 'p1', 'batch=2');
    assert.deepEqual(txids(body), ['m-1', 'm-2']);
    const r = await ack({ transactionId: 'm-4', partitionId: pid, leaseId: body.leaseId });
    assert.deepEqual(r, result({ transactionId: 'm-4', success: false, error: 'Message is outside the leased span', queueName: queue, partitionName: 'p1' }));
    assert.equal((await cursor(pid)).committed, 0);
    // The span itself can still be settled; the next pop starts at m-3.
    const ok = await ack({ transactionId: 'm-2', partitionId: pid, leaseId: body.leaseId });
    assert.equal(ok.success, true);
    assert.equal(ok.leaseReleased, true);
    const next = await popOk(queue, 'p1', 'batch=10');
    assert.deepEqual(txids(next), ['m-3', 'm-4', 'm-5']);
  });

  test('C6: no leaseId (absent or "") while the partition is leased -> leaseId required: partition is leased', async () => {
    const queue = uniqueQueue('ack-c6');
    const pid = await pushMessages(queue, 'p1', 2);
    await popOk(queue, 'p1', 'batch=2');
    const absent = await ack({ transactionId: 'm-1', partitionId: pid });
    assert.deepEqual(absent, result({ transactionId: 'm-1', success: false, error: 'leaseId required: partition is leased', queueName: queue, partitionName: 'p1' }));
    const empty = await ack({ transactionId: 'm-2', partitionId: pid, leaseId: '' });
    assert.deepEqual(empty, result({ transactionId: 'm-2', success: false, error: 'leaseId required: partition is leased', queueName: queue, partitionName: 'p1' }));
    const nul = await ack({ transactionId: 'm-2', partitionId: pid, leaseId: null });
    assert.deepEqual(nul, result({ transactionId: 'm-2', success: false, error: 'leaseId required: partition is leased', queueName: queue, partitionName: 'p1' }));
    assert.equal((await cursor(pid)).committed, 0);
  });

  test('a leaseless ack is accepted once the lease expired (and on a never-leased partition)', async () => {
    const queue = uniqueQueue('ack-nolease');
    const pid = await pushMessages(queue, 'p1', 3);
    await popOk(queue, 'p1', 'leaseSeconds=1');
    await sleep(1500);
    const r = await ack({ transactionId: 'm-1', partitionId: pid });
    assert.deepEqual(r, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1' }));
    // Operator's skip on a partition never popped by group g: cumulative up to m-2.
    const skip = await ack({ transactionId: 'm-2', partitionId: pid, consumerGroup: 'g' });
    assert.deepEqual(skip, result({ transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1' }));
    assert.deepEqual(txids(await popOk(queue, 'p1', 'batch=10')), ['m-2', 'm-3']);
    assert.deepEqual(txids(await popOk(queue, 'p1', 'batch=10&consumerGroup=g')), ['m-3']);
  });
});

describe('POST /api/v1/ack: effects', () => {
  test('completed is cumulative: acking the 3rd of 3 leased messages settles all three and releases the lease', async () => {
    const queue = uniqueQueue('ack-cumul');
    const pid = await pushMessages(queue, 'p1', 4);
    const body = await popOk(queue, 'p1', 'batch=3');
    assert.deepEqual(txids(body), ['m-1', 'm-2', 'm-3']);
    const first = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'completed' });
    assert.deepEqual(first, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: false }));
    const stillLeased = await pop(queue, 'p1');
    assert.equal(stillLeased.status, 204);
    assert.equal(stillLeased.headers.get('x-queen-empty-reason'), 'leased');
    const third = await ack({ transactionId: 'm-3', partitionId: pid, leaseId: body.leaseId, status: 'completed' });
    assert.deepEqual(third, result({ transactionId: 'm-3', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    assert.equal((await cursor(pid)).committed, 3);
    const next = await popOk(queue, 'p1', 'batch=10');
    assert.deepEqual(txids(next), ['m-4']);
    // m-2 was settled by the cumulative commit: acking it now is C3 (no lease check, success).
    const m2 = await ack({ transactionId: 'm-2', partitionId: pid, leaseId: body.leaseId });
    assert.deepEqual(m2, result({ transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1' }));
  });

  test('status success is an alias of completed; a missing status means completed', async () => {
    const queue = uniqueQueue('ack-alias');
    const pid = await pushMessages(queue, 'p1', 3);
    const b1 = await popOk(queue, 'p1');
    const r1 = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: b1.leaseId, status: 'success' });
    assert.deepEqual(r1, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    const b2 = await popOk(queue, 'p1');
    assert.deepEqual(txids(b2), ['m-2']);
    const r2 = await ack({ transactionId: 'm-2', partitionId: pid, leaseId: b2.leaseId, status: null });
    assert.deepEqual(r2, result({ transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    assert.deepEqual(txids(await popOk(queue, 'p1')), ['m-3']);
  });

  test('status retry: lease released, cursor unchanged, immediate redelivery with a new leaseId, retry budget untouched', async () => {
    const queue = uniqueQueue('ack-retry');
    await configure(queue, { retryLimit: 1 });
    const pid = await pushMessages(queue, 'p1', 3);
    let body = await popOk(queue, 'p1', 'batch=2');
    assert.deepEqual(txids(body), ['m-1', 'm-2']);
    const seen = new Set<string>([body.leaseId]);
    for (let i = 0; i < 3; i++) {
      const r = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'retry' });
      assert.deepEqual(r, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
      const c = await cursor(pid);
      assert.equal(c.committed, 0);
      assert.equal(c.retry_count, 0);
      body = await popOk(queue, 'p1', 'batch=2');
      assert.deepEqual(txids(body), ['m-1', 'm-2']);
      assert.ok(!seen.has(body.leaseId), 'a redelivery carries a new leaseId');
      seen.add(body.leaseId);
    }
    // Budget untouched: with retryLimit 1 the first failed ack still has budget...
    const f1 = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed' });
    assert.deepEqual(f1, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    body = await popOk(queue, 'p1');
    assert.deepEqual(txids(body), ['m-1']);
    // ...and only the second one exhausts it.
    const f2 = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed' });
    assert.deepEqual(f2, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true, dlq: true }));
    const dead = await deadLetters(pid);
    assert.equal(dead.length, 1);
    assert.equal(dead[0].retry_count, 1);
  });

  test('status failed with budget: retry counter +1, lease released, immediate redelivery of the same span', async () => {
    const queue = uniqueQueue('ack-failed');
    const pid = await pushMessages(queue, 'p1', 3);
    const body = await popOk(queue, 'p1', 'batch=2');
    const r = await ack({ transactionId: 'm-2', partitionId: pid, leaseId: body.leaseId, status: 'failed', error: 'boom' });
    assert.deepEqual(r, result({ transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    assert.deepEqual(await cursor(pid), { committed: 0, retry_count: 1 });
    const again = await popOk(queue, 'p1', 'batch=2');
    assert.deepEqual(txids(again), ['m-1', 'm-2']);
    assert.notEqual(again.leaseId, body.leaseId);
    const r2 = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: again.leaseId, status: 'failed' });
    assert.equal(r2.success, true);
    assert.equal(r2.dlq, false);
    assert.deepEqual(await cursor(pid), { committed: 0, retry_count: 2 });
    assert.deepEqual(await deadLetters(pid), []);
    // Any advance of the cursor resets the counter (rule 3).
    const third = await popOk(queue, 'p1');
    const done = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: third.leaseId });
    assert.equal(done.success, true);
    assert.deepEqual(await cursor(pid), { committed: 1, retry_count: 0 });
  });

  test('retryLimit 2: a message that always fails is delivered 3 times, then goes to the DLQ with its error text', async () => {
    const queue = uniqueQueue('ack-limit');
    await configure(queue, { retryLimit: 2 });
    const pid = await pushMessages(queue, 'p1', 2);
    const ids: string[] = [];
    for (let delivery = 1; delivery <= 3; delivery++) {
      const body = await popOk(queue, 'p1');
      assert.deepEqual(txids(body), ['m-1'], `delivery ${delivery}`);
      ids.push(body.messages[0].id);
      const r = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed', error: `boom ${delivery}` });
      assert.deepEqual(r, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true, dlq: delivery === 3 }));
    }
    assert.equal(new Set(ids).size, 1);
    const dead = await deadLetters(pid);
    assert.deepEqual(dead, [{ consumer_group: QUEUE_MODE, message_offset: '1', message_id: ids[0], transaction_id: 'm-1', error_message: 'boom 3', retry_count: 2 }]);
    assert.deepEqual(await cursor(pid), { committed: 1, retry_count: 0 });
    const next = await popOk(queue, 'p1', 'batch=10');
    assert.deepEqual(txids(next), ['m-2']);
  });

  test('retryLimit 2: without an error text the DLQ entry says Retries exhausted', async () => {
    const queue = uniqueQueue('ack-limit2');
    await configure(queue, { retryLimit: 2 });
    const pid = await pushMessages(queue, 'p1', 2);
    for (let delivery = 1; delivery <= 3; delivery++) {
      const body = await popOk(queue, 'p1');
      assert.deepEqual(txids(body), ['m-1']);
      const r = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed' });
      assert.equal(r.success, true);
      assert.equal(r.dlq, delivery === 3);
    }
    const dead = await deadLetters(pid);
    assert.equal(dead.length, 1);
    assert.equal(dead[0].error_message, 'Retries exhausted');
    assert.equal(dead[0].retry_count, 2);
    assert.deepEqual(txids(await popOk(queue, 'p1')), ['m-2']);
  });

  test('retryLimit 0: the first failed ack sends the message to the DLQ', async () => {
    const queue = uniqueQueue('ack-limit0');
    await configure(queue, { retryLimit: 0 });
    const pid = await pushMessages(queue, 'p1', 2);
    const body = await popOk(queue, 'p1');
    const r = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed' });
    assert.deepEqual(r, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true, dlq: true }));
    const dead = await deadLetters(pid);
    assert.deepEqual(dead, [{ consumer_group: QUEUE_MODE, message_offset: '1', message_id: body.messages[0].id, transaction_id: 'm-1', error_message: 'Retries exhausted', retry_count: 0 }]);
    assert.deepEqual(txids(await popOk(queue, 'p1')), ['m-2']);
  });

  test('status dlq: DLQ entry (default text Moved to DLQ by consumer, or the item error), cursor moves past', async () => {
    const queue = uniqueQueue('ack-dlq');
    const pid = await pushMessages(queue, 'p1', 3);
    const b1 = await popOk(queue, 'p1', 'batch=2');
    const r1 = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: b1.leaseId, status: 'dlq' });
    // m-1 settled but the span ends at m-2: the lease stays.
    assert.deepEqual(r1, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: false, dlq: true }));
    const r2 = await ack({ transactionId: 'm-2', partitionId: pid, leaseId: b1.leaseId, status: 'dlq', error: 'poison pill' });
    assert.deepEqual(r2, result({ transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true, dlq: true }));
    const dead = await deadLetters(pid);
    assert.deepEqual(dead.map((d) => [d.transaction_id, d.error_message, d.retry_count, d.consumer_group, d.message_id]), [
      ['m-1', 'Moved to DLQ by consumer', 0, QUEUE_MODE, b1.messages[0].id],
      ['m-2', 'poison pill', 0, QUEUE_MODE, b1.messages[1].id],
    ]);
    assert.deepEqual(txids(await popOk(queue, 'p1', 'batch=10')), ['m-3']);
  });

  test('the cursor never moves backwards: ack offset 3 then offset 1 -> both success, next pop starts at 4', async () => {
    const queue = uniqueQueue('ack-back');
    const pid = await pushMessages(queue, 'p1', 5);
    const r3 = await ack({ transactionId: 'm-3', partitionId: pid });
    assert.deepEqual(r3, result({ transactionId: 'm-3', success: true, queueName: queue, partitionName: 'p1' }));
    const r1 = await ack({ transactionId: 'm-1', partitionId: pid });
    assert.deepEqual(r1, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1' }));
    assert.equal((await cursor(pid)).committed, 3);
    assert.deepEqual(txids(await popOk(queue, 'p1', 'batch=10')), ['m-4', 'm-5']);
  });

  test('rule 1: in one ack/batch, [failed m1, completed m2] -> m2 not applied and both are redelivered', async () => {
    const queue = uniqueQueue('ack-rule1');
    const pid = await pushMessages(queue, 'p1', 3);
    const body = await popOk(queue, 'p1', 'batch=3');
    const res = await setup.api.post('/api/v1/ack/batch', {
      acknowledgments: [
        { transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed' },
        { transactionId: 'm-2', partitionId: pid, leaseId: body.leaseId, status: 'completed' },
      ],
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, [
      result({ index: 0, transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }),
      result({ index: 1, transactionId: 'm-2', success: false, error: NOT_APPLIED, queueName: queue, partitionName: 'p1' }),
    ]);
    assert.deepEqual(await cursor(pid), { committed: 0, retry_count: 1 });
    const again = await popOk(queue, 'p1', 'batch=3');
    assert.deepEqual(txids(again), ['m-1', 'm-2', 'm-3']);
  });

  test('rule 1 covers only the failed-with-budget and retry paths: [failed m1 (budget spent), completed m2] -> both applied', async () => {
    const queue = uniqueQueue('ack-rule1c');
    await configure(queue, { retryLimit: 0 });
    const pid = await pushMessages(queue, 'p1', 3);
    const body = await popOk(queue, 'p1', 'batch=2');
    const res = await setup.api.post('/api/v1/ack/batch', {
      acknowledgments: [
        { transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed', error: 'bad' },
        { transactionId: 'm-2', partitionId: pid, leaseId: body.leaseId, status: 'completed' },
      ],
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, [
      result({ index: 0, transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', dlq: true }),
      result({ index: 1, transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }),
    ]);
    assert.deepEqual((await deadLetters(pid)).map((d) => [d.transaction_id, d.error_message]), [['m-1', 'bad']]);
    assert.deepEqual(txids(await popOk(queue, 'p1', 'batch=10')), ['m-3']);
  });

  test('rule 1 follows offset order, not input order: [completed m2, retry m1] -> m2 not applied', async () => {
    const queue = uniqueQueue('ack-rule1b');
    const pid = await pushMessages(queue, 'p1', 2);
    const body = await popOk(queue, 'p1', 'batch=2');
    const res = await setup.api.post('/api/v1/ack/batch', {
      acknowledgments: [
        { transactionId: 'm-2', partitionId: pid, leaseId: body.leaseId, status: 'completed' },
        { transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'retry' },
      ],
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, [
      result({ index: 0, transactionId: 'm-2', success: false, error: NOT_APPLIED, queueName: queue, partitionName: 'p1' }),
      result({ index: 1, transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }),
    ]);
    assert.deepEqual(await cursor(pid), { committed: 0, retry_count: 0 });
    assert.deepEqual(txids(await popOk(queue, 'p1', 'batch=2')), ['m-1', 'm-2']);
  });

  test('lease expiry never spends retry budget (retryLimit 1, three expiries)', async () => {
    const queue = uniqueQueue('ack-expiry');
    await configure(queue, { retryLimit: 1 });
    const pid = await pushMessages(queue, 'p1', 1);
    const leases = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const body = await popOk(queue, 'p1', 'leaseSeconds=1');
      assert.deepEqual(txids(body), ['m-1']);
      leases.add(body.leaseId);
      await sleep(1300);
    }
    assert.equal(leases.size, 3);
    assert.deepEqual(await deadLetters(pid), []);
    assert.deepEqual(await cursor(pid), { committed: 0, retry_count: 0 });
    // Still delivered, and the whole budget is left: the first failed ack redelivers, the second dead-letters.
    let body = await popOk(queue, 'p1');
    assert.deepEqual(txids(body), ['m-1']);
    const f1 = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed' });
    assert.equal(f1.success, true);
    assert.equal(f1.dlq, false);
    body = await popOk(queue, 'p1');
    const f2 = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed' });
    assert.equal(f2.dlq, true);
  });

  test('retryDelay 1500: after a failed ack the partition is not claimable for ~1.5 s (204 retry_delay), then it is', async () => {
    const queue = uniqueQueue('ack-delay');
    await configure(queue, { retryDelay: 1500 });
    const pid = await pushMessages(queue, 'p1', 1);
    const body = await popOk(queue, 'p1');
    const started = Date.now();
    const r = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed' });
    assert.deepEqual(r, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    const held = await pop(queue, 'p1');
    assert.equal(held.status, 204);
    assert.equal(held.headers.get('x-queen-empty-reason'), 'retry_delay');
    assert.equal(held.text, '');
    // Poll until it becomes claimable again.
    let delivered: any;
    while (Date.now() - started < 8000) {
      const res = await pop(queue, 'p1');
      if (res.status === 200) {
        delivered = res.json;
        break;
      }
      assert.equal(res.status, 204);
      assert.equal(res.headers.get('x-queen-empty-reason'), 'retry_delay');
      await sleep(100);
    }
    const elapsed = Date.now() - started;
    assert.ok(delivered, 'the message became claimable again');
    assert.deepEqual(txids(delivered), ['m-1']);
    assert.ok(elapsed >= 1400, `redelivered after ${elapsed} ms, before retryDelay elapsed`);
    assert.ok(elapsed < 5000, `redelivered only after ${elapsed} ms`);
    // A retry ack sets no not-before: the redelivery is immediate even with retryDelay configured.
    const retry = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: delivered.leaseId, status: 'retry' });
    assert.equal(retry.leaseReleased, true);
    const immediate = await popOk(queue, 'p1');
    assert.deepEqual(txids(immediate), ['m-1']);
  });

  test('retryDelay: a completing ack clears not-before (the next message is claimable at once)', async () => {
    const queue = uniqueQueue('ack-delay2');
    await configure(queue, { retryDelay: 5000 });
    const pid = await pushMessages(queue, 'p1', 2);
    const body = await popOk(queue, 'p1');
    const failed = await ack({ transactionId: 'm-1', partitionId: pid, leaseId: body.leaseId, status: 'failed' });
    assert.equal(failed.leaseReleased, true);
    const held = await pop(queue, 'p1');
    assert.equal(held.status, 204);
    assert.equal(held.headers.get('x-queen-empty-reason'), 'retry_delay');
    // No lease is live now: a leaseless completed ack settles m-1 and clears not-before.
    const done = await ack({ transactionId: 'm-1', partitionId: pid });
    assert.deepEqual(done, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1' }));
    assert.deepEqual(txids(await popOk(queue, 'p1')), ['m-2']);
  });

  test('consumer groups are isolated: g1 acks and DLQ entries do not move g2 or queue mode', async () => {
    const queue = uniqueQueue('ack-groups');
    const pid = await pushMessages(queue, 'p1', 3);
    const g1 = await popOk(queue, 'p1', 'consumerGroup=g1&batch=3');
    const g2 = await popOk(queue, 'p1', 'consumerGroup=g2&batch=1');
    assert.deepEqual(txids(g2), ['m-1']);
    // g2's lease is not valid for g1, and vice versa.
    const cross = await ack({ transactionId: 'm-1', partitionId: pid, consumerGroup: 'g1', leaseId: g2.leaseId });
    assert.equal(cross.error, 'Invalid or expired lease');
    const dl = await ack({ transactionId: 'm-1', partitionId: pid, consumerGroup: 'g1', leaseId: g1.leaseId, status: 'dlq' });
    assert.deepEqual(dl, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', dlq: true }));
    const done = await ack({ transactionId: 'm-3', partitionId: pid, consumerGroup: 'g1', leaseId: g1.leaseId });
    assert.deepEqual(done, result({ transactionId: 'm-3', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    const dead = await deadLetters(pid);
    assert.deepEqual(dead.map((d) => [d.consumer_group, d.transaction_id]), [['g1', 'm-1']]);
    assert.equal((await cursor(pid, 'g1')).committed, 3);
    assert.equal((await cursor(pid, 'g2')).committed, 0);
    // g2 still holds its lease on m-1; its own ack works and it then receives m-2, m-3.
    const g2ack = await ack({ transactionId: 'm-1', partitionId: pid, consumerGroup: 'g2', leaseId: g2.leaseId });
    assert.deepEqual(g2ack, result({ transactionId: 'm-1', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    assert.deepEqual(txids(await popOk(queue, 'p1', 'consumerGroup=g2&batch=10')), ['m-2', 'm-3']);
    // Queue mode was never touched: it starts at m-1, and consumerGroup "" / __QUEUE_MODE__ name it.
    const qm = await popOk(queue, 'p1', 'batch=10');
    assert.deepEqual(txids(qm), ['m-1', 'm-2', 'm-3']);
    const qmAck = await ack({ transactionId: 'm-1', partitionId: pid, consumerGroup: '', leaseId: qm.leaseId });
    assert.equal(qmAck.success, true);
    const qmAck2 = await ack({ transactionId: 'm-3', partitionId: pid, consumerGroup: QUEUE_MODE, leaseId: qm.leaseId });
    assert.deepEqual(qmAck2, result({ transactionId: 'm-3', success: true, queueName: queue, partitionName: 'p1', leaseReleased: true }));
    assert.equal((await cursor(pid)).committed, 3);
  });

  for (const status of ['failed', 'retry', 'completed'] as const) {
    test(`rule 5: a lease released by a ${status} ack wakes a parked pop of the queue at once`, async () => {
      const queue = uniqueQueue('ack-wake');
      const pid = await pushMessages(queue, 'p1', 2);
      const held = await popOk(queue, 'p1', 'consumerGroup=g');
      assert.deepEqual(txids(held), ['m-1']);
      let answered = false;
      const parked = setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=g&wait=true&timeout=10000`).finally(() => (answered = true));
      await sleep(500); // let the pop make its first (empty) attempt and park; its next re-check tick is 20 s away
      assert.equal(answered, false, 'the pop answered before the lease was released');
      const released = Date.now();
      const r = await ack({ transactionId: 'm-1', partitionId: pid, consumerGroup: 'g', leaseId: held.leaseId, status });
      assert.equal(r.success, true);
      assert.equal(r.leaseReleased, true);
      const res = await parked;
      const latency = Date.now() - released;
      assert.equal(res.status, 200, `parked pop answered ${res.status} ${res.headers.get('x-queen-empty-reason')}`);
      assert.deepEqual(txids(res.json), [status === 'completed' ? 'm-2' : 'm-1']);
      assert.ok(latency < 3000, `the parked pop was answered ${latency} ms after the release`);
    });
  }

  test('rule 7: the deadLetterQueue option does not gate the DLQ (deadLetterQueue false, status dlq and exhausted)', async () => {
    const queue = uniqueQueue('ack-dlqflag');
    await configure(queue, { retryLimit: 0, deadLetterQueue: false });
    const pid = await pushMessages(queue, 'p1', 2);
    const b1 = await popOk(queue, 'p1');
    assert.equal((await ack({ transactionId: 'm-1', partitionId: pid, leaseId: b1.leaseId, status: 'failed' })).dlq, true);
    const b2 = await popOk(queue, 'p1');
    assert.equal((await ack({ transactionId: 'm-2', partitionId: pid, leaseId: b2.leaseId, status: 'dlq' })).dlq, true);
    assert.deepEqual((await deadLetters(pid)).map((d) => d.transaction_id), ['m-1', 'm-2']);
  });

  test('rule 6: acks of auto-acked messages are idempotent successes', async () => {
    const queue = uniqueQueue('ack-auto');
    const pid = await pushMessages(queue, 'p1', 2);
    const body = await popOk(queue, 'p1', 'autoAck=true&batch=2');
    assert.equal(body.leaseId, '');
    for (const status of ['completed', 'failed', 'dlq']) {
      const r = await ack({ transactionId: 'm-2', partitionId: pid, leaseId: '', status });
      assert.deepEqual(r, result({ transactionId: 'm-2', success: true, queueName: queue, partitionName: 'p1' }));
    }
    assert.deepEqual(await deadLetters(pid), []);
  });
});
