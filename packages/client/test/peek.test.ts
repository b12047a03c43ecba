/**
 * Peek against a real broker: the newest messages oldest first, then (follow) the new ones, without claiming
 * any (a consumer still gets every message afterwards); an idle follow ends by itself, an abort ends it quietly.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import type { PeekedMessage } from '../src/index.js';
import { testClient } from './support.js';

const setup = useBroker();

async function collect(messages: AsyncIterable<PeekedMessage>, into: unknown[] = []): Promise<unknown[]> {
  for await (const { detail } of messages) into.push(detail.payload);
  return into;
}

describe('peek', () => {
  test('the newest `last` messages, oldest first, with their payloads; nothing is claimed', async () => {
    const q = testClient(setup.broker.url);
    const name = uniqueQueue();
    await q.queue<number>(name).push([1, 2, 3, 4].map((data) => ({ data })));
    assert.deepEqual(await collect(q.queue(name).peek({ last: 2 })), [3, 4]);
    assert.deepEqual(await collect(q.queue(name).peek()), [1, 2, 3, 4], 'default: the newest 10');
    const first = await q.queue(name).peek({ last: 1 }).next();
    assert.equal(first.done, false);
    assert.equal(first.value!.row.partition, 'Default');
    assert.deepEqual((await q.queue<number>(name).batch(10).wait(false).pop()).map((m) => m.data), [1, 2, 3, 4], 'still all there for a consumer');
    await q.close();
  });

  test('follow yields what is pushed afterwards (once each), then stops after idleMillis; one partition when set', async () => {
    const q = testClient(setup.broker.url);
    const name = uniqueQueue();
    await q.queue<number>(name).push([{ data: 1 }]);
    const seen: unknown[] = [];
    const started = Date.now();
    const following = collect(q.queue(name).partition('b').peek({ last: 0, follow: true, idleMillis: 1500, intervalMillis: 100 }), seen);
    await q.queue<number>(name).partition('a').push([{ data: 2 }]);
    await q.queue<number>(name).partition('b').push([{ data: 3 }, { data: 4 }]);
    await following;
    assert.deepEqual(seen, [3, 4]);
    assert.ok(Date.now() - started < 10_000);
    await q.close();
  });

  test('an abort ends a follow without an error', async () => {
    const q = testClient(setup.broker.url);
    const name = uniqueQueue();
    await q.queue<number>(name).push([{ data: 1 }]);
    const ac = new AbortController();
    const done = collect(q.queue(name).peek({ follow: true, signal: ac.signal, intervalMillis: 100 }));
    setTimeout(() => ac.abort(), 300);
    assert.deepEqual(await done, [1]);
    await q.close();
  });
});
