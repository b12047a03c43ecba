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

  test('one text per keyword: required (absent or null), type, then the keywords in the order written', () => {
    const subscription = shipped.body('POST', '/api/v1/consumer-groups/:group/subscription');
    assert.equal(refusal(subscription, {}), 'Missing subscriptionTimestamp in request body');
    assert.equal(refusal(subscription, { subscriptionTimestamp: null }), 'Missing subscriptionTimestamp in request body');
    assert.equal(refusal(subscription, { subscriptionTimestamp: 5 }), 'subscriptionTimestamp must be a string');
    const cycle = shipped.body('POST', '/streams/v1/cycle');
    const ids = { query_id: '00000000-0000-0000-0000-000000000001', partition_id: '00000000-0000-0000-0000-000000000002' };
    assert.equal(refusal(cycle, { query_id: '' }), 'query_id is required');
    assert.equal(refusal(cycle, { query_id: 'x', partition_id: 7 }), 'query_id must be a UUID');
    assert.equal(refusal(cycle, { ...ids, consumer_group: 'g'.repeat(256) }), 'consumer_group is too long (max 255 characters)');
    assert.equal(refusal(cycle, { ...ids, state_ops: [{ type: 'upsert' }] }), 'state_op key must be a string');
    assert.equal(refusal(cycle, { ...ids, ack: { transactionId: 't', leaseId: 5, count: 'x' } }), 'ack.count must be a number');
    assert.equal(refusal(cycle, { ...ids, consumer_group: null, state_ops: null, push_items: null, ack: null, release_lease: null }), null);
  });

  test('migration: a digit string is read as the port, mode is checked on start only', () => {
    const start = shipped.body('POST', '/api/v1/migration/start');
    const testConnection = shipped.body('POST', '/api/v1/migration/test-connection');
    const target = { host: 'h', database: 'd', user: 'u' };
    const body: Record<string, unknown> = { ...target, port: '6543' };
    assert.equal(refusal(start, body), null);
    assert.equal(body.port, 6543);
    for (const port of ['0', '65536', 'x', 1.5, true]) assert.equal(refusal(start, { ...target, port }), 'port must be an integer between 1 and 65535');
    assert.equal(refusal(start, { ...target, port: null }), null);
    assert.equal(refusal(start, { ...target, host: ' ', port: 0 }), 'port must be an integer between 1 and 65535', 'the order of the texts');
    assert.equal(refusal(start, { ...target, host: ' \t' }), 'host (string) is required');
    assert.equal(refusal(start, { ...target, user: undefined }), 'user (string) is required');
    assert.equal(refusal(start, { ...target, password: null }), 'password (string) is required');
    assert.equal(refusal(start, { ...target, ssl: 'yes' }), 'ssl must be a boolean');
    assert.equal(refusal(start, { ...target, mode: 'sideways' }), 'mode must be "online" or "offline"');
    assert.equal(refusal(testConnection, { ...target, mode: 'sideways' }), null);
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

  test('a keyword marked before the type, or absent from the schema, is refused when the validators are built', () => {
    const document = copy();
    document.components!.schemas!.SubscriptionRequest!['x-queen-errors'] = { subscriptionTimestamp: { minLength: 'short', type: 'text' } };
    assert.throws(() => new RequestValidators(document), /before its type, or its schema lacks it/);
  });
});
