/**
 * Unit tests of the chaos run's duplicate classification: each class is recognised from delivery timings and
 * ack outcomes, and only the expected classes count as explained.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyDuplicates, type AckOutcome, type DeliveryEvent } from '../src/chaos/duplicates.js';

const LEASE_MS = 5000;

function delivery(transactionId: string, requestedAt: number, receivedAt: number, ack: AckOutcome, ackAnsweredAt = NaN,
  ackError: string | null = null, messageId = `m-${transactionId}`): DeliveryEvent {
  return { transactionId, messageId, requestedAt, receivedAt, ack, ackAnsweredAt, ackError };
}

test('single deliveries are not duplicates', () => {
  const report = classifyDuplicates([delivery('a', 0, 10, 'acked', 20), delivery('b', 0, 10, 'refused', 20, 'x')], LEASE_MS);
  assert.equal(report.deliveries, 2);
  assert.equal(report.duplicatedMessages, 0);
  assert.equal(report.redeliveries, 0);
  assert.equal(report.explained, 0);
});

test('a redelivery after a refused or unanswered ack and the lease time is explained by lease expiry', () => {
  const report = classifyDuplicates([
    delivery('a', 0, 10, 'refused', 30, 'Invalid or expired lease'),
    delivery('a', 5200, 5300, 'acked', 5400),
    delivery('b', 100, 110, 'unanswered', NaN, 'UND_ERR_SOCKET'),
    delivery('b', 5000, 5200, 'acked', 5300),
  ], LEASE_MS);
  assert.equal(report.duplicatedMessages, 2);
  assert.equal(report.redeliveries, 2);
  assert.equal(report.afterLeaseExpiry, 2);
  assert.equal(report.explained, 2);
  assert.deepEqual(report.causes, { 'ack refused: Invalid or expired lease': 1, 'no ack answer: UND_ERR_SOCKET': 1 });
});

test('a redelivery requested after a successful ack answer is unexplained; one racing the ack is explained', () => {
  const report = classifyDuplicates([
    delivery('a', 0, 10, 'acked', 50),
    delivery('a', 60, 70, 'acked', 80), // requested after the first ack's success arrived
    delivery('b', 0, 10, 'acked', 6000), // late ack (e.g. C3 after the cursor moved)
    delivery('b', 5100, 5200, 'acked', 5300), // requested before that success arrived
  ], LEASE_MS);
  assert.equal(report.unexplained, 1);
  assert.deepEqual(report.examples.unexplained, ['a']);
  assert.equal(report.ackRaced, 1);
  assert.equal(report.explained, 1);
});

test('a redelivery while the previous lease cannot have expired is withinLease; a new message id is storedTwice', () => {
  const report = classifyDuplicates([
    delivery('a', 0, 10, 'refused', 30, 'Invalid or expired lease'),
    delivery('a', 1000, 1010, 'acked', 1020),
    delivery('b', 0, 10, 'acked', 20),
    delivery('b', 30, 40, 'acked', 50, null, 'other-id'),
  ], LEASE_MS);
  assert.equal(report.withinLease, 1);
  assert.deepEqual(report.examples.withinLease, ['a']);
  assert.equal(report.storedTwice, 1);
  assert.deepEqual(report.examples.storedTwice, ['b']);
  assert.equal(report.explained, 0);
});

test('events are ordered by receipt per message, whatever the input order', () => {
  const report = classifyDuplicates([
    delivery('a', 5200, 5300, 'acked', 5400),
    delivery('a', 0, 10, 'refused', 30, 'Invalid or expired lease'),
  ], LEASE_MS);
  assert.equal(report.afterLeaseExpiry, 1);
  assert.equal(report.unexplained, 0);
});
