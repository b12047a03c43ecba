/**
 * Encryption keys (docs/api.md 4.2 rule 4, 9.6, 10): a broker with another key, or with none, cannot read sealed
 * payloads: its pops answer 204 `error` and give back what they took (the lease is released, an autoAck
 * cursor does not move), so a broker holding the right key delivers the message at once; its admin reads
 * show `payload: null`. A malformed QUEEN_ENCRYPTION_KEY stops the start-up. Configure without a key warns
 * and the payloads are stored in plaintext.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type Client, type TestDatabase } from '../support/harness.js';
import { QUEUE_MODE } from '../support/messaging.js';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');
const KEY = randomBytes(32).toString('hex');
const OTHER_KEY = randomBytes(32).toString('hex');
const WARNING = 'QUEEN_ENCRYPTION_KEY is not set; payloads are stored unencrypted';
const SEALED = /^enc:v1:/;

let db: TestDatabase;
const brokers: BrokerProcess[] = [];
let right: Client;
let wrong: Client;
let none: Client;

before(async () => {
  db = await createDatabase();
  // Started one after the other: the first one migrates the database.
  for (const key of [KEY, OTHER_KEY, null]) brokers.push(await startBroker(db, key === null ? {} : { QUEEN_ENCRYPTION_KEY: key }));
  [right, wrong, none] = brokers.map((b) => client(b.url)) as [Client, Client, Client];
});

after(async () => {
  for (const broker of brokers) await broker.stop();
  await db.close();
});

async function cursor(partitionId: string): Promise<{ committed: number; live: boolean } | undefined> {
  const res = await db.query<{ committed: number; live: boolean }>(
    `SELECT committed::int AS committed, coalesce(lease_expires_at > now(), false) AS live
       FROM queen.cursors WHERE partition_id = $1 AND consumer_group = $2`, [partitionId, QUEUE_MODE]);
  return res.rows[0];
}

/** An encrypted queue holding one sealed message (pushed through the broker with the right key). */
async function sealedMessage(payload: unknown): Promise<{ queue: string; partitionId: string }> {
  const queue = uniqueQueue('keys');
  const configured = await right.post('/api/v1/configure', { queue, options: { encryptionEnabled: true, leaseTime: 600 } });
  assert.equal(configured.status, 200, configured.text);
  const pushed = await right.push([{ queue, transactionId: 'secret-1', payload }]);
  assert.equal(pushed.json[0].status, 'queued', pushed.text);
  const partitionId = pushed.json[0].partition_id as string;
  const stored = await db.query<{ payload: string }>('SELECT payloads[1] AS payload FROM queen.segments WHERE partition_id = $1', [partitionId]);
  assert.match(stored.rows[0]!.payload, SEALED);
  return { queue, partitionId };
}

