/**
 * Routing (src/http/router.ts): docs/api.md 1.7. The router sees raw paths and returns raw parameters; decoding
 * happens afterwards.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Route } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';

function route(method: Route['method'], path: string): Route {
  return { method, path, access: 'PUBLIC', handle: async () => ({ status: 200, body: { method, path } }) };
}

const routes: Route[] = [
  route('GET', '/health'),
  route('GET', '/api/v1/pop'),
  route('GET', '/api/v1/pop/queue/:queue'),
  route('GET', '/api/v1/pop/queue/:queue/partition/:partition'),
  route('GET', '/api/v1/resources/queues/:queue'),
  route('DELETE', '/api/v1/resources/queues/:queue'),
  route('GET', '/api/v1/consumer-groups'),
  route('GET', '/api/v1/consumer-groups/lagging'),
  route('GET', '/api/v1/consumer-groups/:group'),
  route('DELETE', '/api/v1/consumer-groups/:group'),
  route('DELETE', '/api/v1/consumer-groups/:group/queues/:queue'),
  route('GET', '/api/v1/traces/names'),
  route('GET', '/api/v1/traces/by-name/:traceName'),
  route('GET', '/api/v1/traces/:partitionId/:transactionId'),
  route('POST', '/api/v1/lease/:leaseId/extend'),
];
const router = new Router(routes);

function match(method: string, path: string): { path: string; method: string; params: Record<string, string> } | null {
  const found = router.match(method, path);
  return found === null ? null : { path: found.route.path, method: found.route.method, params: found.rawParams };
}

describe('literal segments win over parameters (docs/api.md 1.7.3)', () => {
  test('/consumer-groups/lagging is the lagging route, not a group', () => {
    assert.deepEqual(match('GET', '/api/v1/consumer-groups/lagging'), {
      path: '/api/v1/consumer-groups/lagging',
      method: 'GET',
      params: {},
    });
  });

  test('other names are groups', () => {
    assert.deepEqual(match('GET', '/api/v1/consumer-groups/lag'), {
      path: '/api/v1/consumer-groups/:group',
      method: 'GET',
      params: { group: 'lag' },
    });
  });

  test('/traces/names and /traces/by-name/:traceName win over /traces/:partitionId/:transactionId', () => {
    assert.deepEqual(match('GET', '/api/v1/traces/names'), { path: '/api/v1/traces/names', method: 'GET', params: {} });
    assert.deepEqual(match('GET', '/api/v1/traces/by-name/checkout'), {
      path: '/api/v1/traces/by-name/:traceName',
      method: 'GET',
      params: { traceName: 'checkout' },
    });
    assert.deepEqual(match('GET', '/api/v1/traces/0198f2c0-0000-7000-8000-00000000b001/tx-1'), {
      path: '/api/v1/traces/:partitionId/:transactionId',
      method: 'GET',
      params: { partitionId: '0198f2c0-0000-7000-8000-00000000b001', transactionId: 'tx-1' },
    });
  });

  test('backtracking: a literal branch that cannot finish the path falls back to the parameter', () => {
    // 'names' is a literal under /traces, but /traces/names/x only exists as /traces/:partitionId/:transactionId.
    assert.deepEqual(match('GET', '/api/v1/traces/names/x'), {
      path: '/api/v1/traces/:partitionId/:transactionId',
      method: 'GET',
      params: { partitionId: 'names', transactionId: 'x' },
    });
    // 'lagging' is a literal under /consumer-groups, but it has no /queues/:queue below it.
    assert.deepEqual(match('DELETE', '/api/v1/consumer-groups/lagging/queues/orders'), {
      path: '/api/v1/consumer-groups/:group/queues/:queue',
      method: 'DELETE',
      params: { group: 'lagging', queue: 'orders' },
    });
  });

  test('parameters bound on an abandoned branch do not leak into the match', () => {
    assert.deepEqual(match('GET', '/api/v1/pop/queue/orders'), {
      path: '/api/v1/pop/queue/:queue',
      method: 'GET',
      params: { queue: 'orders' },
    });
    assert.equal(match('GET', '/api/v1/pop/queue/orders/partition'), null);
  });
});

describe('trailing slash (docs/api.md 1.7.2)', () => {
  test('one trailing slash is ignored', () => {
    assert.deepEqual(match('GET', '/health/'), { path: '/health', method: 'GET', params: {} });
    assert.deepEqual(match('GET', '/api/v1/pop/queue/orders/'), {
      path: '/api/v1/pop/queue/:queue',
      method: 'GET',
      params: { queue: 'orders' },
    });
    assert.deepEqual(match('GET', '/api/v1/consumer-groups/lagging/'), {
      path: '/api/v1/consumer-groups/lagging',
      method: 'GET',
      params: {},
    });
  });

  test('two trailing slashes are not one', () => {
    assert.equal(match('GET', '/health//'), null);
  });
});

describe('no match (docs/api.md 1.7.4)', () => {
  test('method mismatch -> null', () => {
    assert.equal(match('POST', '/health'), null);
    assert.equal(match('GET', '/api/v1/lease/abc/extend'), null);
    assert.equal(match('PUT', '/api/v1/resources/queues/orders'), null);
  });

  test('unknown paths -> null', () => {
    assert.equal(match('GET', '/api/v1/nothing'), null);
    assert.equal(match('GET', '/api/v1/pop/queue/orders/partition/p/extra'), null);
    assert.equal(match('GET', '/api/v1/migration/start'), null);
    assert.equal(match('GET', '/'), null);
  });

  test('the same path answers each method with its own route', () => {
    assert.equal(match('GET', '/api/v1/resources/queues/orders')?.method, 'GET');
    assert.equal(match('DELETE', '/api/v1/resources/queues/orders')?.method, 'DELETE');
  });
});

describe('raw parameters (docs/api.md 1.7.1)', () => {
  test('parameters are returned undecoded; %2F does not split a segment', () => {
    assert.deepEqual(match('GET', '/api/v1/pop/queue/a%2Fb/partition/c%20d+e'), {
      path: '/api/v1/pop/queue/:queue/partition/:partition',
      method: 'GET',
      params: { queue: 'a%2Fb', partition: 'c%20d+e' },
    });
  });

  test('a malformed escape is still matched (decoding is the caller\'s business)', () => {
    assert.deepEqual(match('POST', '/api/v1/lease/%zz/extend'), {
      path: '/api/v1/lease/:leaseId/extend',
      method: 'POST',
      params: { leaseId: '%zz' },
    });
  });
});

describe('table construction', () => {
  test('a duplicate method + path is refused', () => {
    assert.throws(() => new Router([route('GET', '/x/:a'), route('GET', '/x/:a')]), /duplicate route GET \/x\/:a/);
  });
});
