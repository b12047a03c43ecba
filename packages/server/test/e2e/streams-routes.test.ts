/**
 * The streams routes on the wire (docs/streams.md): registration outcomes and the 409, cycle shapes and every
 * failure rolling back state, sink pushes and the cursor together, the fenced ack of docs/streams.md
 * (stale lease, replays, span, leaseId required), release_lease, state/get filters and order, the 400s of
 * malformed input with nothing applied, the size limits, and the clean-up of state by query and queue delete.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';
import { MILLIS_Z, messaging, UUID_V7 } from '../support/messaging.js';

const setup = useBroker();
const GROUP = 'streams.g';
const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

const post = (path: string, body: unknown) => setup.api.post(path, body);

async function register(body: Record<string, unknown>) {
  return post('/streams/v1/queries', { source_queue: 'src', config_hash: HASH_A, ...body });
}

/** A registered query and a source partition with `count` messages leased to GROUP by one pop. */
async function shard(count = 3, popParams = '') {
  const queue = uniqueQueue('streams-src');
  const m = messaging(setup.api, setup.db);
  const partitionId = await m.push(queue, 'P', count);
  const reg = await register({ name: `q-${randomUUID()}`, source_queue: queue });
  assert.equal(reg.status, 200, reg.text);
  const popped = await m.popOk(queue, 'P', `consumerGroup=${GROUP}&batch=${count}${popParams}`);
  const messages = popped.messages as Array<{ transactionId: string; leaseId: string }>;
  return { queue, partitionId, queryId: reg.json.query_id as string, messages, leaseId: messages[0]!.leaseId, m };
}

async function stateOf(queryId: string, partitionId: string): Promise<Array<{ key: string; value: unknown }>> {
  const rows = await setup.db.query<{ key: string; value: unknown }>(
    'SELECT key, value FROM queen_streams.state WHERE query_id = $1 AND partition_id = $2 ORDER BY key COLLATE "C"', [queryId, partitionId]);
  return rows.rows;
}

async function queueCount(queue: string): Promise<number> {
  const rows = await setup.db.query<{ n: number }>(
    `SELECT coalesce(sum(p.tail), 0)::int AS n FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1`, [queue]);
  return rows.rows[0]!.n;
}

