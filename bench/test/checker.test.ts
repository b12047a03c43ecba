/**
 * Unit tests of the no-loss checker: each kind of problem is counted, clean logs pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Checker, type PushRecord } from '../src/checker.js';

const G = 'g';

function push(checker: Checker, producer: string, partition: string, count: number): PushRecord[] {
  const records = Array.from({ length: count }, (_, seq) => ({ transactionId: `${producer}${seq}`, partition, producer, seq }));
  for (const record of records) checker.recordPush(record);
  return records;
}

function deliver(checker: Checker, partition: string, ids: readonly string[], acked = true, group = G): void {
  for (const transactionId of ids) checker.recordDelivery({ group, partition, transactionId, acked });
}

test('a log with a lost, a skipped, a reordered and a duplicated message', () => {
  const checker = new Checker();
  push(checker, 'a', 'p1', 4); // a1 is skipped (and therefore lost): a2 and a3 are delivered and acked
  push(checker, 'b', 'p2', 3); // b1 arrives after b2: reordered; b0 arrives twice: duplicate
  push(checker, 'c', 'p3', 2); // c1 is lost at the tail: lost, not skipped
  deliver(checker, 'p1', ['a0', 'a2', 'a3']);
  deliver(checker, 'p2', ['b0', 'b2', 'b1', 'b0']);
  deliver(checker, 'p3', ['c0']);

  const verdict = checker.verdict();
  assert.equal(verdict.pushed, 9);
  assert.equal(verdict.delivered, 7);
  assert.equal(verdict.lost, 2);
  assert.equal(verdict.skipped, 1);
  assert.equal(verdict.reordered, 1);
  assert.equal(verdict.duplicates, 1);
  assert.equal(verdict.unknown, 0);
  assert.equal(verdict.ok, false);
  assert.deepEqual(verdict.examples.lost, ['g/a1', 'g/c1']);
  assert.deepEqual(verdict.examples.skipped, ['g/a1']);
  assert.deepEqual(verdict.examples.reordered, ['g/b1']);
  assert.deepEqual(verdict.examples.duplicates, ['g/b0']);
});

test('each problem on its own', () => {
  const lost = new Checker();
  push(lost, 'a', 'p1', 3);
  deliver(lost, 'p1', ['a0', 'a1']);
  assert.deepEqual(pick(lost.verdict()), { lost: 1, skipped: 0, reordered: 0, duplicates: 0, ok: false });

  const skipped = new Checker();
  push(skipped, 'a', 'p1', 3);
  deliver(skipped, 'p1', ['a0']);
  deliver(skipped, 'p1', ['a1'], false); // delivered, never acked, never redelivered
  deliver(skipped, 'p1', ['a2']);
  assert.deepEqual(pick(skipped.verdict()), { lost: 0, skipped: 1, reordered: 0, duplicates: 0, ok: false });

  const reordered = new Checker();
  push(reordered, 'a', 'p1', 3);
  deliver(reordered, 'p1', ['a1', 'a0', 'a2']);
  assert.deepEqual(pick(reordered.verdict()), { lost: 0, skipped: 0, reordered: 1, duplicates: 0, ok: false });

  const duplicated = new Checker();
  push(duplicated, 'a', 'p1', 2);
  deliver(duplicated, 'p1', ['a0', 'a1', 'a1']);
  assert.deepEqual(pick(duplicated.verdict()), { lost: 0, skipped: 0, reordered: 0, duplicates: 1, ok: true });
});

test('reorders are judged on pop times: concurrent answers are not compared, causal ones are', () => {
  const checker = new Checker();
  push(checker, 'a', 'p1', 4);
  const pop = (id: number, requestedAt: number, receivedAt: number) => ({ id, requestedAt, receivedAt });
  // Pops 1 and 2 overlap in time: pop 2 (a2, a3) is recorded first, but nothing proves it was served first.
  const overlapping = [pop(2, 10, 20), pop(1, 5, 25)];
  for (const id of ['a2', 'a3']) checker.recordDelivery({ group: G, partition: 'p1', transactionId: id, acked: true, pop: overlapping[0] });
  for (const id of ['a0', 'a1']) checker.recordDelivery({ group: G, partition: 'p1', transactionId: id, acked: true, pop: overlapping[1] });
  assert.equal(checker.verdict().reordered, 0);

  const causal = new Checker();
  push(causal, 'a', 'p1', 4);
  // Pop 3 (a2, a3) was received at 20, before pop 4 (a0, a1) was requested at 21: provably out of order.
  for (const id of ['a2', 'a3']) causal.recordDelivery({ group: G, partition: 'p1', transactionId: id, acked: true, pop: pop(3, 10, 20) });
  for (const id of ['a0', 'a1']) causal.recordDelivery({ group: G, partition: 'p1', transactionId: id, acked: true, pop: pop(4, 21, 30) });
  assert.equal(causal.verdict().reordered, 2);

  const inOnePop = new Checker();
  push(inOnePop, 'a', 'p1', 3);
  for (const id of ['a0', 'a2', 'a1']) inOnePop.recordDelivery({ group: G, partition: 'p1', transactionId: id, acked: true, pop: pop(5, 1, 2) });
  assert.deepEqual(inOnePop.verdict().examples.reordered, ['g/a1']);
});

test('a clean log is ok', () => {
  const checker = new Checker();
  // Two producers interleaved in one partition, in an order that mixes them: only per-producer order counts.
  push(checker, 'a', 'p1', 3);
  push(checker, 'b', 'p1', 3);
  push(checker, 'c', 'p2', 2);
  for (const group of ['g1', 'g2']) {
    deliver(checker, 'p1', ['b0', 'a0', 'a1', 'b1', 'b2', 'a2'], true, group);
    deliver(checker, 'p2', ['c0', 'c1'], true, group);
  }
  const verdict = checker.verdict(['g1', 'g2']);
  assert.deepEqual(pick(verdict), { lost: 0, skipped: 0, reordered: 0, duplicates: 0, ok: true });
  assert.equal(verdict.pushed, 8);
  assert.equal(verdict.delivered, 16);
});

test('a redelivery after a failed ack is neither skipped nor reordered', () => {
  const checker = new Checker();
  push(checker, 'a', 'p1', 2);
  deliver(checker, 'p1', ['a0', 'a1'], false); // ack failed, lease expired
  const handles = ['a0', 'a1'].map((transactionId) => checker.recordDelivery({ group: G, partition: 'p1', transactionId, acked: false }));
  for (const handle of handles) checker.recordAck(handle);
  assert.deepEqual(pick(checker.verdict()), { lost: 0, skipped: 0, reordered: 0, duplicates: 2, ok: true });
});

test('deliveries recorded before their push are judged, unknown ones are counted apart', () => {
  const checker = new Checker();
  deliver(checker, 'p1', ['a0', 'x9']);
  push(checker, 'a', 'p1', 1);
  const verdict = checker.verdict();
  assert.equal(verdict.ok, true);
  assert.equal(verdict.delivered, 1);
  assert.equal(verdict.unknown, 1);
});

test('a group named in verdict() that received nothing loses everything', () => {
  const checker = new Checker();
  push(checker, 'a', 'p1', 2);
  deliver(checker, 'p1', ['a0', 'a1'], true, 'g1');
  const verdict = checker.verdict(['g1', 'g2']);
  assert.equal(verdict.lost, 2);
  assert.equal(verdict.ok, false);
  assert.equal(new Checker().verdict().ok, true);
});

function pick(v: { lost: number; skipped: number; reordered: number; duplicates: number; ok: boolean }):
  { lost: number; skipped: number; reordered: number; duplicates: number; ok: boolean } {
  return { lost: v.lost, skipped: v.skipped, reordered: v.reordered, duplicates: v.duplicates, ok: v.ok };
}
