/**
 * queen.ack and queen.renew against a real broker (docs/client.md): statuses, groups, lease echo,
 * batches with per-item overrides, per-item failures (fix 3), transactionId targets, validation, and
 * renew's newExpiresAt (fix 2).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { messaging } from '../../server/test/support/messaging.js';
import { QueenError, type Message } from '../src/index.js';
import { deadUrl, testClient } from './support.js';

const setup = useBroker();
const queen = () => testClient(setup.broker.url);
const m = () => messaging(setup.api, setup.db);

async function seeded(count: number, group?: string) {
  const name = uniqueQueue();
  const q = queen();
  await q.queue(name).config({ retryLimit: 1 }).create();
  await q.queue(name).push(Array.from({ length: count }, (_, i) => ({ data: i + 1 })));
  const builder = q.queue(name).batch(count).wait(false);
  const messages = await (group ? builder.group(group) : builder).pop();
  assert.equal(messages.length, count);
  return { q, name, messages };
}

describe('ack', () => {
  test('one message: completed by default, echoing leaseId and the message group', async () => {
    const { q, messages } = await seeded(1, 'g1');
    const answer = await q.ack(messages[0]!);
    assert.equal(answer.success, true);
    assert.equal(answer.results.length, 1);
    assert.equal(answer[0], answer.results[0]);
    assert.equal(answer.results[0]!.leaseReleased, true);
    assert.deepEqual(answer.failed, []);
    const cursor = await m().cursor(messages[0]!.partitionId, 'g1');
    assert.equal(cursor?.committed, 1);
  });

  test('false means failed: retry budget spent, lease released, then the DLQ', async () => {
    const { q, messages, name } = await seeded(1);
    const first = await q.ack(messages[0]!, false, { error: 'boom' });
    assert.equal(first.success, true);
    assert.equal(first.results[0]!.leaseReleased, true);
    const [again] = await q.queue(name).wait(false).pop();
    const second = await q.ack(again!, 'failed', { error: 'boom twice' });
    assert.equal(second.results[0]!.dlq, true);
    const dl = await m().deadLetters(again!.partitionId);
    assert.deepEqual(dl.map((d) => d.error_message), ['boom twice']);
  });

  test('batch: per-message _status/_error overrides; success is false when any item failed (fix 3)', async () => {
    const { q, messages, name } = await seeded(3);
    messages[1]!._status = 'failed';
    messages[1]!._error = 'second failed';
    const answer = await q.ack(messages);
    assert.equal(answer.success, false);
    assert.deepEqual(answer.results.map((r) => r.success), [true, true, false]);
    assert.equal(answer.failed.length, 1);
    assert.equal(answer.failed[0]!.error, 'Not applied: an earlier message of this partition failed in this request');
    assert.equal(answer.failed[0]!.index, 2);
    const redelivered = await q.queue(name).batch(5).wait(false).pop();
    assert.deepEqual(redelivered.map((x) => x.data), [2, 3]);
  });

  test('batch with an explicit group sends it at the top level', async () => {
    const { q, messages } = await seeded(2, 'grp');
    const answer = await q.ack(messages, true, { group: 'grp' });
    assert.equal(answer.success, true);
    assert.equal((await m().cursor(messages[0]!.partitionId, 'grp'))?.committed, 2);
    const wrongGroup = await seeded(1, 'mine');
    const refused = await wrongGroup.q.ack(wrongGroup.messages, true, { consumerGroup: 'other' });
    assert.equal(refused.success, false);
    assert.equal(refused.failed[0]!.error, 'Invalid or expired lease');
  });

  test('a transactionId target needs context.partitionId and uses context.leaseId', async () => {
    const { q, messages } = await seeded(1);
    const msg = messages[0]!;
    await assert.rejects(q.ack(msg.transactionId), (e: QueenError) => e.code === 'VALIDATION');
    const answer = await q.ack(msg.transactionId, 'completed', { partitionId: msg.partitionId, leaseId: msg.leaseId });
    assert.equal(answer.success, true);
  });

  test('invalid status strings are per-item failures; empty arrays need no request', async () => {
    const { q, messages } = await seeded(1);
    const answer = await q.ack(messages[0]!, 'done' as never);
    assert.equal(answer.success, false);
    assert.equal(answer.failed[0]!.error, 'Invalid status: done');
    const empty = await q.ack([]);
    assert.deepEqual([Array.isArray(empty), empty.length, empty.success, empty.results, empty.failed], [true, 0, true, [], []]);
    await assert.rejects(q.ack({ ...messages[0]!, partitionId: '' } as Message), (e: QueenError) => e.code === 'VALIDATION');
  });

  test('transport failures are answered, not thrown', async () => {
    const q = testClient(await deadUrl(), { retryAttempts: 1 });
    const answer = await q.ack('t', true, { partitionId: 'p' });
    assert.equal(answer.success, false);
    assert.match(answer.error!, /Network error/);
    assert.deepEqual(answer.results, []);
  });
});

describe('renew', () => {
  test('returns the broker newExpiresAt per lease (fix 2); one target one result, arrays deduplicated', async () => {
    const { q, messages } = await seeded(2);
    const before = Date.now();
    const one = await q.renew(messages[0]!, 600);
    assert.equal(one.success, true);
    assert.equal(one.leaseId, messages[0]!.leaseId);
    assert.equal(one.error, null);
    const expires = Date.parse(one.newExpiresAt!);
    assert.ok(expires >= before + 590_000 && expires <= Date.now() + 601_000, one.newExpiresAt!);
    const many = await q.renew([messages[0]!, messages[1]!, messages[0]!.leaseId]);
    assert.equal(many.length, 1, 'one request per distinct lease');
    const bad = await q.renew(['01890a5d-ac96-774b-bcce-b302099a8057']);
    assert.deepEqual(bad, [{ leaseId: '01890a5d-ac96-774b-bcce-b302099a8057', success: false, newExpiresAt: null, error: 'Lease not found' }]);
  });

  test('autoAck messages have no lease and are skipped', async () => {
    const name = uniqueQueue();
    const q = queen();
    await q.queue(name).push([{ data: 1 }]);
    const msgs = await q.queue(name).autoAck(true).wait(false).pop();
    assert.deepEqual(await q.renew(msgs), []);
  });
});
