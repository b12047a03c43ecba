/**
 * Client-side push buffering (docs/client.md): count and time triggers, maxSize back-pressure, retry of failed
 * flushes (250 ms doubling), explicit flushes, stats, and exactly-once delivery of everything on close. The
 * retry and back-pressure cases use a scripted server (a broker cannot be made to fail on demand).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { QueenError, type PushItem } from '../src/index.js';
import { queuedAnswer, recordingLogger, scriptedServer, testClient, until, type ScriptedServer } from './support.js';

const setup = useBroker();
const servers: ScriptedServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function stored(queue: string): Promise<Array<{ txn: string; payload: unknown; partition: string }>> {
  const res = await setup.db.query<{ txn: string; partition: string; payload: unknown }>(
    `SELECT m.txn, p.name AS partition, m.payload::jsonb AS payload
       FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id JOIN queen.segments s ON s.partition_id = p.id
       CROSS JOIN LATERAL unnest(s.transaction_ids, s.payloads) WITH ORDINALITY AS m (txn, payload, n)
      WHERE q.name = $1 ORDER BY p.name, s.first_offset + m.n`,
    [queue],
  );
  return res.rows;
}

async function count(queue: string): Promise<number> {
  return (await stored(queue)).length;
}

describe('triggers', () => {
  test('count trigger: nothing is sent before messageCount items, then one push', async () => {
    const name = uniqueQueue();
    const q = testClient(setup.broker.url);
    const b = () => q.queue<number>(name).buffer({ messageCount: 5, timeMillis: 60_000 });
    for (let i = 1; i <= 4; i++) assert.deepEqual(await b().push({ data: i }), { buffered: true, count: 1 });
    assert.equal(q.getBufferStats().totalBufferedMessages, 4);
    assert.equal(q.getBufferStats().activeBuffers, 1);
    assert.equal(await count(name), 0);
    await b().push([{ data: 5 }]);
    await until('the flush', async () => q.getBufferStats().flushesPerformed === 1);
    assert.deepEqual((await stored(name)).map((r) => r.payload), [1, 2, 3, 4, 5]);
    assert.equal(q.getBufferStats().flushesPerformed, 1);
    assert.equal(q.getBufferStats().totalBufferedMessages, 0);
    await q.close();
  });

  test('time trigger: a partial buffer is sent timeMillis after its first item', async () => {
    const name = uniqueQueue();
    const q = testClient(setup.broker.url);
    const started = Date.now();
    await q.queue(name).buffer({ messageCount: 100, timeMillis: 400 }).push([{ data: 'a' }, { data: 'b' }]);
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(await count(name), 0);
    assert.ok(q.getBufferStats().oldestBufferAge >= 100);
    await until('the timed flush', async () => (await count(name)) === 2);
    assert.ok(Date.now() - started >= 380);
    await q.close();
  });

  test('callbacks of a buffered push fire when the flush carrying its items completes', async () => {
    const name = uniqueQueue();
    const q = testClient(setup.broker.url);
    const got: PushItem[] = [];
    await q.queue(name).buffer({ messageCount: 2, timeMillis: 60_000 }).push([{ data: 1, transactionId: 'dup' }]).onSuccess((items) => void got.push(...items));
    const dups: PushItem[] = [];
    await q.queue(name).buffer({ messageCount: 2, timeMillis: 60_000 }).push([{ data: 2, transactionId: 'dup' }]).onDuplicate((items) => void dups.push(...items));
    await until('the callbacks', () => got.length === 1 && dups.length === 1);
    assert.equal(got[0]!.transactionId, 'dup');
    assert.equal(dups[0]!.payload, 2);
    await q.close();
  });
});

describe('explicit flushes and close', () => {
  test('flushBuffer() drains only its queue/partition; flushAllBuffers() the rest', async () => {
    const name = uniqueQueue();
    const q = testClient(setup.broker.url);
    const opts = { messageCount: 1000, timeMillis: 60_000 };
    await q.queue(name).partition('p1').buffer(opts).push([{ data: 1 }, { data: 2 }]);
    await q.queue(name).partition('p2').buffer(opts).push([{ data: 3 }]);
    assert.equal(q.getBufferStats().activeBuffers, 2);
    await q.queue(name).partition('p1').flushBuffer();
    assert.deepEqual((await stored(name)).map((r) => r.partition), ['p1', 'p1']);
    assert.equal(q.getBufferStats().totalBufferedMessages, 1);
    await q.flushAllBuffers();
    assert.equal(await count(name), 3);
    assert.deepEqual(q.getBufferStats().activeBuffers, 0);
    await q.close();
  });

  test('everything buffered arrives exactly once on close; pushes after close reject CLOSED', async () => {
    const name = uniqueQueue();
    const q = testClient(setup.broker.url);
    const sent: string[] = [];
    let n = 0;
    const pushes: Array<Promise<unknown>> = [];
    for (let i = 0; i < 60; i++) {
      const size = 1 + (i % 9);
      const items = Array.from({ length: size }, () => ({ data: n++ }));
      pushes.push(Promise.resolve(q.queue<number>(name).partition(`p${i % 3}`).buffer({ messageCount: 25, timeMillis: 50 }).push(items).onSuccess((its) => void sent.push(...its.map((x) => x.transactionId)))));
    }
    await Promise.all(pushes);
    await q.close();
    const rows = await stored(name);
    assert.equal(rows.length, n);
    assert.equal(new Set(rows.map((r) => r.txn)).size, n, 'no duplicates');
    assert.deepEqual(rows.map((r) => r.payload as number).sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i));
    for (const p of ['p0', 'p1', 'p2']) {
      const payloads = rows.filter((r) => r.partition === p).map((r) => r.payload as number);
      assert.deepEqual(payloads, [...payloads].sort((a, b) => a - b), `FIFO within ${p}`);
    }
    assert.equal(sent.length, n);
    await assert.rejects(Promise.resolve(q.queue(name).buffer().push([{ data: 'late' }])), (e: QueenError) => e.code === 'CLOSED');
  });
});

describe('buffer keys (scripted server)', () => {
  test('queue a/b + partition c and queue a + partition b/c are two buffers', async () => {
    const s = await scriptedServer((req) => queuedAnswer(req));
    servers.push(s);
    const q = testClient(s.url);
    const options = { messageCount: 100, timeMillis: 60_000 };
    await q.queue('a/b').partition('c').buffer(options).push({ data: 1 });
    await q.queue('a').partition('b/c').buffer(options).push({ data: 2 });
    await q.queue('a/b').partition('c').flushBuffer();
    assert.equal(s.seen.length, 1);
    const first = JSON.parse(s.seen[0]!.body).items as PushItem[];
    assert.deepEqual(first.map((i) => [i.queue, i.partition]), [['a/b', 'c']]);
    await q.queue('a').partition('b/c').flushBuffer();
    assert.equal(s.seen.length, 2);
    const second = JSON.parse(s.seen[1]!.body).items as PushItem[];
    assert.deepEqual(second.map((i) => [i.queue, i.partition]), [['a', 'b/c']]);
    await q.close();
  });
});

describe('failures and back-pressure (scripted server)', () => {
  test('a failed flush goes back to the front and is retried after 250 ms, then 500 ms; errors are logged', async () => {
    const s = await scriptedServer((req, i) => (i < 2 ? { status: 500, body: { error: 'pool' } } : queuedAnswer(req)));
    servers.push(s);
    const logger = recordingLogger();
    const q = testClient(s.url, { retryAttempts: 1, logger });
    let delivered: PushItem[] = [];
    await q.queue('q').buffer({ messageCount: 2, timeMillis: 10 }).push([{ data: 1 }, { data: 2 }]).onSuccess((items) => (delivered = items));
    await until('the third attempt', () => delivered.length === 2, 5000);
    assert.equal(s.seen.length, 3);
    const gap1 = s.seen[1]!.at - s.seen[0]!.at;
    const gap2 = s.seen[2]!.at - s.seen[1]!.at;
    assert.ok(gap1 >= 240 && gap1 < 1000, `first retry after ${gap1} ms`);
    assert.ok(gap2 >= 490 && gap2 < 1500, `second retry after ${gap2} ms`);
    const bodies = s.seen.map((r) => JSON.parse(r.body).items.map((i: PushItem) => i.transactionId).join());
    assert.equal(new Set(bodies).size, 1, 'the same items with the same transactionIds each time');
    assert.equal(logger.entries.filter((e) => e.msg === 'buffer flush failed, will retry').length, 2);
    await q.close();
  });

  test('flushAllBuffers() rejects when the broker keeps failing; items stay buffered', async () => {
    const s = await scriptedServer([{ status: 503, body: { error: 'pool' } }]);
    servers.push(s);
    const q = testClient(s.url, { retryAttempts: 2 });
    await q.queue('q').buffer({ messageCount: 10, timeMillis: 60_000 }).push([{ data: 1 }, { data: 2 }, { data: 3 }]);
    await assert.rejects(q.flushAllBuffers(), (e: QueenError) => e.code === 'HTTP' && e.status === 503);
    assert.equal(s.seen.length, 2);
    assert.equal(q.getBufferStats().totalBufferedMessages, 3);
    await assert.rejects(q.close(), (e: QueenError) => e.status === 503);
  });

  test('maxSize: a push that would exceed it waits until a flush makes room', async () => {
    const s = await scriptedServer((req) => ({ ...queuedAnswer(req), delayMillis: 400 }));
    servers.push(s);
    const q = testClient(s.url);
    const b = () => q.queue('q').buffer({ messageCount: 2, maxSize: 3, timeMillis: 60_000 });
    await b().push([{ data: 'a' }, { data: 'b' }]); // starts a flush (in flight for 400 ms)
    await b().push([{ data: 'c' }, { data: 'd' }]);
    const started = Date.now();
    await b().push([{ data: 'e' }]); // 3 buffered: at the bound, still accepted
    assert.ok(Date.now() - started < 200);
    await b().push([{ data: 'f' }]); // would be 4 > 3: waits for the first flush
    const waited = Date.now() - started;
    assert.ok(waited >= 250, `waited ${waited} ms`);
    await q.close();
    const sent = s.seen.flatMap((r) => JSON.parse(r.body).items.map((i: PushItem) => i.payload));
    assert.deepEqual(sent, ['a', 'b', 'c', 'd', 'e', 'f']);
  });
});