describe('a broker that cannot decrypt', () => {
  for (const [name, api] of [['another key', () => wrong], ['no key', () => none]] as const) {
    test(`${name}: pop answers 204 error and releases the lease; the right key then pops at once`, async () => {
      const { queue, partitionId } = await sealedMessage({ card: '4111-1111' });
      const failed = await api().get(`/api/v1/pop/queue/${queue}?batch=10`);
      assert.equal(failed.status, 204);
      assert.equal(failed.headers.get('x-queen-empty-reason'), 'error');
      assert.equal(failed.text, '');
      const state = await cursor(partitionId);
      assert.equal(state?.live, false, 'the lease taken by the failed pop was released');
      assert.equal(state?.committed, 0);
      const ok = await right.get(`/api/v1/pop/queue/${queue}?batch=10`);
      assert.equal(ok.status, 200, `the right key pops at once (got ${ok.status} ${ok.headers.get('x-queen-empty-reason')})`);
      assert.deepEqual(ok.json.messages.map((m: any) => m.data), [{ card: '4111-1111' }]);
    });

    test(`${name}: an autoAck pop moves no cursor, even after encryption was switched off`, async () => {
      const { queue, partitionId } = await sealedMessage(['a', 1]);
      // Off again: the sealed message stays sealed, and the queue is remembered as one that may hold some.
      const off = await right.post('/api/v1/configure', { queue, options: { encryptionEnabled: false } });
      assert.equal(off.json.options.encryptionEnabled, false);
      const flags = await db.query('SELECT encryption_enabled, encryption_used FROM queen.queues WHERE name = $1', [queue]);
      assert.deepEqual(flags.rows[0], { encryption_enabled: false, encryption_used: true });
      const failed = await api().get(`/api/v1/pop/queue/${queue}/partition/Default?autoAck=true`);
      assert.equal(failed.status, 204);
      assert.equal(failed.headers.get('x-queen-empty-reason'), 'error');
      assert.equal((await cursor(partitionId))?.committed ?? 0, 0, 'nothing consumed');
      const ok = await right.get(`/api/v1/pop/queue/${queue}/partition/Default?autoAck=true`);
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.json.messages[0].data, ['a', 1]);
      assert.equal((await cursor(partitionId))?.committed, 1);
    });

    test(`${name}: a long poll woken by a sealed message ends with 204 error`, async () => {
      const queue = uniqueQueue('keys-wait');
      await right.post('/api/v1/configure', { queue, options: { encryptionEnabled: true } });
      const parked = api().get(`/api/v1/pop/queue/${queue}?wait=true&timeout=10000`);
      await new Promise((r) => setTimeout(r, 300));
      await right.push([{ queue, payload: { late: true } }]);
      const res = await parked;
      assert.equal(res.status, 204);
      assert.equal(res.headers.get('x-queen-empty-reason'), 'error');
    });

    test(`${name}: admin reads give payload null (detail, DLQ listing, traces by name)`, async () => {
      const { queue, partitionId } = await sealedMessage({ ssn: '078-05-1120' });
      const held = await right.get(`/api/v1/pop/queue/${queue}`);
      const ack = await right.post('/api/v1/ack', { transactionId: 'secret-1', partitionId, leaseId: held.json.leaseId, status: 'dlq', error: 'x' });
      assert.equal(ack.json[0].dlq, true, ack.text);
      const traceName = `${queue}-trace`;
      await right.post('/api/v1/traces', { transactionId: 'secret-1', partitionId, data: { seen: true }, traceNames: [traceName] });

      const detail = await api().get(`/api/v1/messages/${partitionId}/secret-1`);
      assert.equal(detail.status, 200);
      assert.equal(detail.json.payload, null);
      assert.equal(detail.json.isEncrypted, true);
      const dlq = await api().get(`/api/v1/dlq?queue=${queue}`);
      assert.equal(dlq.json.messages.length, 1);
      assert.equal(dlq.json.messages[0].data, null);
      const traces = await api().get(`/api/v1/traces/by-name/${traceName}`);
      assert.equal(traces.json.traces.length, 1);
      assert.equal(traces.json.traces[0].message_payload, null);
      assert.deepEqual(traces.json.traces[0].data, { seen: true });
      // The right key reads all three.
      assert.deepEqual((await right.get(`/api/v1/messages/${partitionId}/secret-1`)).json.payload, { ssn: '078-05-1120' });
      assert.deepEqual((await right.get(`/api/v1/dlq?queue=${queue}`)).json.messages[0].data, { ssn: '078-05-1120' });
      assert.deepEqual((await right.get(`/api/v1/traces/by-name/${traceName}`)).json.traces[0].message_payload, { ssn: '078-05-1120' });
    });
  }

  test('plaintext messages of an encrypted queue stay readable for every broker', async () => {
    const queue = uniqueQueue('keys-mixed');
    await none.push([{ queue, transactionId: 'plain', payload: { open: 1 } }]);
    await none.post('/api/v1/configure', { queue, options: { encryptionEnabled: true } });
    const res = await wrong.get(`/api/v1/pop/queue/${queue}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.messages[0].data, { open: 1 });
  });
});

describe('a broker without a key', () => {
  test('configure with encryptionEnabled warns, and the payloads are stored in plaintext', async () => {
    const queue = uniqueQueue('keys-nokey');
    const res = await none.post('/api/v1/configure', { queue, options: { encryptionEnabled: true } });
    assert.equal(res.status, 200);
    assert.equal(res.json.warning, WARNING);
    assert.equal(res.json.options.encryptionEnabled, true);
    const pushed = await none.push([{ queue, payload: { open: 'text' } }]);
    assert.equal(pushed.json[0].status, 'queued');
    const tx = await none.post('/api/v1/transaction', { operations: [{ type: 'push', items: [{ queue, payload: { via: 'tx' } }] }] });
    assert.equal(tx.json.success, true, tx.text);
    const stored = await db.query<{ payloads: string[] }>('SELECT payloads FROM queen.segments WHERE partition_id = $1 ORDER BY first_offset', [pushed.json[0].partition_id]);
    assert.deepEqual(stored.rows.flatMap((r) => r.payloads), ['{"open":"text"}', '{"via":"tx"}']);
    const configuredWithKey = await right.post('/api/v1/configure', { queue, options: { encryptionEnabled: true } });
    assert.equal(configuredWithKey.json.warning, undefined);
  });
});

describe('QUEEN_ENCRYPTION_KEY malformed', () => {
  for (const bad of ['abc', 'zz'.repeat(32), KEY.slice(0, 63), `${KEY}0`]) {
    test(`the broker refuses to start (${bad.length} characters)`, async () => {
      const child = spawn(process.execPath, [MAIN], {
        env: { PATH: process.env.PATH ?? '', QUEEN_WORKERS: '1', ...db.env, PORT: '0', HOST: '127.0.0.1', QUEEN_ENCRYPTION_KEY: bad },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      clearTimeout(timer);
      assert.notEqual(code, 0, output);
      assert.notEqual(code, null, 'it exits by itself');
      assert.match(output, /QUEEN_ENCRYPTION_KEY must be 64 hexadecimal characters/);
      assert.ok(!output.includes('listening'), output);
    });
  }
});
