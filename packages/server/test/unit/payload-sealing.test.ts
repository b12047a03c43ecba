/**
 * The sealing step of the write path (src/core/payload-sealing.ts): which items are sealed, the queue view
 * (cache, 60 s re-read, forget), and the re-submission of items the database refused as unsealed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { isSealed, PayloadCipher } from '../../src/core/payload-cipher.js';
import { PayloadSealer, QueueEncryptionView, SEAL_RETRY_ERROR } from '../../src/core/payload-sealing.js';
import type { AppendItem, AppendResult } from '../../src/store/segments.js';

const cipher = new PayloadCipher(randomBytes(32));

function item(queue: string, n: number): AppendItem {
  return { queue, partition: 'Default', messageId: `m-${n}`, transactionId: `t-${n}`, traceId: null, payload: JSON.stringify({ n }), producerSub: null, traceContext: null };
}

/** A view over a mutable "database" of flags (with the sticky "ever enabled") that counts its loads. */
function viewOver(flags: Map<string, boolean>, clock = { now: 0 }) {
  const loads: string[][] = [];
  const used = new Set<string>();
  const view = new QueueEncryptionView({
    async queueEncryptionFlags({ names }) {
      loads.push([...names]);
      for (const [name, enabled] of flags) if (enabled) used.add(name);
      return new Map(names.filter((n) => flags.has(n)).map((n) => [n, { enabled: flags.get(n)!, used: used.has(n) }]));
    },
  }, () => clock.now);
  return { view, loads, clock };
}

describe('QueueEncryptionView', () => {
  test('reads each queue once, then answers from memory; unknown queues are unencrypted', async () => {
    const { view, loads } = viewOver(new Map([['enc', true], ['plain', false]]));
    assert.deepEqual([...await view.encryptedAmong(['enc', 'plain', 'new', 'enc'])], ['enc']);
    assert.deepEqual([...await view.encryptedAmong(['plain', 'enc'])], ['enc']);
    assert.deepEqual(loads, [['enc', 'plain', 'new']]);
    assert.deepEqual(view.stats(), { size: 3, hits: 2, misses: 3 });
  });

  test('a queue that ever had encryption may hold sealed payloads, even once it is off', async () => {
    const flags = new Map([['q', false]]);
    const { view } = viewOver(flags);
    assert.equal(await view.mayHoldSealed('q'), false);
    assert.equal(await view.mayHoldSealed('missing'), false);
    flags.set('q', true);
    view.forget('q');
    assert.equal(await view.mayHoldSealed('q'), true);
    flags.set('q', false);
    view.forget('q');
    assert.equal(await view.mayHoldSealed('q'), true);
    assert.equal((await view.encryptedAmong(['q'])).size, 0);
  });

  test('forget and the 60 s age make it read again', async () => {
    const flags = new Map([['q', false]]);
    const { view, loads, clock } = viewOver(flags);
    await view.encryptedAmong(['q']);
    flags.set('q', true);
    assert.equal((await view.encryptedAmong(['q'])).size, 0, 'cached');
    view.forget('q');
    assert.equal((await view.encryptedAmong(['q'])).size, 1);
    flags.set('q', false);
    clock.now += 59_999;
    assert.equal((await view.encryptedAmong(['q'])).size, 1, 'still fresh');
    clock.now += 1;
    assert.equal((await view.encryptedAmong(['q'])).size, 0, 'aged out');
    assert.equal(loads.length, 3);
  });
});

describe('PayloadSealer', () => {
  test('seals exactly the items bound for encrypted queues', async () => {
    const { view } = viewOver(new Map([['enc', true]]));
    const sealer = new PayloadSealer(cipher, view);
    const items = [item('enc', 1), item('plain', 2), item('enc', 3)];
    const sealed = await sealer.seal(items);
    assert.deepEqual(sealed.map((i) => isSealed(i.payload)), [true, false, true]);
    assert.equal(cipher.open(sealed[0]!.payload), '{"n":1}');
    assert.equal(sealed[1], items[1]);
    assert.equal(items[0]!.payload, '{"n":1}', 'the input is not modified');
  });

  test('a stale view: refused items are re-submitted sealed, the others keep their results', async () => {
    const flags = new Map([['enc', false]]);
    const { view } = viewOver(flags);
    const sealer = new PayloadSealer(cipher, view);
    await view.encryptedAmong(['enc']); // cached as unencrypted
    flags.set('enc', true); // configured meanwhile by another process
    const calls: AppendItem[][] = [];
    const append = async (items: AppendItem[]): Promise<AppendResult[]> => {
      calls.push(items);
      return items.map((i) => ({
        status: flags.get(i.queue) === true && !isSealed(i.payload) ? 'unsealed' : 'queued',
        messageId: i.messageId, partitionId: 'p', error: null, namespace: i.queue, task: '',
      }));
    };
    const results = await sealer.wrap(append)([item('plain', 1), item('enc', 2), item('enc', 3)]);
    assert.deepEqual(results.map((r) => r.status), ['queued', 'queued', 'queued']);
    assert.deepEqual(results.map((r) => r.messageId), ['m-1', 'm-2', 'm-3']);
    assert.equal(calls.length, 2);
    assert.deepEqual(calls[1]!.map((i) => i.transactionId), ['t-2', 't-3']);
    assert.ok(calls[1]!.every((i) => isSealed(i.payload)));
  });

  test('a flag that keeps flipping ends in a per-item failure, never in plaintext stored', async () => {
    const { view } = viewOver(new Map());
    const sealer = new PayloadSealer(cipher, view);
    let calls = 0;
    const append = async (items: AppendItem[]): Promise<AppendResult[]> => {
      calls += 1;
      return items.map(() => ({ status: 'unsealed', messageId: null, partitionId: 'p', error: 'x', namespace: 'q', task: '' }));
    };
    const results = await sealer.wrap(append)([item('q', 1)]);
    assert.equal(calls, 3);
    assert.equal(results[0]!.status, 'failed');
    assert.equal(results[0]!.error, SEAL_RETRY_ERROR);
  });
});
