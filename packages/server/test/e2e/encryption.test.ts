/**
 * Encryption at rest (docs/api.md 2.2, 4.2, 7.4-7.6, 9.6, 10): a queue configured with encryptionEnabled on a broker
 * holding QUEEN_ENCRYPTION_KEY stores its payloads sealed (plain push, transactions, several items and
 * partitions, requeue), never in plaintext; pop, message detail, the DLQ listing and traces by name give the
 * original payloads back; every message keeps its own flag, so switching encryption off leaves old messages
 * readable; a stale view of the queue options is caught by the database guard and corrected.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import pg from 'pg';
import { uniqueQueue, useBroker } from '../support/harness.js';
import { messaging } from '../support/messaging.js';

const KEY = randomBytes(32).toString('hex');
const SEALED = /^enc:v1:[A-Za-z0-9+/]+=*$/;
/** A string that appears in every test payload: it must never be found in the stored rows. */
const MARK = 'Zebra-Quartz-7731';

let fx: ReturnType<typeof messaging>;
const setup = useBroker({ QUEEN_ENCRYPTION_KEY: KEY }, ({ api, db }) => {
  fx = messaging(api, db);
});

/** Every kind of JSON payload, each carrying MARK somewhere (or being it). */
const PAYLOADS: unknown[] = [
  { order: 7, customer: `${MARK}-alice`, lines: [{ sku: 'A-1', qty: 2 }] },
  `${MARK} plain string`,
  { number: 1250.75, negative: -3, big: 9007199254740991, tag: MARK },
  { unicode: `héllo ✓ 日本語 🎉 ${MARK}`, escapes: 'line\nbreak\t"q"\\' },
  { nested: { deeper: { deepest: [1, [2, [3, { four: MARK }]]] } }, empty: {}, list: [] },
  [MARK, null, true, false, 0],
  { nothing: null, mark: MARK },
];

