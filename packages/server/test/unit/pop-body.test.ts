/**
 * The 200 body of the pop routes (popBody in src/http/routes/pop.ts), docs/api.md 5.12: valid JSON, exactly the
 * documented keys in order, payload JSON text spliced verbatim, partitionsClaimed = partitions contributing
 * messages, names and ids escaped.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { popBody } from '../../src/http/routes/pop.js';
import type { ClaimedMessage } from '../../src/core/pop.js';

const P1 = '0198f2c0-0000-7000-8000-00000000c001';
const P2 = '0198f2c0-0000-7000-8000-00000000c002';
const P3 = '0198f2c0-0000-7000-8000-00000000c003';
const LEASE = '0198f2d3-1b2c-7a00-8c11-5e6f708192a3';
const CREATED = '2026-08-02T09:15:01.204611Z';

let counter = 0;
function message(partitionId: string, partitionName: string, overrides: Partial<ClaimedMessage> = {}): ClaimedMessage {
  counter += 1;
  return {
    queue: 'payments.settled',
    partitionId: partitionId,
    partitionName: partitionName,
    messageId: `0198f2d2-88aa-7b01-9c3d-${String(counter).padStart(12, '0')}`,
    transactionId: `tx-${counter}`,
    traceId: null,
    payload: '{"n":1}',
    producerSub: null,
    createdAt: CREATED,
    traceContext: null,
    ...overrides,
  };
}

const TOP_KEYS = ['success', 'queue', 'partition', 'partitionId', 'leaseId', 'consumerGroup', 'messages', 'partitionsClaimed'];
const MESSAGE_KEYS = ['id', 'transactionId', 'traceId', 'data', 'producerSub', 'createdAt', 'partitionId', 'partition', 'leaseId', 'consumerGroup'];

describe('shape', () => {
  test('one message: the exact body of docs/api.md 5.12', () => {
    const m = message(P1, 'merchant-7', {
      messageId: '0198f2d2-88aa-7b01-9c3d-0e1f2a3b4c5d',
      transactionId: 'pay-1207',
      payload: '{"paymentId":1207,"amount":1250}',
    });
    const text = popBody('payments.settled', 'ledger', LEASE, [m]);
    assert.deepEqual(JSON.parse(text), {
      success: true,
      queue: 'payments.settled',
      partition: 'merchant-7',
      partitionId: P1,
      leaseId: LEASE,
      consumerGroup: 'ledger',
      messages: [
        {
          id: '0198f2d2-88aa-7b01-9c3d-0e1f2a3b4c5d',
          transactionId: 'pay-1207',
          traceId: null,
          data: { paymentId: 1207, amount: 1250 },
          producerSub: null,
          createdAt: CREATED,
          partitionId: P1,
          partition: 'merchant-7',
          leaseId: LEASE,
          consumerGroup: 'ledger',
        },
      ],
      partitionsClaimed: 1,
    });
  });

  test('top-level keys and the ten message keys, in order, nothing else', () => {
    const body = JSON.parse(popBody('q', '__QUEUE_MODE__', LEASE, [message(P1, 'a'), message(P1, 'a')]));
    assert.deepEqual(Object.keys(body), TOP_KEYS);
    for (const m of body.messages) assert.deepEqual(Object.keys(m), MESSAGE_KEYS);
  });

  test('autoAck: leaseId "" at the top level and in every message', () => {
    const body = JSON.parse(popBody('q', 'g', '', [message(P1, 'a'), message(P2, 'b')]));
    assert.equal(body.leaseId, '');
    assert.deepEqual(body.messages.map((m: { leaseId: string }) => m.leaseId), ['', '']);
  });

  test('discovery: queue "" at the top level', () => {
    const body = JSON.parse(popBody('', 'g', LEASE, [message(P1, 'a')]));
    assert.equal(body.queue, '');
  });

  test('traceId and producerSub when present', () => {
    const body = JSON.parse(popBody('q', 'g', LEASE, [
      message(P1, 'a', { traceId: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', producerSub: 'user-42' }),
    ]));
    assert.equal(body.messages[0].traceId, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    assert.equal(body.messages[0].producerSub, 'user-42');
  });
});

describe('payloads are spliced verbatim', () => {
  const payloads = [
    '{"b":1,"a":[1,2,{"c":null}]}',
    '{"price":123.50,"big":12345678901234567890,"exp":1E+2}',
    'null',
    '"a string with \\"quotes\\" and \\u00e9"',
    '[]',
    '0',
    'true',
    '{ "spaced" : [ 1 , 2 ] }',
  ];
  for (const payload of payloads) {
    test(payload, () => {
      const text = popBody('q', 'g', LEASE, [message(P1, 'a', { payload })]);
      assert.ok(text.includes(`"data":${payload},"producerSub"`), `payload text not found verbatim in ${text}`);
      assert.deepEqual(JSON.parse(text).messages[0].data, JSON.parse(payload));
    });
  }
});

describe('partitionsClaimed', () => {
  test('counts distinct partitions, messages grouped by partition in claim order', () => {
    const messages = [message(P2, 'b'), message(P2, 'b'), message(P1, 'a'), message(P3, 'c'), message(P3, 'c'), message(P3, 'c')];
    const body = JSON.parse(popBody('q', 'g', LEASE, messages));
    assert.equal(body.partitionsClaimed, 3);
    assert.equal(body.messages.length, 6);
    assert.deepEqual(body.messages.map((m: { partition: string }) => m.partition), ['b', 'b', 'a', 'c', 'c', 'c']);
    assert.deepEqual(body.messages.map((m: { transactionId: string }) => m.transactionId), messages.map((m) => m.transactionId));
    // The top level names the first partition claimed.
    assert.equal(body.partition, 'b');
    assert.equal(body.partitionId, P2);
  });

  test('many messages of one partition: 1', () => {
    const body = JSON.parse(popBody('q', 'g', LEASE, Array.from({ length: 50 }, () => message(P1, 'a'))));
    assert.equal(body.partitionsClaimed, 1);
    assert.equal(body.messages.length, 50);
  });

  test('two partitions with the same name in different queues (discovery) count as two', () => {
    const body = JSON.parse(popBody('', 'g', LEASE, [message(P1, 'Default'), message(P2, 'Default')]));
    assert.equal(body.partitionsClaimed, 2);
  });
});

describe('escaping', () => {
  const nasty = 'quote " backslash \\ newline \n tab \t ctrl \u0001 unicode é 😀 </script> \u2028';
  test('queue, partition, group and transactionId with special characters round-trip', () => {
    const m = message(P1, `p-${nasty}`, { transactionId: `tx-${nasty}`, producerSub: `sub-${nasty}` });
    const text = popBody(`q-${nasty}`, `g-${nasty}`, LEASE, [m]);
    const body = JSON.parse(text);
    assert.equal(body.queue, `q-${nasty}`);
    assert.equal(body.partition, `p-${nasty}`);
    assert.equal(body.consumerGroup, `g-${nasty}`);
    assert.equal(body.messages[0].partition, `p-${nasty}`);
    assert.equal(body.messages[0].consumerGroup, `g-${nasty}`);
    assert.equal(body.messages[0].transactionId, `tx-${nasty}`);
    assert.equal(body.messages[0].producerSub, `sub-${nasty}`);
  });

  test('a transactionId that looks like JSON stays a string', () => {
    const body = JSON.parse(popBody('q', 'g', LEASE, [message(P1, 'a', { transactionId: '","data":1,"x":"' })]));
    assert.equal(body.messages[0].transactionId, '","data":1,"x":"');
    assert.deepEqual(Object.keys(body.messages[0]), MESSAGE_KEYS);
  });
});
