/**
 * Request parsing of the consumer-group, seek and trace routes: the seek body (docs/api.md 7.7), the trace body
 * (docs/api.md 7.6) and limit/offset of the listings (src/http/pagination.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomainError } from '../../src/errors.js';
import { toHttpError } from '../../src/http/errors.js';
import { pageOf, type Page } from '../../src/http/pagination.js';
import { Query } from '../../src/http/query.js';
import { seekTarget } from '../../src/http/routes/seek.js';
import { parseTraceInput } from '../../src/http/routes/traces.js';
import { documentQueryRules, documentValidators } from '../../src/http/validation.js';

/** A route's reading of a body as the broker does it: the edge's check from the document, then the route's parser. */
function atEdge<T>(path: string, parse: (body: Record<string, unknown>) => T): (body: Record<string, unknown>) => T {
  const check = documentValidators().body('POST', path);
  assert.ok(check !== null, `${path} has marked fields`);
  return (body) => {
    check(body);
    return parse(body);
  };
}

function rejects(run: () => unknown, text: string): void {
  assert.throws(run, (error: unknown) => error instanceof DomainError && toHttpError(error).status === 400 && toHttpError(error).body.error === text);
}

const NEITHER = "Must specify either 'toEnd': true or 'timestamp'";

describe('seekTarget', () => {
  const seekQueue = atEdge('/api/v1/consumer-groups/:group/queues/:queue/seek', (body) => seekTarget(body, false));
  const seekPartition = atEdge('/api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek', (body) => seekTarget(body, true));

  test('toEnd: true wins; a timestamp is normalised; anything else is a 400', () => {
    assert.deepEqual(seekTarget({ toEnd: true }, false), { kind: 'end' });
    assert.deepEqual(seekTarget({ toEnd: true, timestamp: 'not a time' }, false), { kind: 'end' });
    assert.deepEqual(seekTarget({ timestamp: '2020-01-01T02:00:00+02:00' }, false), { kind: 'timestamp', at: '2020-01-01T02:00:00.000000+02:00' });
    assert.deepEqual(seekTarget({ toEnd: false, timestamp: '2020-01-01' }, false), { kind: 'timestamp', at: '2020-01-01T00:00:00.000000+00:00' });
    for (const body of [{}, { toEnd: false }, { toEnd: 1 }, { timestamp: null }]) rejects(() => seekQueue(body), NEITHER);
    for (const timestamp of ['garbage', 'now', 12, true, '2020-13-01T00:00:00Z']) rejects(() => seekQueue({ timestamp }), 'Invalid timestamp');
  });

  test('the partition route: a body without toEnd or timestamp means the end; toEnd: false still needs a timestamp', () => {
    assert.deepEqual(seekTarget({}, true), { kind: 'end' });
    assert.deepEqual(seekTarget({ toEnd: null, other: 1 }, true), { kind: 'end' });
    rejects(() => seekPartition({ toEnd: false }), NEITHER);
    rejects(() => seekPartition({ timestamp: 'x' }), 'Invalid timestamp');
    rejects(() => seekPartition({ timestamp: 7 }), 'Invalid timestamp');
  });
});

describe('parseTraceInput', () => {
  const trace = atEdge('/api/v1/traces', parseTraceInput);
  const base = { transactionId: 't', partitionId: 'p', data: { a: 1 } };

  test('defaults: queue mode, info, no names; data kept as JSON text', () => {
    assert.deepEqual(parseTraceInput(base), { transactionId: 't', partitionId: 'p', group: '__QUEUE_MODE__', eventType: 'info', data: '{"a":1}', names: [] });
    assert.deepEqual(parseTraceInput({ ...base, consumerGroup: 'g', eventType: 'done', traceNames: ['x', 'y', 'x'] }).names, ['x', 'y']);
    assert.deepEqual(parseTraceInput({ ...base, traceNames: 'solo' }).names, ['solo']);
    assert.equal(parseTraceInput({ ...base, data: false }).data, 'false');
    assert.equal(parseTraceInput({ ...base, eventType: 7, consumerGroup: 7 }).eventType, 'info');
  });

  test('400s in the order of docs/api.md: ids, then data, then the optional fields', () => {
    rejects(() => trace({ data: 1 }), 'transactionId and partitionId are required');
    rejects(() => trace({ transactionId: 't', partitionId: 7, data: 1 }), 'transactionId and partitionId are required');
    rejects(() => trace({ transactionId: 't', partitionId: 'p' }), 'data is required');
    rejects(() => trace({ transactionId: 't', partitionId: 'p', data: null }), 'data is required');
    rejects(() => trace({ transactionId: 't', data: null }), 'transactionId and partitionId are required');
    rejects(() => trace({ ...base, consumerGroup: 'a\u0000b' }), 'Invalid consumerGroup');
    // A NUL in eventType is refused before the route runs (http/text.ts; e2e/traces.test.ts checks the 400).
    for (const traceNames of [3, {}, [''], ['ok', 5], ['n'.repeat(256)]]) rejects(() => trace({ ...base, traceNames }), 'Invalid traceNames');
  });
});

describe('pageOf: limit and offset as the document reads them (query-rules.ts)', () => {
  const page = (path: string, search: string): Page => {
    const query = Query.parse(search);
    documentQueryRules().query('GET', path)!(query);
    return pageOf(query);
  };

  test('a usable limit and offset are taken; anything else falls back to the default and 0', () => {
    assert.deepEqual(page('/api/v1/status/queues', 'limit=5&offset=10'), { limit: 5, offset: 10 });
    assert.deepEqual(page('/api/v1/status/queues', ''), { limit: 100, offset: 0 });
    assert.deepEqual(page('/api/v1/status/queues/:queue/messages', 'limit=0&offset=-1'), { limit: 50, offset: 0 });
    assert.deepEqual(page('/api/v1/status/queues/:queue/messages', 'limit=abc&offset=1.5'), { limit: 50, offset: 0 });
    assert.deepEqual(page('/api/v1/resources/queues', ''), { limit: 100_000, offset: 0 }, 'the queue list: the largest page');
  });

  test('every listing has a largest page: a larger limit is clamped; one PostgreSQL cannot hold is a 400', () => {
    assert.deepEqual(page('/api/v1/status/queues', 'limit=2147483647'), { limit: 1000, offset: 0 });
    assert.deepEqual(page('/api/v1/messages', 'limit=5000'), { limit: 1000, offset: 0 });
    assert.deepEqual(page('/api/v1/messages', ''), { limit: 200, offset: 0 });
    assert.deepEqual(page('/api/v1/resources/queues', 'limit=2147483647'), { limit: 100_000, offset: 0 });
    rejects(() => page('/api/v1/dlq', 'limit=2147483648'), 'Invalid limit: must be an integer of at most 2147483647');
    rejects(() => page('/api/v1/dlq', 'offset=2147483648'), 'Invalid offset: must be an integer of at most 2147483647');
  });
});
