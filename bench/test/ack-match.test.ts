/** Matching /ack/batch results to request items by transactionId (and partitionId), not by `index`. */
import assert from 'node:assert/strict';
import test from 'node:test';
import { matchAckResults } from '../src/ack-match.js';

const items = [
  { transactionId: 'a', partitionId: 'P1' },
  { transactionId: 'b', partitionId: 'P1' },
  { transactionId: 'c', partitionId: 'P2' },
];

test('results renumbered by a broker that merged ack batches still match their items', () => {
  // Upstream merges concurrent /ack/batch requests and answers with the merged batch's indexes.
  const answer = [
    { index: 7, transactionId: 'c', success: true, error: null },
    { index: 5, transactionId: 'a', success: false, error: 'Invalid or expired lease' },
    { index: 6, transactionId: 'b', success: true, error: null },
  ];
  assert.deepEqual(matchAckResults(items, answer), [
    { success: false, error: 'Invalid or expired lease' },
    { success: true, error: null },
    { success: true, error: null },
  ]);
});

test('one transactionId in two partitions is told apart by partitionId when the result carries it', () => {
  const twice = [{ transactionId: 'x', partitionId: 'P1' }, { transactionId: 'x', partitionId: 'P2' }];
  const answer = [
    { index: 0, transactionId: 'x', partitionId: 'P2', success: false, error: 'Message not found' },
    { index: 1, transactionId: 'x', partitionId: 'P1', success: true, error: null },
  ];
  assert.deepEqual(matchAckResults(twice, answer), [{ success: true, error: null }, { success: false, error: 'Message not found' }]);
  // Without partitionId, repeated transactionIds are matched in request order.
  assert.deepEqual(matchAckResults(twice, [{ transactionId: 'x', success: true }, { transactionId: 'x', success: false, error: 'e' }]),
    [{ success: true, error: null }, { success: false, error: 'e' }]);
});

test('missing, foreign and malformed results leave their items unanswered', () => {
  const answer = [{ transactionId: 'zzz', success: true }, 'junk', { transactionId: 'b', success: true }];
  assert.deepEqual(matchAckResults(items, answer), [undefined, { success: true, error: null }, undefined]);
  assert.deepEqual(matchAckResults(items, { error: 'x' }), [undefined, undefined, undefined]);
  // A result without a transactionId falls back to its index.
  assert.deepEqual(matchAckResults(items, [{ index: 2, success: true }]), [undefined, undefined, { success: true, error: null }]);
});
