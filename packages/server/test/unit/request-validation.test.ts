/**
 * The edge's body checks come from the OpenAPI document (http/validation.ts): the shipped document gives today's
 * texts in today's order, and a changed copy of the document changes what the edge accepts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomainError } from '../../src/errors.js';
import { RequestValidators, type BodyCheck, type RequestDocument } from '../../src/http/validation.js';
import { openApi } from '../support/contract.js';

const shipped = new RequestValidators(openApi as unknown as RequestDocument);
const copy = (): RequestDocument => structuredClone(openApi) as unknown as RequestDocument;

/** The 400 text a check answers for a body, or null when it accepts it. */
function refusal(check: BodyCheck | null, body: unknown): string | null {
  assert.ok(check !== null);
  try {
    check(body);
    return null;
  } catch (error) {
    assert.ok(error instanceof DomainError && error.kind === 'invalid', String(error));
    return error.message;
  }
}

describe('request validation from the document', () => {
  test('push: the texts of docs/api.md, the first failing rule of the first failing item', () => {
    const push = shipped.body('POST', '/api/v1/push');
    assert.equal(refusal(push, {}), 'items array is required');
    assert.equal(refusal(push, { items: 'x' }), 'items array is required');
    assert.equal(refusal(push, { items: [{ queue: 'q' }, 7] }), 'Each item must be an object');
    assert.equal(refusal(push, { items: [{ partition: 3 }] }), 'Queue must be a string');
    assert.equal(refusal(push, { items: [{ queue: null }] }), 'Queue must be a string');
    assert.equal(refusal(push, { items: [{ queue: 'q', traceId: 1, partition: 2 }] }), 'Partition must be a string');
    assert.equal(refusal(push, { items: [{ queue: 'q', tracestate: 1, traceparent: 2 }] }), 'Traceparent must be a string');
    assert.equal(refusal(push, { items: [{ queue: 'q', partition: null, transactionId: null, payload: { any: [1] } }] }), null);
  });

  test('ack: the same item schema has other texts inside a batch', () => {
    const ack = shipped.body('POST', '/api/v1/ack');
    assert.equal(refusal(ack, { partitionId: 'p' }), 'transactionId is required');
    assert.equal(refusal(ack, { transactionId: 1 }), 'transactionId is required');
    assert.equal(refusal(ack, { transactionId: 't' }), 'partitionId is required to ensure message uniqueness');
    // Fields the broker reads leniently are not enforced (a status of another type is C1's to report).
    assert.equal(refusal(ack, { transactionId: 't', partitionId: 'p', status: 5, leaseId: 3 }), null);
    const batch = shipped.body('POST', '/api/v1/ack/batch');
    assert.equal(refusal(batch, {}), 'acknowledgments array is required');
    assert.equal(refusal(batch, { acknowledgments: [null] }), 'Each acknowledgment must have a valid transactionId string');
    assert.equal(refusal(batch, { acknowledgments: [{ transactionId: 't' }] }),
      'Each acknowledgment must have a valid partitionId string to ensure message uniqueness');
  });

  test('a route whose body reads its parts itself has no edge check', () => {
    assert.equal(shipped.body('POST', '/api/v1/transaction'), null);
    assert.equal(shipped.body('GET', '/api/v1/resources/queues'), null);
  });

  test('router paths find their operation (`:name` is `{name}`)', () => {
    const document = copy();
    const seek = document.components!.schemas!.SeekRequest!;
    seek['x-queen-errors'] = { toEnd: 'toEnd must be a boolean' };
    const check = new RequestValidators(document).body('POST', '/api/v1/consumer-groups/:group/queues/:queue/seek');
    assert.equal(refusal(check, { toEnd: 'yes' }), 'toEnd must be a boolean');
  });

  test('a changed document changes what the edge accepts and what it answers', () => {
    const body = { items: [{ queue: 'q', partition: null }] };
    assert.equal(refusal(shipped.body('POST', '/api/v1/push'), body), null);
    const document = copy();
    const item = document.components!.schemas!.PushItem!;
    (item.properties as Record<string, { type: unknown }>).partition!.type = 'string';
    (item['x-queen-errors'] as Record<string, string>).partition = 'Partition must be text';
    const changed = new RequestValidators(document);
    assert.equal(refusal(changed.body('POST', '/api/v1/push'), body), 'Partition must be text');
    assert.equal(refusal(changed.schema('PushItem'), body.items[0]), 'Partition must be text');
    assert.equal(changed.schema('PushItem'), changed.schema('PushItem'), 'compiled once');
    // Unmarked, the property is no longer enforced at all.
    delete (item['x-queen-errors'] as Record<string, string>).queue;
    assert.equal(refusal(new RequestValidators(document).body('POST', '/api/v1/push'), { items: [{ queue: 5 }] }), null);
  });

  test('a mark on a schema without a type is refused when the validators are built', () => {
    const document = copy();
    (document.components!.schemas!.PushItem!['x-queen-errors'] as Record<string, string>).payload = 'Payload?';
    assert.throws(() => new RequestValidators(document), /marks a schema without a type/);
  });
});
