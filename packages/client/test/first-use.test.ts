/**
 * What a first user of the SDK runs into (issue 13 item 13; docs/client.md): `consume()` is a
 * Promise (`.catch` and `.finally` work, and it runs without being awaited), `ack()` of several messages
 * resolves with an array, and `pop()` against a broker that cannot be reached rejects after its retries
 * instead of answering `[]` as if the queue were empty.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { QueenError } from '../src/index.js';
import { deadUrl, testClient, until } from './support.js';

const setup = useBroker();

describe('first use of the SDK', () => {
  test('consume() is a Promise: .catch receives a 4xx, .finally runs, and it consumes even when never awaited', async () => {
    const q = testClient(setup.broker.url);
    try {
      const failing = q.queue('x'.repeat(300)).wait(false).consume(async () => undefined);
      assert.equal(Object.prototype.toString.call(failing), '[object Promise]');
      let finished = false;
      const error = await failing.catch((e: unknown) => e).finally(() => (finished = true));
      assert.ok(error instanceof QueenError && error.status === 400, String(error));
      assert.equal(finished, true);

      const queue = uniqueQueue('bg');
      const seen: number[] = [];
      void q.queue<number>(queue).wait(false).each().limit(2).consume(async (msg) => void seen.push(msg.data));
      await q.queue<number>(queue).push([{ data: 1 }, { data: 2 }]);
      await until('the unawaited consume handled both', () => seen.length === 2);
      assert.deepEqual(seen, [1, 2]);
    } finally {
      await q.close();
    }
  });

  test('ack() of several messages resolves with an array of per-message results (and the summary)', async () => {
    const q = testClient(setup.broker.url);
    try {
      const queue = uniqueQueue('acks');
      await q.queue<number>(queue).push([{ data: 1 }, { data: 2 }, { data: 3 }]);
      const messages = await q.queue<number>(queue).batch(3).wait(false).pop();
      assert.equal(messages.length, 3);
      const answer = await q.ack(messages);
      assert.ok(Array.isArray(answer));
      assert.equal(answer.length, 3);
      assert.deepEqual(answer.map((r) => r.success), [true, true, true]);
      assert.deepEqual(answer.map((r) => r.transactionId), messages.map((m) => m.transactionId));
      assert.equal(answer.success, true);
      assert.deepEqual(answer.failed, []);
      const single = await q.ack(messages[0]!);
      assert.equal(Array.isArray(single), false);
      assert.equal(single.success, true);
    } finally {
      await q.close();
    }
  });

  test('pop() against an unreachable URL rejects with a NETWORK QueenError after its retries', async () => {
    const url = await deadUrl();
    const q = testClient(url, { retryAttempts: 2, retryDelayMillis: 10 });
    try {
      const error = await q.queue('orders').wait(false).pop().then(() => null, (e: unknown) => e);
      assert.ok(error instanceof QueenError, `pop answered ${JSON.stringify(error)}`);
      assert.equal(error.code, 'NETWORK');
      assert.match(error.message, /^Network error: /);
      assert.equal(error.url, url);
    } finally {
      await q.close();
    }
  });
});