describe('POST /streams/v1/queries', () => {
  test('fresh, same hash (reset ignored), another hash with reset (state wiped), another hash without reset (409)', async () => {
    const name = `q-${randomUUID()}`;
    const fresh = await register({ name, reset: true });
    assert.equal(fresh.status, 200);
    assert.deepEqual(Object.keys(fresh.json), ['success', 'query_id', 'name', 'config_hash', 'fresh', 'reset']);
    assert.match(fresh.json.query_id, UUID_V7);
    assert.deepEqual({ ...fresh.json, query_id: 'x' }, { success: true, query_id: 'x', name, config_hash: HASH_A, fresh: true, reset: false });
    const id = fresh.json.query_id;
    await setup.db.query(`INSERT INTO queen_streams.state (query_id, partition_id, key, value) VALUES ($1, $2, 'k', '{"n":1}')`, [id, randomUUID()]);

    const same = await register({ name, reset: true, sink_queue: 'out' });
    assert.deepEqual(same.json, { success: true, query_id: id, name, config_hash: HASH_A, fresh: false, reset: false });
    const stored = await setup.db.query('SELECT sink_queue, config_hash FROM queen_streams.queries WHERE id = $1', [id]);
    assert.deepEqual(stored.rows[0], { sink_queue: 'out', config_hash: HASH_A });
    assert.equal((await setup.db.query('SELECT 1 FROM queen_streams.state WHERE query_id = $1', [id])).rowCount, 1, 'same hash keeps state');

    const mismatch = await register({ name, config_hash: HASH_B });
    assert.equal(mismatch.status, 409);
    assert.deepEqual(mismatch.json, { success: false, query_id: id, name, error: `config_hash mismatch: stored ${HASH_A}, got ${HASH_B}` });
    assert.equal((await setup.db.query('SELECT 1 FROM queen_streams.state WHERE query_id = $1', [id])).rowCount, 1, '409 changes nothing');

    const reset = await register({ name, config_hash: HASH_B, reset: true, sink_queue: '' });
    assert.deepEqual(reset.json, { success: true, query_id: id, name, config_hash: HASH_B, fresh: false, reset: true });
    assert.equal((await setup.db.query('SELECT 1 FROM queen_streams.state WHERE query_id = $1', [id])).rowCount, 0, 'reset wipes state');
    const after = await setup.db.query('SELECT sink_queue, config_hash FROM queen_streams.queries WHERE id = $1', [id]);
    assert.deepEqual(after.rows[0], { sink_queue: null, config_hash: HASH_B });
  });

  test('concurrent first registrations give one row and one hash', async () => {
    const name = `q-${randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => register({ name, config_hash: i % 2 === 0 ? HASH_A : HASH_B })));
    const ok = answers.filter((a) => a.status === 200);
    const conflicts = answers.filter((a) => a.status === 409);
    assert.equal(ok.length + conflicts.length, 8);
    assert.equal(new Set(answers.map((a) => a.json.query_id)).size, 1);
    assert.equal(ok.filter((a) => a.json.fresh).length, 1);
    const winner = ok.find((a) => a.json.fresh)!.json.config_hash;
    assert.ok(ok.every((a) => a.json.config_hash === winner), 'every success carries the stored hash');
    assert.equal((await setup.db.query('SELECT 1 FROM queen_streams.queries WHERE name = $1', [name])).rowCount, 1);
  });

  test('the required fields in order, and bad types, are 400s', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'name is required'],
      [{ name: '', source_queue: 'a', config_hash: 'h' }, 'name is required'],
      [{ name: 7, source_queue: 'a', config_hash: 'h' }, 'name is required'],
      [{ name: 'n' }, 'source_queue is required'],
      [{ name: 'n', source_queue: 'a' }, 'config_hash is required'],
      [{ name: 'n', source_queue: 'a', config_hash: 'h', reset: 'yes' }, 'reset must be a boolean'],
      [{ name: 'n', source_queue: 'a', config_hash: 'h', sink_queue: 5 }, 'sink_queue must be a string'],
      [{ name: 'x'.repeat(256), source_queue: 'a', config_hash: 'h' }, 'name is too long (max 255 characters)'],
      [{ name: 'n\u0000', source_queue: 'a', config_hash: 'h' }, 'Invalid name'],
    ];
    for (const [body, error] of cases) {
      const res = await post('/streams/v1/queries', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.json, { error });
    }
    assert.equal((await setup.db.query(`SELECT 1 FROM queen_streams.queries WHERE name = 'n'`)).rowCount, 0);
    const empty = await setup.api.post('/streams/v1/queries', '');
    assert.deepEqual([empty.status, empty.json], [400, { error: 'Empty request body' }]);
  });
});

describe('POST /streams/v1/cycle', () => {
  test('a cycle commits state ops, sink pushes in item order and the ack; the lease is released', async () => {
    const s = await shard(3);
    const sink = uniqueQueue('streams-sink');
    const res = await post('/streams/v1/cycle', {
      query_id: s.queryId, partition_id: s.partitionId, consumer_group: GROUP,
      state_ops: [{ type: 'upsert', key: 'b', value: { n: 2 } }, { type: 'upsert', key: 'a' }, { type: 'delete', key: 'missing' }],
      push_items: [{ queue: sink, partition: 'x', payload: { i: 1 } }, { queue: sink, payload: { i: 2 } }, { queue: sink, partition: 'x', payload: { i: 3 }, transactionId: 'fixed' }],
      ack: { transactionId: s.messages[2]!.transactionId, leaseId: s.leaseId, status: 'completed', count: 3 },
    });
    assert.equal(res.status, 200, res.text);
    const body = res.json;
    assert.deepEqual(Object.keys(body), ['success', 'query_id', 'partition_id', 'queueName', 'state_ops_applied', 'push_results', 'ack_result']);
    assert.deepEqual([body.success, body.query_id, body.partition_id, body.queueName, body.state_ops_applied], [true, s.queryId, s.partitionId, s.queue, 3]);
    assert.deepEqual(body.ack_result, { success: true, count: 3, lease_released: true, dlq: false });
    assert.equal(body.push_results.length, 3);
    body.push_results.forEach((r: any, i: number) => {
      assert.deepEqual(Object.keys(r), ['index', 'transaction_id', 'status', 'message_id', 'partition_id', 'trace_id', 'queueName']);
      assert.deepEqual([r.index, r.status, r.queueName], [i, 'queued', sink]);
    });
    assert.equal(body.push_results[2].transaction_id, 'fixed');
    // Minted ids follow item order, so the sink keeps the emit order.
    const ids = body.push_results.map((r: any) => r.message_id as string);
    assert.deepEqual([...ids].sort(), ids);
    assert.deepEqual(await stateOf(s.queryId, s.partitionId), [{ key: 'a', value: {} }, { key: 'b', value: { n: 2 } }]);
    const cursor = await s.m.cursor(s.partitionId, GROUP);
    assert.deepEqual([cursor!.committed, cursor!.lease_id], [3, null]);
    const x = await s.m.popOk(sink, 'x', 'batch=10');
    assert.deepEqual(x.messages.map((m: any) => m.data.i), [1, 3]);
    assert.equal(x.messages[0].producerSub ?? null, null);

    // A sink item whose (partition, transactionId) is stored answers duplicate (ordinary push rules).
    const again = await shard(1);
    const dup = await post('/streams/v1/cycle', {
      query_id: again.queryId, partition_id: again.partitionId, consumer_group: GROUP,
      push_items: [{ queue: sink, partition: 'x', payload: { i: 4 }, transactionId: 'fixed' }],
      ack: { transactionId: again.messages[0]!.transactionId, leaseId: again.leaseId },
    });
    assert.equal(dup.json.success, true, dup.text);
    assert.deepEqual(Object.keys(dup.json.push_results[0]), ['index', 'transaction_id', 'status', 'message_id', 'queueName']);
    assert.equal(dup.json.push_results[0].status, 'duplicate');
    assert.equal(dup.json.push_results[0].message_id, ids[2]);
    assert.deepEqual(dup.json.ack_result, { success: true, count: 1, lease_released: true, dlq: false });
  });

  test('release_lease:true releases the lease of a partial ack; the rest is redelivered at once, in order', async () => {
    const s = await shard(4);
    const res = await post('/streams/v1/cycle', {
      query_id: s.queryId, partition_id: s.partitionId, consumer_group: GROUP,
      ack: { transactionId: s.messages[1]!.transactionId, leaseId: s.leaseId },
    });
    assert.deepEqual(res.json.ack_result, { success: true, count: 1, lease_released: true, dlq: false });
    const next = await s.m.popOk(s.queue, 'P', `consumerGroup=${GROUP}&batch=10`);
    assert.deepEqual(next.messages.map((m: any) => m.transactionId), [s.messages[2]!.transactionId, s.messages[3]!.transactionId]);
  });

  test('release_lease:false keeps the lease after a partial ack; its replay fails with "Message already acknowledged" and commits nothing', async () => {
    const s = await shard(4);
    const sink = uniqueQueue('streams-sink');
    const body = {
      query_id: s.queryId, partition_id: s.partitionId, consumer_group: GROUP, release_lease: false,
      state_ops: [{ type: 'upsert', key: 'tokens', value: { n: 1 } }],
      push_items: [{ queue: sink, payload: { ok: true } }],
      ack: { transactionId: s.messages[1]!.transactionId, leaseId: s.leaseId, status: 'completed', count: 2 },
    };
    const first = await post('/streams/v1/cycle', body);
    assert.deepEqual(first.json.ack_result, { success: true, count: 2, lease_released: false, dlq: false });
    const cursor = await s.m.cursor(s.partitionId, GROUP);
    assert.deepEqual([cursor!.committed, cursor!.live, cursor!.lease_id], [2, true, s.leaseId]);
    await s.m.popEmpty(s.queue, 'P', `consumerGroup=${GROUP}`);

    const replay = await post('/streams/v1/cycle', { ...body, state_ops: [{ type: 'upsert', key: 'tokens', value: { n: 99 } }] });
    assert.equal(replay.status, 200);
    assert.deepEqual(replay.json, {
      success: false, query_id: s.queryId, partition_id: s.partitionId, queueName: s.queue,
      state_ops_applied: 0, push_results: [], ack_result: null, error: 'Message already acknowledged',
    });
    assert.equal(await queueCount(sink), 1, 'the replay pushed nothing');
    assert.deepEqual(await stateOf(s.queryId, s.partitionId), [{ key: 'tokens', value: { n: 1 } }]);
  });

  test('fencing: a stale lease, a foreign lease, a span overrun or a missing leaseId on a leased partition commit nothing', async () => {
    const s = await shard(2, '&leaseSeconds=1');
    const sink = uniqueQueue('streams-sink');
    const attempt = (ack: Record<string, unknown>) => post('/streams/v1/cycle', {
      query_id: s.queryId, partition_id: s.partitionId, consumer_group: GROUP,
      state_ops: [{ type: 'upsert', key: 'k', value: { v: 1 } }], push_items: [{ queue: sink, payload: {} }], ack,
    });
    const foreign = await attempt({ transactionId: s.messages[0]!.transactionId, leaseId: randomUUID() });
    assert.equal(foreign.json.error, 'Invalid or expired lease');
    const odd = await attempt({ transactionId: s.messages[0]!.transactionId, leaseId: 'not-a-uuid' });
    assert.deepEqual([odd.status, odd.json.success, odd.json.error], [200, false, 'Invalid or expired lease']);
    // Text PostgreSQL cannot store is refused before the cycle runs, as anywhere in a body (docs/streams.md "Limits").
    for (const leaseId of ['\u0000', `${s.leaseId}\u0000`]) {
      const nul = await attempt({ transactionId: s.messages[0]!.transactionId, leaseId });
      assert.deepEqual([nul.status, nul.json], [400, { error: 'Invalid leaseId' }], JSON.stringify(leaseId));
    }
    const unleased = await attempt({ transactionId: s.messages[0]!.transactionId });
    assert.equal(unleased.json.error, 'leaseId required: partition is leased');
    const missing = await attempt({ transactionId: 'no-such-message', leaseId: s.leaseId });
    assert.equal(missing.json.error, 'Message not found');

    // A message pushed after the pop is outside the leased span.
    await setup.api.push([{ queue: s.queue, partition: 'P', payload: {}, transactionId: 'late' }]);
    const outside = await attempt({ transactionId: 'late', leaseId: s.leaseId });
    assert.equal(outside.json.error, 'Message is outside the leased span');

    await new Promise((r) => setTimeout(r, 1200));
    const stale = await attempt({ transactionId: s.messages[1]!.transactionId, leaseId: s.leaseId });
    assert.deepEqual([stale.status, stale.json.success, stale.json.error], [200, false, 'Invalid or expired lease']);
    assert.deepEqual(await stateOf(s.queryId, s.partitionId), []);
    assert.equal(await queueCount(sink), 0);
    assert.equal((await s.m.cursor(s.partitionId, GROUP))!.committed, 0);

    // After expiry, an ack without a leaseId is accepted (no live lease).
    const skip = await attempt({ transactionId: s.messages[0]!.transactionId });
    assert.equal(skip.json.success, true, skip.text);
    assert.deepEqual(skip.json.ack_result, { success: true, count: 1, lease_released: false, dlq: false });
  });

  test('pure failures: unknown state-op type or ack status, missing ack.transactionId, unknown query, failing sink item; nothing applied', async () => {
    const s = await shard(1);
    const base = { query_id: s.queryId, partition_id: s.partitionId, consumer_group: GROUP };
    const ack = { transactionId: s.messages[0]!.transactionId, leaseId: s.leaseId };
    const good = [{ type: 'upsert', key: 'k', value: 1 }];
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ state_ops: [...good, { type: 'merge', key: 'x' }], ack }, 'Unknown state_op type: merge'],
      [{ state_ops: [...good, { key: 'x' }], ack }, 'Unknown state_op type: null'],
      [{ state_ops: good, ack: { ...ack, status: 'retry' } }, 'Unknown ack.status: retry'],
      [{ state_ops: good, ack: { leaseId: s.leaseId } }, 'ack.transactionId is required'],
      [{ state_ops: good, ack, query_id: randomUUID() }, 'Query not found'],
      [{ state_ops: good, ack, push_items: [{ queue: 'ok-sink', payload: 1 }, { queue: '', payload: 2 }] }, 'Invalid queue name'],
      [{ state_ops: good, ack, push_items: [{ queue: 'ok-sink', payload: 1, traceId: 'nope' }] }, 'Invalid traceId: must be a UUID'],
    ];
    for (const [extra, error] of cases) {
      const res = await post('/streams/v1/cycle', { ...base, ...extra });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.success, false);
      assert.equal(res.json.error, error, JSON.stringify(extra));
      assert.deepEqual([res.json.state_ops_applied, res.json.push_results, res.json.ack_result], [0, [], null]);
    }
    assert.deepEqual(await stateOf(s.queryId, s.partitionId), []);
    assert.equal(await queueCount('ok-sink'), 0);
    assert.equal((await s.m.cursor(s.partitionId, GROUP))!.committed, 0);

    // A sink queue at maxSize refuses the item: the cycle fails whole.
    const capped = uniqueQueue('streams-capped');
    await s.m.configure(capped, { maxSize: 1 });
    await setup.api.push([{ queue: capped, payload: {} }]);
    const full = await post('/streams/v1/cycle', { ...base, state_ops: good, ack, push_items: [{ queue: capped, payload: {} }] });
    assert.equal(full.json.error, `Queue '${capped}' would exceed max capacity`);
    assert.deepEqual(await stateOf(s.queryId, s.partitionId), []);

    const ok = await post('/streams/v1/cycle', { ...base, state_ops: good, ack });
    assert.equal(ok.json.success, true);
  });

  test('flush cycles (ack null) apply state ops and pushes without touching the cursor; upserts need an existing partition', async () => {
    const s = await shard(1);
    const sink = uniqueQueue('streams-sink');
    const flush = await post('/streams/v1/cycle', {
      query_id: s.queryId, partition_id: s.partitionId, consumer_group: GROUP,
      state_ops: [{ type: 'upsert', key: 'w', value: { acc: 1 } }, { type: 'delete', key: 'w' }], push_items: [{ queue: sink, payload: { flushed: 1 } }], ack: null,
    });
    assert.equal(flush.json.success, true, flush.text);
    assert.deepEqual([flush.json.state_ops_applied, flush.json.ack_result], [2, null]);
    assert.deepEqual(await stateOf(s.queryId, s.partitionId), []);
    assert.equal(await queueCount(sink), 1);
    const cursor = await s.m.cursor(s.partitionId, GROUP);
    assert.deepEqual([cursor!.committed, cursor!.live], [0, true]);

    const ghost = randomUUID();
    const orphan = await post('/streams/v1/cycle', { query_id: s.queryId, partition_id: ghost, state_ops: [{ type: 'upsert', key: 'k' }] });
    assert.deepEqual([orphan.json.success, orphan.json.error, orphan.json.queueName], [false, 'Partition not found', null]);
    const deletes = await post('/streams/v1/cycle', { query_id: s.queryId, partition_id: ghost, state_ops: [{ type: 'delete', key: 'k' }] });
    assert.equal(deletes.json.success, true);
  });

  test('malformed input is a 400 and applies nothing; limits on keys and values', async () => {
    const s = await shard(1);
    const base = { query_id: s.queryId, partition_id: s.partitionId, consumer_group: GROUP };
    const ack = { transactionId: s.messages[0]!.transactionId, leaseId: s.leaseId };
    const ok = [{ type: 'upsert', key: 'k', value: 1 }];
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ query_id: undefined }, 'query_id is required'],
      [{ query_id: 12 }, 'query_id is required'],
      [{ query_id: 'not-a-uuid' }, 'query_id must be a UUID'],
      [{ partition_id: undefined }, 'partition_id is required'],
      [{ partition_id: 'x' }, 'partition_id must be a UUID'],
      [{ consumer_group: 5 }, 'consumer_group must be a string'],
      [{ state_ops: {} }, 'state_ops must be an array'],
      [{ state_ops: [...ok, 'upsert'] }, 'Each state_op must be an object'],
      [{ state_ops: [...ok, { type: 'upsert', key: 1 }] }, 'state_op key must be a string'],
      [{ state_ops: [...ok, { type: 'upsert', key: 'k'.repeat(1025) }] }, 'state_op key too long (max 1024 bytes)'],
      [{ state_ops: [...ok, { type: 'upsert', key: 'é'.repeat(513) }] }, 'state_op key too long (max 1024 bytes)'],
      [{ state_ops: [...ok, { type: 'upsert', key: 'k\u0000' }] }, 'Invalid key'],
      [{ state_ops: [...ok, { type: 'upsert', key: 'big', value: { s: 'x'.repeat(1_048_576) } }] }, 'state_op value too large (max 1048576 bytes)'],
      [{ state_ops: [...ok, { type: 'upsert', key: 'nul', value: { s: 'a\u0000b' } }] }, 'Invalid s'],
      [{ state_ops: [...ok, { type: 'upsert', key: 'lone', value: ['\ud800'] }] }, 'Invalid value'],
      [{ push_items: {} }, 'push_items must be an array'],
      [{ push_items: [{ queue: 1 }] }, 'Queue must be a string'],
      [{ push_items: [{ queue: 'q', partition: 2 }] }, 'Partition must be a string'],
      [{ ack: 'yes' }, 'ack must be an object'],
      [{ ack: { ...ack, leaseId: 3 } }, 'ack.leaseId must be a string'],
      [{ ack: { ...ack, count: '3' } }, 'ack.count must be a number'],
      [{ ack: { ...ack, error: {} } }, 'ack.error must be a string'],
      [{ release_lease: 'false' }, 'release_lease must be a boolean'],
    ];
    for (const [extra, error] of cases) {
      const res = await post('/streams/v1/cycle', { ...base, state_ops: ok, ack, ...extra });
      assert.equal(res.status, 400, `${JSON.stringify(extra).slice(0, 80)}: ${res.text.slice(0, 200)}`);
      assert.deepEqual(res.json, { error });
    }
    assert.deepEqual(await stateOf(s.queryId, s.partitionId), []);
    assert.equal((await s.m.cursor(s.partitionId, GROUP))!.committed, 0);
    // Just under the value limit is accepted.
    const big = { s: 'x'.repeat(1_048_576 - 8) };
    const res = await post('/streams/v1/cycle', { ...base, state_ops: [{ type: 'upsert', key: 'big', value: big }], ack });
    assert.equal(res.json.success, true, res.text.slice(0, 200));
  });

  test('failed and dlq acks follow docs/api.md 6.3 inside a cycle', async () => {
    const s = await shard(2);
    const res = await post('/streams/v1/cycle', {
      query_id: s.queryId, partition_id: s.partitionId, consumer_group: GROUP,
      ack: { transactionId: s.messages[0]!.transactionId, leaseId: s.leaseId, status: 'dlq', error: 'bad input' },
    });
    assert.deepEqual(res.json.ack_result, { success: true, count: 1, lease_released: true, dlq: true });
    const dlq = await s.m.deadLetters(s.partitionId);
    assert.deepEqual(dlq.map((d) => [d.consumer_group, d.transaction_id, d.error_message]), [[GROUP, s.messages[0]!.transactionId, 'bad input']]);
    assert.equal((await s.m.cursor(s.partitionId, GROUP))!.committed, 1);
  });
});

describe('POST /streams/v1/state/get', () => {
  test('rows ordered by key (byte order); keys, key_prefix (literal) and ripe_at_or_before filters, ANDed', async () => {
    const s = await shard(1);
    const sep = '\u001f';
    const ops = [
      { type: 'upsert', key: `tumb:1${sep}2026-01-01T00:00:01.000Z${sep}u`, value: { acc: 1, windowEnd: 2000 } },
      { type: 'upsert', key: `tumb:1${sep}2026-01-01T00:00:00.000Z${sep}u`, value: { acc: 2, windowEnd: 1000 } },
      { type: 'upsert', key: `tumb:1${sep}x`, value: { acc: 3, windowEnd: '500' } },
      { type: 'upsert', key: 'Zeta', value: { n: 1 } },
      { type: 'upsert', key: 'a_b', value: { n: 2 } },
      { type: 'upsert', key: 'axb', value: { n: 3 } },
      { type: 'upsert', key: '__wm__', value: { eventTimeMs: 5 } },
    ];
    const commit = await post('/streams/v1/cycle', { query_id: s.queryId, partition_id: s.partitionId, consumer_group: GROUP, state_ops: ops,
      ack: { transactionId: s.messages[0]!.transactionId, leaseId: s.leaseId } });
    assert.equal(commit.json.success, true, commit.text);
    const get = (extra: Record<string, unknown>) => post('/streams/v1/state/get', { query_id: s.queryId, partition_id: s.partitionId, ...extra });

    const all = await get({ keys: [] });
    assert.equal(all.status, 200);
    assert.deepEqual(Object.keys(all.json), ['success', 'rows']);
    assert.deepEqual(all.json.rows.map((r: any) => r.key), ['Zeta', '__wm__', 'a_b', 'axb', `tumb:1${sep}2026-01-01T00:00:00.000Z${sep}u`, `tumb:1${sep}2026-01-01T00:00:01.000Z${sep}u`, `tumb:1${sep}x`]);
    for (const row of all.json.rows) {
      assert.deepEqual(Object.keys(row), ['key', 'value', 'updated_at']);
      assert.match(row.updated_at, MILLIS_Z);
    }
    assert.deepEqual((await get({ keys: ['axb', 'nope', 7] })).json.rows.map((r: any) => [r.key, r.value]), [['axb', { n: 3 }]]);
    assert.deepEqual((await get({ key_prefix: 'a_' })).json.rows.map((r: any) => r.key), ['a_b'], 'the prefix is literal');
    assert.deepEqual((await get({ key_prefix: `tumb:1${sep}`, ripe_at_or_before: 1500 })).json.rows.map((r: any) => r.value.acc), [2]);
    assert.deepEqual((await get({ key_prefix: `tumb:1${sep}`, ripe_at_or_before: 2000 })).json.rows.map((r: any) => r.value.acc), [2, 1]);
    assert.deepEqual((await get({ key_prefix: `tumb:1${sep}`, ripe_at_or_before: 'soon' })).json.rows.length, 3, 'not a number: ignored');
    assert.deepEqual((await get({ keys: ['axb'], key_prefix: 'Z' })).json.rows, []);
  });

  test('unknown or malformed ids read no rows; missing ids and unstorable text are 400s', async () => {
    for (const body of [{ query_id: randomUUID(), partition_id: randomUUID() }, { query_id: 'nope', partition_id: 'x' }, { query_id: randomUUID(), partition_id: randomUUID(), keys: [1, 2] }]) {
      const res = await post('/streams/v1/state/get', body);
      assert.deepEqual([res.status, res.json], [200, { success: true, rows: [] }]);
    }
    assert.deepEqual((await post('/streams/v1/state/get', { partition_id: randomUUID() })).json, { error: 'query_id is required' });
    assert.deepEqual((await post('/streams/v1/state/get', { query_id: randomUUID() })).json, { error: 'partition_id is required' });
    const unstorable = await post('/streams/v1/state/get', { query_id: randomUUID(), partition_id: randomUUID(), key_prefix: '\u0000' });
    assert.deepEqual([unstorable.status, unstorable.json], [400, { error: 'Invalid key_prefix' }]);
  });
});

describe('clean-up', () => {
  test('deleting a query drops its state; deleting a queue drops the state of its partitions, for every query', async () => {
    const s = await shard(1);
    const other = await register({ name: `q-${randomUUID()}`, source_queue: s.queue });
    const commit = await post('/streams/v1/cycle', { query_id: s.queryId, partition_id: s.partitionId, consumer_group: GROUP,
      state_ops: [{ type: 'upsert', key: 'k', value: 1 }], ack: { transactionId: s.messages[0]!.transactionId, leaseId: s.leaseId } });
    assert.equal(commit.json.success, true);
    await setup.db.query(`INSERT INTO queen_streams.state (query_id, partition_id, key, value) VALUES ($1, $2, 'k', '1')`, [other.json.query_id, s.partitionId]);
    const kept = randomUUID();
    await setup.db.query(`INSERT INTO queen_streams.state (query_id, partition_id, key, value) VALUES ($1, $2, 'k', '1')`, [other.json.query_id, kept]);

    const deleted = await setup.api.del(`/api/v1/resources/queues/${s.queue}`);
    assert.equal(deleted.status, 200, deleted.text);
    const left = await setup.db.query<{ partition_id: string }>('SELECT partition_id FROM queen_streams.state WHERE query_id = ANY ($1::uuid[])', [[s.queryId, other.json.query_id]]);
    assert.deepEqual(left.rows.map((r) => r.partition_id), [kept], 'only the state of the deleted queue\'s partitions went');

    await setup.db.query('DELETE FROM queen_streams.queries WHERE id = $1', [other.json.query_id]);
    assert.equal((await setup.db.query('SELECT 1 FROM queen_streams.state WHERE query_id = $1', [other.json.query_id])).rowCount, 0);
  });
});