async function configure(queue: string, encryptionEnabled: boolean): Promise<any> {
  const res = await setup.api.post('/api/v1/configure', { queue, options: { encryptionEnabled } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.options.encryptionEnabled, encryptionEnabled);
  return res.json;
}

/** The stored payload texts of a partition, in offset order. */
async function stored(partitionId: string): Promise<string[]> {
  const res = await setup.db.query<{ payload: string }>(
    `SELECT p.payload FROM queen.segments s CROSS JOIN LATERAL unnest(s.payloads) WITH ORDINALITY AS p (payload, n)
      WHERE s.partition_id = $1 ORDER BY s.first_offset, p.n`, [partitionId]);
  return res.rows.map((row) => row.payload);
}

/** Asserts that no stored row of the partitions contains the marker or any plaintext payload. */
async function assertNoPlaintext(partitionIds: string[], payloads: unknown[]): Promise<void> {
  const rows = await setup.db.query<{ row: string }>('SELECT s::text AS row FROM queen.segments s WHERE s.partition_id = ANY ($1::uuid[])', [partitionIds]);
  assert.ok(rows.rows.length > 0);
  for (const { row } of rows.rows) {
    assert.ok(!row.includes(MARK) && !row.includes('Zebra') && !row.includes('Quartz'), `plaintext found in ${row.slice(0, 200)}`);
    for (const payload of payloads) assert.ok(!row.includes(JSON.stringify(payload)));
    assert.ok(!row.includes('日本語') && !row.includes('alice') && !row.includes('sku'));
  }
}

async function pushOk(items: unknown[]): Promise<any[]> {
  const res = await setup.api.push(items);
  assert.equal(res.status, 201, res.text);
  for (const r of res.json) assert.equal(r.status, 'queued', JSON.stringify(r));
  return res.json;
}

async function popAll(queue: string, partition: string, params = 'batch=100'): Promise<any> {
  return fx.popOk(queue, partition, params);
}

describe('a queue with encryptionEnabled', () => {
  const queue = uniqueQueue('enc');
  const partitionIds: Record<string, string> = {};

  before(async () => {
    const configured = await configure(queue, true);
    assert.equal(configured.warning, undefined, 'a broker with a key does not warn');
    // Plain push: several items over two partitions in one request.
    const items = ['p1', 'p2'].flatMap((partition) =>
      PAYLOADS.map((payload, i) => ({ queue, partition, transactionId: `${partition}-${i}`, payload })));
    const results = await pushOk(items);
    partitionIds.p1 = results[0].partition_id;
    partitionIds.p2 = results[PAYLOADS.length].partition_id;
    // A transaction pushing to a third partition (and to p1).
    const tx = await setup.api.post('/api/v1/transaction', {
      operations: [{ type: 'push', items: [
        { queue, partition: 'p3', transactionId: 'tx-0', payload: PAYLOADS[0] },
        { queue, partition: 'p3', transactionId: 'tx-1', payload: PAYLOADS[3] },
        { queue, partition: 'p1', transactionId: 'tx-2', payload: PAYLOADS[4] },
      ] }],
    });
    assert.equal(tx.status, 200, tx.text);
    assert.equal(tx.json.success, true, tx.text);
    partitionIds.p3 = tx.json.results[0].partitionId;
  });

  test('the stored payloads are sealed: AES-GCM text, no trace of the plaintext', async () => {
    for (const pid of Object.values(partitionIds)) {
      const payloads = await stored(pid);
      assert.ok(payloads.length >= 2);
      for (const payload of payloads) assert.match(payload, SEALED);
    }
    assert.equal((await stored(partitionIds.p1!)).length, PAYLOADS.length + 1);
    await assertNoPlaintext(Object.values(partitionIds), PAYLOADS);
  });

  test('pop gives back the identical payloads, in order (plain push and transaction)', async () => {
    const p1 = await popAll(queue, 'p1');
    assert.deepEqual(p1.messages.map((m: any) => m.data), [...PAYLOADS, PAYLOADS[4]]);
    assert.deepEqual(p1.messages.map((m: any) => m.transactionId), [...PAYLOADS.map((_, i) => `p1-${i}`), 'tx-2']);
    const p3 = await popAll(queue, 'p3');
    assert.deepEqual(p3.messages.map((m: any) => m.data), [PAYLOADS[0], PAYLOADS[3]]);
    // The raw response carries the original JSON texts verbatim.
    const raw = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/p2?batch=100&autoAck=true`);
    assert.equal(raw.status, 200);
    for (const payload of PAYLOADS) assert.ok(raw.text.includes(`"data":${JSON.stringify(payload)}`), JSON.stringify(payload));
  });

  test('message detail decrypts and says isEncrypted; the listing shows the messages', async () => {
    const res = await setup.api.get(`/api/v1/messages/${partitionIds.p1}/p1-3`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.isEncrypted, true);
    assert.deepEqual(res.json.payload, PAYLOADS[3]);
    const list = await setup.api.get(`/api/v1/messages?queue=${queue}&partition=p3`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.json.messages.map((m: any) => m.transactionId).sort(), ['tx-0', 'tx-1']);
    // The payload preview is of the plaintext, never of the ciphertext.
    const previewed = await setup.api.get(`/api/v1/messages?queue=${queue}&partition=p1&preview=1000`);
    const row = previewed.json.messages.find((m: any) => m.transactionId === 'p1-3');
    assert.deepEqual([row.payloadPreview, row.payloadTruncated], [JSON.stringify(PAYLOADS[3]), false]);
  });

  test('DLQ listing, traces by name and requeue use the plaintext', async () => {
    const q = uniqueQueue('enc-dlq');
    await configure(q, true);
    const [pushed] = await pushOk([{ queue: q, transactionId: 'd-1', payload: PAYLOADS[0] }]);
    const pid = pushed.partition_id;
    const held = await fx.popOk(q);
    assert.deepEqual(held.messages[0].data, PAYLOADS[0]);
    const ack = await fx.ack({ transactionId: 'd-1', partitionId: pid, leaseId: held.leaseId, status: 'dlq', error: 'bad' });
    assert.equal(ack.dlq, true);
    const dlq = await setup.api.get(`/api/v1/dlq?queue=${q}`);
    assert.equal(dlq.status, 200);
    assert.equal(dlq.json.total, 1);
    assert.deepEqual(dlq.json.messages[0].data, PAYLOADS[0]);

    const traceName = `enc-trace-${randomUUID().slice(0, 8)}`;
    const recorded = await setup.api.post('/api/v1/traces', { transactionId: 'd-1', partitionId: pid, data: { step: 1 }, traceNames: [traceName] });
    assert.equal(recorded.status, 201, recorded.text);
    const traces = await setup.api.get(`/api/v1/traces/by-name/${traceName}`);
    assert.equal(traces.status, 200);
    assert.equal(traces.json.total, 1);
    assert.deepEqual(traces.json.traces[0].message_payload, PAYLOADS[0]);
    assert.deepEqual(traces.json.traces[0].data, { step: 1 });

    const retry = await setup.api.post(`/api/v1/messages/${pid}/d-1/retry`);
    assert.equal(retry.json.success, true, retry.text);
    const payloads = await stored(pid);
    assert.equal(payloads.length, 2);
    for (const payload of payloads) assert.match(payload, SEALED);
    await assertNoPlaintext([pid], PAYLOADS);
    const again = await fx.popOk(q);
    assert.equal(again.messages[0].transactionId, retry.json.newTransactionId);
    assert.deepEqual(again.messages[0].data, PAYLOADS[0]);
  });

  test('switching encryption off: old messages stay readable, new ones are stored in plaintext', async () => {
    const q = uniqueQueue('enc-switch');
    await configure(q, true);
    const [first] = await pushOk([{ queue: q, transactionId: 'old', payload: PAYLOADS[1] }]);
    await configure(q, false);
    await pushOk([{ queue: q, transactionId: 'new', payload: { fresh: 'plain text now' } }]);
    const payloads = await stored(first.partition_id);
    assert.match(payloads[0]!, SEALED);
    assert.equal(payloads[1], JSON.stringify({ fresh: 'plain text now' }));
    const popped = await fx.popOk(q, undefined, 'batch=10');
    assert.deepEqual(popped.messages.map((m: any) => m.data), [PAYLOADS[1], { fresh: 'plain text now' }]);
    const oldDetail = await setup.api.get(`/api/v1/messages/${first.partition_id}/old`);
    assert.equal(oldDetail.json.isEncrypted, true);
    assert.deepEqual(oldDetail.json.payload, PAYLOADS[1]);
    const newDetail = await setup.api.get(`/api/v1/messages/${first.partition_id}/new`);
    assert.equal(newDetail.json.isEncrypted, false);
    assert.deepEqual(newDetail.json.payload, { fresh: 'plain text now' });
    // And on again: the next message is sealed.
    await configure(q, true);
    await pushOk([{ queue: q, transactionId: 'again', payload: { mark: MARK } }]);
    assert.match((await stored(first.partition_id))[2]!, SEALED);
  });

  test('a queue created by its first push is not encrypted', async () => {
    const q = uniqueQueue('enc-implicit');
    const [pushed] = await pushOk([{ queue: q, payload: { visible: true } }]);
    assert.deepEqual(await stored(pushed.partition_id), ['{"visible":true}']);
  });

  test('pushes buffered during push maintenance are sealed when they are replayed', async () => {
    const q = uniqueQueue('enc-buffered');
    await configure(q, true);
    const maintenance = async (enabled: boolean): Promise<void> => {
      const res = await setup.api.post('/api/v1/system/maintenance', { enabled });
      assert.equal(res.status, 200, res.text);
    };
    await maintenance(true);
    try {
      const res = await setup.api.push(PAYLOADS.map((payload) => ({ queue: q, payload })));
      assert.equal(res.status, 201, res.text);
      for (const r of res.json) assert.equal(r.status, 'buffered', JSON.stringify(r));
    } finally {
      await maintenance(false);
    }
    const popped = await fx.popOk(q, 'Default', `batch=${PAYLOADS.length}&wait=true&timeout=15000`);
    assert.deepEqual(popped.messages.map((m: { data: unknown }) => m.data), PAYLOADS);
    const partitionId: string = popped.messages[0].partitionId;
    for (const payload of await stored(partitionId)) assert.match(payload, SEALED);
    await assertNoPlaintext([partitionId], PAYLOADS);
  });

  test('a stale view of the options is caught by the database and the items are sealed after all', async () => {
    const q = uniqueQueue('enc-stale');
    const [first] = await pushOk([{ queue: q, transactionId: 'before', payload: { n: 0 } }]); // cached: not encrypted
    // Turn encryption on behind the broker's back: no configure call, no notification.
    await setup.db.query('UPDATE queen.queues SET encryption_enabled = true WHERE name = $1', [q]);
    const res = await setup.api.push([
      { queue: q, transactionId: 'a', payload: { mark: MARK, n: 1 } },
      { queue: q, transactionId: 'b', payload: { mark: MARK, n: 2 } },
      { queue: q, transactionId: 'a', payload: { mark: MARK, n: 9 } }, // a repeat of 'a' in the same request
    ]);
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.map((r: any) => r.status), ['queued', 'queued', 'duplicate']);
    assert.equal(res.json[2].message_id, res.json[0].message_id);
    // The same behind-the-back switch for a transaction's push.
    const q2 = uniqueQueue('enc-stale-tx');
    const [other] = await pushOk([{ queue: q2, transactionId: 'before', payload: { n: 0 } }]);
    await setup.db.query('UPDATE queen.queues SET encryption_enabled = true WHERE name = $1', [q2]);
    const tx = await setup.api.post('/api/v1/transaction', { operations: [{ type: 'push', items: [
      { queue: q2, transactionId: 'c', payload: { mark: MARK, n: 3 } },
      { queue: q, transactionId: 'd', payload: { mark: MARK, n: 4 } },
    ] }] });
    assert.equal(tx.json.success, true, tx.text);

    const payloads = await stored(first.partition_id);
    assert.equal(payloads[0], '{"n":0}', JSON.stringify(payloads));
    assert.equal(payloads.length, 4);
    for (const payload of payloads.slice(1)) assert.match(payload, SEALED);
    const others = await stored(other.partition_id);
    assert.equal(others[0], '{"n":0}');
    assert.match(others[1]!, SEALED);
    await assertNoPlaintext([first.partition_id, other.partition_id], []);
    const popped = await fx.popOk(q, undefined, 'batch=10');
    assert.deepEqual(popped.messages.map((m: any) => m.data), [{ n: 0 }, { mark: MARK, n: 1 }, { mark: MARK, n: 2 }, { mark: MARK, n: 4 }]);
  });

  test('the guard itself: a session holding the key cannot store plaintext in an encrypted queue', async () => {
    const q = uniqueQueue('enc-guard');
    await configure(q, true);
    const call = `SELECT item, status, message_id, error FROM queen.push_messages(ARRAY[$1, $1, $1]::text[], ARRAY['Default', 'Default', 'Default']::text[],
        ARRAY[$2, $3, $4]::uuid[], $6::text[], ARRAY[NULL, NULL, NULL]::uuid[], $5::text[], ARRAY[NULL, NULL, NULL]::text[]) ORDER BY item`;
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    // One connection for the SET and the calls.
    const client = new pg.Client(connectionOf(setup.db.env));
    await client.connect();
    try {
      await client.query('SET queen.sealing = on');
      const refused = await client.query(call, [q, ...ids, ['{"a":1}', 'enc:v1:AAAA', '{"a":1}'], ['g-1', 'g-2', 'g-1']]);
      assert.deepEqual(refused.rows.map((r) => r.status), ['unsealed', 'queued', 'unsealed']);
      assert.equal(refused.rows[0].message_id, null);
      assert.equal(refused.rows[0].error, 'Payload must be encrypted for this queue');
      const count = await client.query(`SELECT count(*)::int AS n FROM queen.message_keys k JOIN queen.partitions p ON p.id = k.partition_id
        JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1`, [q]);
      assert.equal(count.rows[0].n, 1, 'only the sealed item was written');
      // Without the setting (a broker without a key) plaintext is stored, as configure warned.
      await client.query('RESET queen.sealing');
      const plain = await client.query(call, [q, randomUUID(), randomUUID(), randomUUID(), ['{"a":1}', '{"b":2}', '{"a":1}'], ['h-1', 'h-2', 'h-1']]);
      assert.deepEqual(plain.rows.map((r) => r.status), ['queued', 'queued', 'duplicate']);
    } finally {
      await client.end();
    }
  });
});

/** pg connection settings from a test database's broker environment. */
function connectionOf(env: Record<string, string>): pg.ClientConfig {
  if (env.DATABASE_URL !== undefined) return { connectionString: env.DATABASE_URL };
  return { host: env.PG_HOST, port: Number(env.PG_PORT), user: env.PG_USER, password: env.PG_PASSWORD, database: env.PG_DB };
}
