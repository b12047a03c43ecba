/**
 * The consume loop against a real broker (docs/client.md): each and batch handlers, limit and idleMillis,
 * per-partition order under concurrency, lease renewal, failure -> redelivery -> DLQ, each-mode skipping,
 * callbacks owning the acks, abort, and 4xx rejection.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { messaging } from '../../server/test/support/messaging.js';
import { QueenError, type Message } from '../src/index.js';
import { recordingLogger, testClient } from './support.js';

const setup = useBroker();
const queen = () => testClient(setup.broker.url);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function filled(count: number, partition = 'Default', options: { retryLimit?: number } = {}) {
  const name = uniqueQueue();
  const q = queen();
  await q.queue(name).config({ retryLimit: options.retryLimit ?? 3 }).create();
  await q.queue<number>(name).partition(partition).push(Array.from({ length: count }, (_, i) => ({ data: i + 1 })));
  return { q, name };
}

describe('handlers and stop conditions', () => {
  test('each(): one message at a time, in order, auto-acked; limit stops it', async () => {
    const { q, name } = await filled(5);
    const seen: number[] = [];
    const result = await q
      .queue<number>(name)
      .batch(2)
      .limit(5)
      .each()
      .consume(async (msg) => {
        seen.push(msg.data);
        assert.equal(typeof msg.trace, 'function');
      });
    assert.deepEqual(result, { processed: 5, failed: 0 });
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
    assert.deepEqual(await q.queue(name).wait(false).pop(), [], 'everything was acked');
  });

  test('batch handler gets arrays; limit shrinks the pop so nothing unhandled is leased', async () => {
    const { q, name } = await filled(10);
    const sizes: number[] = [];
    const result = await q
      .queue<number>(name)
      .batch(4)
      .limit(6)
      .consume(async (msgs) => {
        sizes.push(msgs.length);
      });
    assert.deepEqual(result, { processed: 6, failed: 0 });
    assert.deepEqual(sizes, [4, 2]);
    const rest = await q.queue<number>(name).batch(10).wait(false).pop();
    assert.deepEqual(rest.map((m) => m.data), [7, 8, 9, 10], 'the remaining four are immediately available');
  });

  test('idleMillis stops a consume that receives nothing (long poll shortened to the idle time)', async () => {
    const q = queen();
    const started = Date.now();
    const result = await q.queue(uniqueQueue()).timeoutMillis(30_000).idleMillis(500).consume(() => assert.fail('no message'));
    const took = Date.now() - started;
    assert.deepEqual(result, { processed: 0, failed: 0 });
    assert.ok(took >= 450 && took < 5000, `took ${took} ms`);
    const noWait = Date.now();
    await q.queue(uniqueQueue()).wait(false).idleMillis(300).consume(() => undefined);
    assert.ok(Date.now() - noWait < 3000);
  });

  test('idleMillis counts from the last message', async () => {
    const { q, name } = await filled(2);
    setTimeout(() => void Promise.resolve(q.queue<number>(name).push([{ data: 3 }])), 400);
    const seen: number[] = [];
    const result = await q.queue<number>(name).idleMillis(1200).each().consume((m) => void seen.push(m.data));
    assert.equal(result.processed, 3);
    assert.deepEqual(seen, [1, 2, 3]);
  });

  test('concurrency runs loops in parallel and keeps per-partition order', async () => {
    const name = uniqueQueue();
    const q = queen();
    for (const p of ['p0', 'p1', 'p2', 'p3']) {
      await q.queue<{ p: string; n: number }>(name).partition(p).push(Array.from({ length: 10 }, (_, n) => ({ data: { p, n } })));
    }
    const order = new Map<string, number[]>();
    let running = 0;
    let maxRunning = 0;
    const result = await q
      .queue<{ p: string; n: number }>(name)
      .batch(3)
      .concurrency(4)
      .limit(40)
      .each()
      .consume(async (msg) => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await sleep(5);
        const list = order.get(msg.data.p) ?? [];
        list.push(msg.data.n);
        order.set(msg.data.p, list);
        running -= 1;
      });
    assert.equal(result.processed, 40);
    for (const p of ['p0', 'p1', 'p2', 'p3']) assert.deepEqual(order.get(p), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], p);
    assert.ok(maxRunning > 1, `handlers overlapped (max ${maxRunning})`);
  });
});

describe('leases', () => {
  test('renewLease keeps a slow handler lease alive past its lease time; a competitor gets nothing', async () => {
    const { q, name } = await filled(1);
    const competitor = queen();
    let stolen = 0;
    const result = await q
      .queue<number>(name)
      .leaseSeconds(2)
      .renewLease(true, 1000)
      .each()
      .limit(1)
      .consume(async () => {
        for (let i = 0; i < 7; i++) {
          await sleep(400);
          stolen += (await competitor.queue(name).wait(false).pop()).length;
        }
      });
    assert.equal(result.processed, 1);
    assert.equal(stolen, 0);
    assert.deepEqual(await competitor.queue(name).wait(false).pop(), [], 'acked after the handler');
  });

  test('without renewLease the same slow handler loses its message to the competitor (control)', async () => {
    const { q, name } = await filled(1);
    const competitor = queen();
    let stolen = 0;
    await q
      .queue<number>(name)
      .leaseSeconds(1)
      .each()
      .limit(1)
      .consume(async () => {
        await sleep(1600);
        stolen += (await competitor.queue(name).wait(false).pop()).length;
      });
    assert.equal(stolen, 1);
  });
});

describe('failures', () => {
  test('a failing handler: failed ack, redelivery, then the DLQ after retryLimit', async () => {
    const { q, name } = await filled(1, 'Default', { retryLimit: 2 });
    let calls = 0;
    const result = await q
      .queue(name)
      .idleMillis(1500)
      .each()
      .consume(() => {
        calls += 1;
        throw new Error(`attempt ${calls}`);
      });
    assert.equal(calls, 3, 'retryLimit 2: delivered three times');
    assert.deepEqual(result, { processed: 0, failed: 3 });
    const page = await q.queue(name).dlq().get();
    assert.equal(page.total, 1);
    assert.equal(page.messages[0]!.errorMessage, 'attempt 3');
    assert.equal(page.messages[0]!.data, 1);
  });

  test('each(): a failure that released the lease skips the rest of that partition (redelivered later)', async () => {
    const { q, name } = await filled(3);
    const seen: number[] = [];
    let failedOnce = false;
    const result = await q
      .queue<number>(name)
      .batch(3)
      .limit(4)
      .each()
      .consume((m) => {
        seen.push(m.data);
        if (m.data === 1 && !failedOnce) {
          failedOnce = true;
          throw new Error('first try');
        }
      });
    assert.deepEqual(seen, [1, 1, 2, 3]);
    assert.deepEqual(result, { processed: 3, failed: 1 });
  });

  test('each(): a failure that sent the message to the DLQ continues with the next ones', async () => {
    const { q, name } = await filled(3, 'Default', { retryLimit: 0 });
    const seen: number[] = [];
    const result = await q
      .queue<number>(name)
      .batch(3)
      .limit(3)
      .each()
      .consume((m) => {
        seen.push(m.data);
        if (m.data === 1) throw new Error('poison');
      });
    assert.deepEqual(seen, [1, 2, 3]);
    assert.deepEqual(result, { processed: 2, failed: 1 });
    assert.equal((await q.queue(name).dlq().get()).total, 1);
  });

  test('batch mode: a failure fails the whole batch, which is redelivered', async () => {
    const { q, name } = await filled(3);
    const batches: number[][] = [];
    const result = await q
      .queue<number>(name)
      .batch(3)
      .limit(6)
      .consume((msgs) => {
        batches.push(msgs.map((m) => m.data));
        if (batches.length === 1) throw new Error('whole batch');
      });
    assert.deepEqual(batches, [[1, 2, 3], [1, 2, 3]]);
    assert.deepEqual(result, { processed: 3, failed: 3 });
  });

  test('onSuccess/onError own the acking: nothing is auto-acked', async () => {
    const { q, name } = await filled(2);
    const successes: Array<[number, unknown]> = [];
    const errors: string[] = [];
    await q
      .queue<number>(name)
      .batch(2)
      .limit(2)
      .each()
      .consume((m) => {
        if (m.data === 2) throw new Error('two');
        return `ok-${m.data}`;
      })
      .onSuccess((m, r) => void successes.push([m.data, r]))
      .onError((m, e) => void errors.push(`${m.data}:${(e as Error).message}`));
    assert.deepEqual(successes, [[1, 'ok-1']]);
    assert.deepEqual(errors, ['2:two']);
    const popped = await q.queue(name).batch(2).wait(false).pop();
    assert.deepEqual(popped, [], 'still leased: nobody acked');
    const partitionId = (await setup.db.query<{ id: string }>('SELECT p.id::text AS id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1', [name])).rows[0]!.id;
    assert.equal((await messaging(setup.api, setup.db).cursor(partitionId))?.committed, 0);
  });

  test('autoAck(false): the handler acks by itself', async () => {
    const { q, name } = await filled(2);
    const result = await q
      .queue<number>(name)
      .batch(2)
      .limit(2)
      .autoAck(false)
      .consume(async (msgs: Message<number>[]) => {
        const answer = await q.ack(msgs, 'completed');
        assert.equal(answer.success, true);
      });
    assert.equal(result.processed, 2);
    assert.deepEqual(await q.queue(name).wait(false).pop(), []);
  });

  test('a 4xx rejects the consume and stops every loop', async () => {
    await assert.rejects(Promise.resolve(queen().queue('x'.repeat(256)).concurrency(3).consume(() => undefined)), (e: QueenError) => e.code === 'HTTP' && e.status === 400);
  });

  test('abort: in-flight long polls end, a running handler finishes and is acked', async () => {
    const { q, name } = await filled(1);
    const ac = new AbortController();
    let finished = false;
    const started = Date.now();
    const result = await q
      .queue<number>(name)
      .concurrency(2)
      .timeoutMillis(30_000)
      .each()
      .consume(
        async () => {
          ac.abort();
          await sleep(300);
          finished = true;
        },
        { signal: ac.signal },
      );
    assert.ok(finished);
    assert.deepEqual(result, { processed: 1, failed: 0 });
    assert.ok(Date.now() - started < 5000);
    assert.deepEqual(await q.queue(name).wait(false).pop(), [], 'the handled message was acked');
  });
});

describe('review fixes', () => {
  test('limit holds in each mode under concurrency: nothing is popped beyond it while handlers run', async () => {
    const name = uniqueQueue();
    const q = queen();
    await q.queue(name).create();
    for (let p = 0; p < 6; p++) await q.queue<number>(name).partition(`p${p}`).push([{ data: 1 }, { data: 2 }, { data: 3 }]);
    let calls = 0;
    const result = await q
      .queue<number>(name)
      .batch(1)
      .concurrency(2)
      .limit(2)
      .each()
      .consume(async () => {
        calls += 1;
        await sleep(calls % 2 === 1 ? 100 : 300);
      });
    assert.deepEqual(result, { processed: 2, failed: 0 });
    assert.equal(calls, 2);
    const other = queen();
    let left = 0;
    for (let i = 0; i < 20; i++) {
      const got = await other.queue(name).batch(10).wait(false).pop();
      if (got.length === 0) break;
      left += got.length;
    }
    assert.equal(left, 16, 'every message beyond the limit is still available, none stays leased');
  });

  test('each(): a failed ack lost in transport skips the rest of the pop, so the failed message is redelivered, not settled by the next ack', async () => {
    const name = uniqueQueue();
    const failingAcks: typeof fetch = async (input, init) => {
      if (String(input).includes('/api/v1/ack') && typeof init?.body === 'string' && init.body.includes('"status":"failed"')) {
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    };
    const q = testClient(setup.broker.url, { fetch: failingAcks, retryAttempts: 1 });
    await q.queue(name).create();
    await q.queue<number>(name).push([{ data: 1 }, { data: 2 }, { data: 3 }]);
    const seen: number[] = [];
    let failedOnce = false;
    const result = await q
      .queue<number>(name)
      .batch(3)
      .leaseSeconds(1)
      .limit(4)
      .idleMillis(6000)
      .each()
      .consume((m) => {
        seen.push(m.data);
        if (m.data === 1 && !failedOnce) {
          failedOnce = true;
          throw new Error('first try');
        }
      });
    assert.deepEqual(seen, [1, 1, 2, 3], 'message 2 was not handled in the pop of the failure; 1 came back');
    assert.deepEqual(result, { processed: 3, failed: 1 });
    assert.deepEqual(await q.queue(name).wait(false).pop(), [], 'all settled');
  });

  test('a loop that finds the limit reserved by others waits instead of exiting, so concurrency survives a short pop', async () => {
    const name = uniqueQueue();
    const q = queen();
    await q.queue(name).create();
    // One message per partition: every batch(2) pop gets 1 and gives the other half of its reservation back.
    for (let p = 0; p < 8; p++) await q.queue<number>(name).partition(`p${p}`).push({ data: p });
    let running = 0;
    let overlapping = 0;
    const result = await q
      .queue<number>(name)
      .batch(2)
      .concurrency(2)
      .limit(4)
      .each()
      .consume(async () => {
        if (running > 0) overlapping += 1;
        running += 1;
        await sleep(300);
        running -= 1;
      });
    assert.deepEqual(result, { processed: 4, failed: 0 });
    assert.ok(overlapping >= 2, `both loops kept handling until the limit (${overlapping} overlapping starts)`);
  });

  test('renewLease(true, 0) and leaseSeconds(0).renewLease(true) do not renew every millisecond', async () => {
    let extends_ = 0;
    const counting: typeof fetch = async (input, init) => {
      if (String(input).includes('/extend')) extends_ += 1;
      return fetch(input, init);
    };
    const log = recordingLogger();
    const q = testClient(setup.broker.url, { fetch: counting, logger: log });
    const { name } = await filled(2);
    await q.queue(name).renewLease(true, 0).each().limit(1).consume(() => sleep(1500));
    assert.ok(extends_ >= 1 && extends_ <= 2, `explicit 0 ms is clamped to 1 s: ${extends_} renewals in 1.5 s`);
    extends_ = 0;
    await q.queue(name).leaseSeconds(0).renewLease(true).each().limit(1).consume(() => sleep(1500));
    assert.equal(extends_, 0, 'leaseSeconds(0) counts as unset: the 30 s default interval applies');
    assert.deepEqual(log.entries.filter((e) => e.msg === 'lease renewal failed'), []);
  });
});
