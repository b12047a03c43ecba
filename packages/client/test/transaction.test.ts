/**
 * queen.transaction() against a real broker (docs/client.md): pop from A, push to B and ack A atomically;
 * a rolled-back transaction leaves no trace; validation before any request.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { messaging, UUID_V7 } from '../../server/test/support/messaging.js';
import { QueenError, type Message } from '../src/index.js';
import { deadUrl, testClient } from './support.js';

const setup = useBroker();
const queen = () => testClient(setup.broker.url);
const m = () => messaging(setup.api, setup.db);

async function popped(name: string, data: unknown[]) {
  const q = queen();
  await q.queue(name).push(data.map((d) => ({ data: d })));
  const msgs = await q.queue(name).batch(data.length).wait(false).pop();
  assert.equal(msgs.length, data.length);
  return { q, msgs };
}

describe('transaction', () => {
  test('push to B and ack A commit together; pushes get UUIDv7 ids and the payload rule', async () => {
    const a = uniqueQueue('a');
    const b = uniqueQueue('b');
    const { q, msgs } = await popped(a, [{ n: 1 }]);
    const result = await q
      .transaction()
      .queue(b)
      .partition('out')
      .push([{ data: { doubled: 2 } }, { payload: 'p' }, { whole: true }])
      .ack(msgs[0]!)
      .commit();
    assert.equal(result.success, true);
    assert.match(result.transactionId, UUID_V7);
    assert.equal(result.results.length, 4);
    const out = await q.queue(b).partition('out').batch(10).wait(false).pop();
    assert.deepEqual(out.map((x) => x.data), [{ doubled: 2 }, 'p', { whole: true }]);
    assert.ok(out.every((x) => UUID_V7.test(x.transactionId)));
    assert.equal((await m().cursor(msgs[0]!.partitionId))?.committed, 1);
  });

  test('a transaction with a bad lease rolls back: its push is not visible and the ack is not applied', async () => {
    const a = uniqueQueue('a');
    const b = uniqueQueue('b');
    const { q, msgs } = await popped(a, [1, 2]);
    const other = await popped(uniqueQueue('c'), ['c1']);
    const forged = { ...msgs[0]!, leaseId: '01890a5d-ac96-774b-bcce-b302099a8057' } as Message;
    const tx = q.transaction().ack(other.msgs[0]!).queue(b).push([{ data: 'must not appear' }]).ack(forged).ack(msgs[1]!);
    const error = await tx.commit().then(
      () => assert.fail('expected TRANSACTION_FAILED'),
      (e: QueenError) => e,
    );
    assert.equal(error.code, 'TRANSACTION_FAILED');
    assert.equal(error.message, 'ACK operation failed: Invalid or expired lease');
    assert.ok(Array.isArray(error.results) && error.results.length === 3, JSON.stringify(error.results));
    assert.equal((error.body as { success: boolean }).success, false);
    assert.deepEqual(await q.queue(b).wait(false).pop(), [], 'the push was rolled back');
    const cursor = await m().cursor(msgs[0]!.partitionId);
    assert.equal(cursor?.committed, 0, 'nothing was acked');
    assert.equal(cursor?.live, true, 'the lease is intact');
    const otherCursor = await m().cursor(other.msgs[0]!.partitionId);
    assert.deepEqual([otherCursor?.committed, otherCursor?.live], [0, true], 'the earlier, valid ack was rolled back');
    assert.equal((await q.ack(msgs)).success, true, 'the real lease still acks both');
  });

  test('failed acks carry status and error; the group defaults to the message group', async () => {
    const a = uniqueQueue('a');
    const q = queen();
    await q.queue(a).config({ retryLimit: 0 }).create();
    await q.queue(a).push([{ data: 1 }]);
    const [msg] = await q.queue(a).group('workers').wait(false).pop();
    await q.transaction().ack(msg!, false, { error: 'bad input' }).commit();
    const dl = await m().deadLetters(msg!.partitionId);
    assert.deepEqual(dl.map((d) => [d.consumer_group, d.error_message]), [['workers', 'bad input']]);
  });

  test('an empty transaction is a VALIDATION error before any request', async () => {
    const q = testClient(await deadUrl());
    await assert.rejects(q.transaction().commit(), (e: QueenError) => e.code === 'VALIDATION');
  });
});
