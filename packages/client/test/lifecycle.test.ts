/**
 * Lifecycle (docs/client.md): close() stops consumes, waits for handlers and their acks, drains buffers, is
 * idempotent, and leaves the client CLOSED; the process-wide signal handler; consumer-group helpers.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { registeredClients } from '../src/signals.js';
import { Queen, QueenError } from '../src/index.js';
import { testClient, until } from './support.js';

const setup = useBroker();
const here = path.dirname(fileURLToPath(import.meta.url));

describe('close()', () => {
  test('stops a running consume: its handler finishes and is acked, then the client is CLOSED', async () => {
    const name = uniqueQueue();
    const q = testClient(setup.broker.url);
    await q.queue(name).push([{ data: 1 }]);
    let finished = false;
    let entered = false;
    const consuming = Promise.resolve(
      q
        .queue(name)
        .timeoutMillis(30_000)
        .each()
        .consume(async () => {
          entered = true;
          await new Promise((r) => setTimeout(r, 400));
          finished = true;
        }),
    );
    await until('the handler to start', () => entered);
    const started = Date.now();
    const closing = q.close();
    assert.equal(q.close(), closing, 'idempotent: the same promise');
    await closing;
    assert.ok(finished, 'close waited for the handler');
    assert.ok(Date.now() - started < 5000);
    assert.deepEqual(await consuming, { processed: 1, failed: 0 });
    await q.close();
    const other = testClient(setup.broker.url);
    assert.deepEqual(await other.queue(name).wait(false).pop(), [], 'acked before close resolved');
    await assert.rejects(Promise.resolve(q.queue(name).push([{ data: 2 }])), (e: QueenError) => e.code === 'CLOSED');
    await assert.rejects(q.queue(name).pop(), (e: QueenError) => e.code === 'CLOSED');
    await assert.rejects(Promise.resolve(q.queue(name).consume(() => undefined)), (e: QueenError) => e.code === 'CLOSED');
  });
});

describe('signals', () => {
  test('one shared handler: instances register by default, opt out, and re-register', async () => {
    const before = process.listenerCount('SIGTERM');
    const base = registeredClients();
    const a = new Queen(setup.broker.url);
    const b = new Queen({ url: setup.broker.url });
    const c = new Queen({ url: setup.broker.url, handleSignals: false });
    assert.equal(registeredClients(), base + 2);
    assert.equal(process.listenerCount('SIGTERM'), base === 0 ? before + 1 : before, 'one listener for all instances');
    a.disableGracefulShutdown();
    assert.equal(registeredClients(), base + 1);
    a.enableGracefulShutdown();
    c.enableGracefulShutdown();
    assert.equal(registeredClients(), base + 3);
    await Promise.all([a.close(), b.close(), c.close()]);
    assert.equal(registeredClients(), base);
    assert.equal(process.listenerCount('SIGTERM'), before, 'removed with the last instance');
  });

  test('enableGracefulShutdown() on a closing client does not register it again', async () => {
    const base = registeredClients();
    const a = new Queen(setup.broker.url);
    assert.equal(registeredClients(), base + 1);
    const closing = a.close();
    a.enableGracefulShutdown();
    await closing;
    assert.equal(registeredClients(), base);
  });

  test('SIGTERM closes every instance (flushing buffers) and exits 0', async () => {
    const name = uniqueQueue();
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures', 'signal-child.ts'), setup.broker.url, name], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    assert.equal(code, 0, out);
    assert.match(out, /listeners 1/);
    const msgs = await testClient(setup.broker.url).queue<number>(name).batch(10).wait(false).pop();
    assert.deepEqual(msgs.map((m) => m.data).sort(), [1, 2, 3]);
  });
});

describe('consumer-group helpers', () => {
  test('updateConsumerGroupTimestamp re-times the subscription; deleteConsumerGroup removes the group', async () => {
    const name = uniqueQueue();
    const q = testClient(setup.broker.url);
    await q.queue(name).push([{ data: 'old' }]);
    assert.deepEqual(await q.queue(name).group('g').subscriptionMode('new').wait(false).pop(), []);
    const future = new Date(Date.now() + 3_600_000);
    const updated = (await q.updateConsumerGroupTimestamp('g', future)) as { success: boolean; newTimestamp: string };
    assert.equal(updated.success, true);
    assert.equal(Date.parse(updated.newTimestamp), future.getTime());
    const deleted = (await q.deleteConsumerGroup('g')) as { success: boolean; consumerGroup: string; metadataDeleted: boolean };
    assert.deepEqual([deleted.success, deleted.consumerGroup, deleted.metadataDeleted], [true, 'g', true]);
    const again = await q.queue(name).group('g').wait(false).pop();
    assert.deepEqual(again.map((m) => m.data), ['old'], 'a deleted group starts over from the oldest message');
  });
});
