/**
 * JWT auth on one HS256 broker (docs/api.md 9.7): the access level of every route of the route table (docs/api.md 3,
 * copied here from the spec so that a wrong `access` in the code fails) crossed with seven kinds of caller,
 * then the order of checks (404 before 401, 401/403 before any 400), the Authorization header forms
 * (docs/api.md 1.11), OPTIONS and PUBLIC routes, and producerSub stamping.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { bearer, mint } from '../support/auth.js';
import { request, uniqueQueue, useBroker, type TestResponse } from '../support/harness.js';

/** The 404 of a method and path no route serves (its text names them). */
function isNoRoute(json: unknown): boolean {
  const error = (json as { error?: unknown } | null)?.error;
  return typeof error === 'string' && error.startsWith('Not Found: no route for ');
}

const SECRET = 'matrix-secret-0123456789abcdef0123456789';
const ISSUER = 'https://issuer.test';

type Level = 'PUBLIC' | 'READ_ONLY' | 'READ_WRITE' | 'ADMIN';

/** docs/api.md 3, rows 2-61 (row 1, OPTIONS, has its own test). */
const ROUTE_TABLE: Array<[number, string, string, Level]> = [
  [2, 'GET', '/health', 'PUBLIC'],
  [3, 'POST', '/api/v1/configure', 'READ_WRITE'],
  [4, 'DELETE', '/api/v1/resources/queues/:queue', 'ADMIN'],
  [5, 'GET', '/api/v1/resources/queues/:queue', 'READ_ONLY'],
  [6, 'POST', '/api/v1/push', 'READ_WRITE'],
  [7, 'GET', '/api/v1/pop/queue/:queue/partition/:partition', 'READ_WRITE'],
  [8, 'GET', '/api/v1/pop/queue/:queue', 'READ_WRITE'],
  [9, 'GET', '/api/v1/pop', 'READ_WRITE'],
  [10, 'POST', '/api/v1/ack', 'READ_WRITE'],
  [11, 'POST', '/api/v1/ack/batch', 'READ_WRITE'],
  [12, 'POST', '/api/v1/lease/:leaseId/extend', 'READ_WRITE'],
  [13, 'POST', '/api/v1/transaction', 'READ_WRITE'],
  [14, 'GET', '/api/v1/resources/queues', 'READ_ONLY'],
  [15, 'GET', '/api/v1/resources/namespaces', 'READ_ONLY'],
  [16, 'GET', '/api/v1/resources/tasks', 'READ_ONLY'],
  [17, 'GET', '/api/v1/resources/overview', 'READ_ONLY'],
  [18, 'GET', '/api/v1/resources/partitions', 'READ_ONLY'],
  [19, 'DELETE', '/api/v1/queues/:queue/clear', 'ADMIN'],
  [20, 'GET', '/api/v1/messages', 'READ_ONLY'],
  [21, 'GET', '/api/v1/messages/:partitionId/:transactionId', 'READ_ONLY'],
  [22, 'DELETE', '/api/v1/messages/:partitionId/:transactionId', 'READ_WRITE'],
  [23, 'POST', '/api/v1/messages/:partitionId/:transactionId/retry', 'READ_WRITE'],
  [24, 'POST', '/api/v1/messages/:partitionId/:transactionId/dlq', 'READ_WRITE'],
  [25, 'GET', '/api/v1/dlq', 'READ_ONLY'],
  [26, 'POST', '/api/v1/traces', 'READ_WRITE'],
  [27, 'GET', '/api/v1/traces/names', 'READ_ONLY'],
  [28, 'GET', '/api/v1/traces/by-name/:traceName', 'READ_ONLY'],
  [29, 'GET', '/api/v1/traces/:partitionId/:transactionId', 'READ_ONLY'],
  [30, 'GET', '/api/v1/consumer-groups', 'READ_ONLY'],
  [31, 'GET', '/api/v1/consumer-groups/lagging', 'READ_ONLY'],
  [32, 'GET', '/api/v1/consumer-groups/:group', 'READ_ONLY'],
  [33, 'DELETE', '/api/v1/consumer-groups/:group', 'ADMIN'],
  [34, 'POST', '/api/v1/consumer-groups/:group/subscription', 'READ_WRITE'],
  [35, 'DELETE', '/api/v1/consumer-groups/:group/queues/:queue', 'ADMIN'],
  [36, 'POST', '/api/v1/consumer-groups/:group/queues/:queue/seek', 'READ_WRITE'],
  [37, 'POST', '/api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek', 'READ_WRITE'],
  [38, 'POST', '/api/v1/stats/refresh', 'ADMIN'],
  [39, 'GET', '/api/v1/system/maintenance', 'ADMIN'],
  [40, 'POST', '/api/v1/system/maintenance', 'ADMIN'],
  [41, 'GET', '/api/v1/system/maintenance/pop', 'ADMIN'],
  [42, 'POST', '/api/v1/system/maintenance/pop', 'ADMIN'],
  [43, 'GET', '/api/v1/system/shared-state', 'ADMIN'],
  [44, 'GET', '/api/v1/status', 'READ_ONLY'],
  [45, 'GET', '/api/v1/status/queues', 'READ_ONLY'],
  [46, 'GET', '/api/v1/status/queues/:queue', 'READ_ONLY'],
  [47, 'GET', '/api/v1/status/queues/:queue/messages', 'READ_ONLY'],
  [48, 'GET', '/api/v1/status/analytics', 'READ_ONLY'],
  [49, 'GET', '/api/v1/status/buffers', 'READ_ONLY'],
  [50, 'GET', '/api/v1/analytics/system-metrics', 'READ_ONLY'],
  [51, 'GET', '/api/v1/analytics/worker-metrics', 'READ_ONLY'],
  [52, 'GET', '/api/v1/analytics/queue-lag', 'READ_ONLY'],
  [53, 'GET', '/api/v1/analytics/queue-ops', 'READ_ONLY'],
  [54, 'GET', '/api/v1/analytics/queue-parked-replicas', 'READ_ONLY'],
  [55, 'GET', '/api/v1/analytics/retention', 'READ_ONLY'],
  [56, 'GET', '/api/v1/analytics/postgres-stats', 'READ_ONLY'],
  [57, 'GET', '/metrics', 'PUBLIC'],
  [58, 'GET', '/metrics/prometheus', 'PUBLIC'],
  [59, 'POST', '/streams/v1/queries', 'READ_WRITE'],
  [60, 'POST', '/streams/v1/cycle', 'READ_WRITE'],
  [61, 'POST', '/streams/v1/state/get', 'READ_ONLY'],
];

/**
 * Rows another feature branch serves (maintenance, streams). Where this build does not serve one, the row must
 * answer 404 Not Found to every caller (nothing leaks); once served, it is checked like every other row.
 */
const MAYBE_UNSERVED = new Set([39, 40, 41, 42, 43]);

const QUEUE = uniqueQueue('auth-matrix');
const SAMPLE: Record<string, string> = {
  queue: QUEUE, partition: 'Default', leaseId: randomUUID(), partitionId: randomUUID(), transactionId: 'tx-1', group: 'g-auth', traceName: 'trace-auth',
};
const concrete = (path: string): string => path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(SAMPLE[name]!));
/** Pops never park here. */
const withQuery = (path: string): string => (path.startsWith('/api/v1/pop') ? `${path}?wait=false` : path);

const RANK: Record<Level, number> = { PUBLIC: 0, READ_ONLY: 1, READ_WRITE: 2, ADMIN: 3 };
const now = (): number => Math.floor(Date.now() / 1000);

interface Caller {
  name: string;
  headers: () => Promise<Record<string, string>>;
  /** The refusal of a protected route, or the level the caller holds. */
  outcome: { status: 401; error: string } | { level: Level };
}

const CALLERS: Caller[] = [
  { name: 'no token', headers: async () => ({}), outcome: { status: 401, error: 'Authentication required' } },
  { name: 'read-only', headers: async () => bearer(await mint(SECRET, { claims: { iss: ISSUER, sub: 'ro', role: 'read-only' } })), outcome: { level: 'READ_ONLY' } },
  { name: 'read-write', headers: async () => bearer(await mint(SECRET, { claims: { iss: ISSUER, sub: 'rw', roles: ['read-write'] } })), outcome: { level: 'READ_WRITE' } },
  { name: 'admin', headers: async () => bearer(await mint(SECRET, { claims: { iss: ISSUER, sub: 'adm', role: 'admin' } })), outcome: { level: 'ADMIN' } },
  {
    name: 'expired', outcome: { status: 401, error: 'Token has expired' },
    headers: async () => bearer(await mint(SECRET, { claims: { iss: ISSUER, role: 'admin', iat: now() - 7200, exp: now() - 3600 } })),
  },
  {
    name: 'wrong signature', outcome: { status: 401, error: 'Invalid token signature' },
    headers: async () => bearer(await mint('not-the-broker-secret-0123456789abcdef', { claims: { iss: ISSUER, role: 'admin' } })),
  },
  {
    name: 'wrong issuer', outcome: { status: 401, error: 'Invalid token issuer' },
    headers: async () => bearer(await mint(SECRET, { claims: { iss: 'https://someone-else.test', role: 'admin' } })),
  },
];

const setup = useBroker({ JWT_ENABLED: 'true', JWT_SECRET: SECRET, JWT_ISSUER: ISSUER });
/** One request; the body is parsed only when it is JSON (/metrics/prometheus is text). */
async function send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<TestResponse<any>> {
  const res = await fetch(`${setup.broker.url}${path}`, {
    method, headers, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('application/json') && text !== '' ? JSON.parse(text) : undefined;
  return { status: res.status, headers: res.headers, text, json };
}
const admin = async (): Promise<Record<string, string>> => CALLERS[3]!.headers();

/** Runs `tasks` with at most `width` in flight. */
async function inBatches<T>(tasks: Array<() => Promise<T>>, width = 24): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < tasks.length; i += width) results.push(...(await Promise.all(tasks.slice(i, i + width).map((t) => t()))));
  return results;
}

test('access-level matrix: every route of docs/api.md 3 x seven callers', async () => {
  const unserved = new Set<number>();
  const adminHeaders = await admin();
  await inBatches(ROUTE_TABLE.filter(([n]) => MAYBE_UNSERVED.has(n)).map(([n, method, path]) => async () => {
    const res = await send(method, withQuery(concrete(path)), adminHeaders, method === 'POST' ? {} : undefined);
    if (res.status === 404 && isNoRoute(res.json)) unserved.add(n);
  }));

  const headers = await Promise.all(CALLERS.map((c) => c.headers()));
  const failures: string[] = [];
  const tasks = ROUTE_TABLE.flatMap(([n, method, path, level]) => CALLERS.map((caller, i) => async () => {
    const res = await send(method, withQuery(concrete(path)), headers[i]!, method === 'POST' ? {} : undefined);
    const where = `#${n} ${method} ${path} as ${caller.name}: got ${res.status} ${res.text.slice(0, 120)}`;
    if (unserved.has(n)) {
      if (res.status !== 404 || !isNoRoute(res.json)) failures.push(`${where} (unserved row: expected 404 Not Found)`);
      return;
    }
    const refusedBy401 = 'status' in caller.outcome && level !== 'PUBLIC';
    if (refusedBy401 && 'status' in caller.outcome) {
      if (res.status !== 401 || res.json?.error !== caller.outcome.error || Object.keys(res.json).length !== 1) {
        failures.push(`${where} (expected 401 ${caller.outcome.error})`);
      }
    } else if ('level' in caller.outcome && RANK[caller.outcome.level] < RANK[level]) {
      if (res.status !== 403 || res.text !== '{"error":"Insufficient permissions"}') failures.push(`${where} (expected 403 Insufficient permissions)`);
    } else if (res.status === 401 || res.status === 403 || (res.status === 404 && isNoRoute(res.json))) {
      failures.push(`${where} (expected the route to answer)`);
    }
  }));
  await inBatches(tasks);
  assert.deepEqual(failures, []);
  const served = ROUTE_TABLE.length - unserved.size;
  assert.ok(served >= 52, `at least the 52 rows served before maintenance and streams (served ${served})`);
});

describe('order of checks', () => {
  test('unknown routes stay 404 with or without a token', async () => {
    for (const headers of [{}, await admin()]) {
      for (const [method, path] of [['GET', '/api/v1/nothing'], ['PUT', '/api/v1/push'], ['GET', '/api/v1/replication/status'], ['GET', '/streams/v1/nope']]) {
        const res = await send(method!, path!, headers);
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.deepEqual(res.json, { error: `Not Found: no route for ${method} ${path}` });
      }
    }
  });

  test('401 and 403 come before the body is read: invalid JSON, empty body, too large', async () => {
    const ro = await CALLERS[1]!.headers();
    const rw = await CALLERS[2]!.headers();
    for (const body of ['{not json', '']) {
      const none = await send('POST', '/api/v1/push', { 'Content-Type': 'application/json' }, body);
      assert.equal(none.status, 401);
      assert.deepEqual(none.json, { error: 'Authentication required' });
      const low = await send('POST', '/api/v1/push', { ...ro, 'Content-Type': 'application/json' }, body);
      assert.equal(low.status, 403);
      assert.deepEqual(low.json, { error: 'Insufficient permissions' });
      const ok = await send('POST', '/api/v1/push', { ...rw, 'Content-Type': 'application/json' }, body);
      assert.equal(ok.status, 400);
      assert.match(ok.json.error, body === '' ? /^Empty request body$/ : /^Invalid JSON: /);
    }
  });

  test('401 comes before a malformed path or query encoding', async () => {
    const res = await send('GET', '/api/v1/resources/queues/%E0%A4%A', {});
    assert.equal(res.status, 401);
    assert.deepEqual(res.json, { error: 'Authentication required' });
    const pop = await send('GET', '/api/v1/pop/queue/%ZZ?wait=false', {});
    assert.equal(pop.status, 401);
    const authorized = await send('GET', '/api/v1/resources/queues/%E0%A4%A', await admin());
    assert.equal(authorized.status, 400);
    assert.deepEqual(authorized.json, { error: 'Malformed URL encoding' });
  });
});

describe('the Authorization header (docs/api.md 1.11)', () => {
  test('Bearer in any case, or the bare token', async () => {
    const token = await mint(SECRET, { claims: { iss: ISSUER, role: 'read-only' } });
    for (const value of [`Bearer ${token}`, `bearer ${token}`, `BEARER ${token}`, `Bearer   ${token}`, token]) {
      const res = await send('GET', '/api/v1/resources/queues', { Authorization: value });
      assert.equal(res.status, 200, value.slice(0, 12));
    }
  });

  test('an empty header or the scheme alone: Authentication required', async () => {
    for (const value of ['', 'Bearer', 'Bearer ']) {
      const res = await send('GET', '/api/v1/resources/queues', { Authorization: value });
      assert.equal(res.status, 401);
      assert.deepEqual(res.json, { error: 'Authentication required' });
    }
  });

  test('garbage: Token decode error; another algorithm: Token uses HS384, expected HS256', async () => {
    const garbage = await send('GET', '/api/v1/status', { Authorization: 'Bearer not-a-jwt' });
    assert.equal(garbage.status, 401);
    assert.match(garbage.json.error, /^Token decode error: .+/);
    const hs384 = await send('GET', '/api/v1/status', bearer(await mint(SECRET, { alg: 'HS384', claims: { iss: ISSUER, role: 'admin' } })));
    assert.equal(hs384.status, 401);
    assert.deepEqual(hs384.json, { error: 'Token uses HS384, expected HS256' });
  });

  test('a token with no recognised role: 403 on every protected route, even READ_ONLY ones', async () => {
    const headers = bearer(await mint(SECRET, { claims: { iss: ISSUER, sub: 'nobody', role: 'viewer', roles: ['guest'] } }));
    for (const [method, path] of [['GET', '/api/v1/status'], ['GET', '/api/v1/resources/queues'], ['POST', '/api/v1/push']]) {
      const res = await send(method!, path!, headers, method === 'POST' ? { items: [] } : undefined);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.deepEqual(res.json, { error: 'Insufficient permissions' });
    }
  });
});

describe('never authenticated', () => {
  test('OPTIONS on any path: 204 without a token (docs/api.md 1.3)', async () => {
    for (const path of ['/api/v1/push', '/api/v1/system/maintenance', '/api/v1/resources/queues/x', '/nowhere']) {
      const res = await send('OPTIONS', path, {});
      assert.equal(res.status, 204, path);
    }
  });

  test('PUBLIC routes ignore even a bad token', async () => {
    for (const path of ['/health', '/metrics', '/metrics/prometheus']) {
      for (const headers of [{}, { Authorization: 'Bearer garbage' }, await CALLERS[4]!.headers()]) {
        assert.equal((await send('GET', path, headers)).status, 200, path);
      }
    }
  });
});

describe('producerSub is the token subject (docs/api.md 9.7 rule 7)', () => {
  const writer = async (sub: string): Promise<Record<string, string>> => bearer(await mint(SECRET, { claims: { iss: ISSUER, sub, role: 'read-write' } }));

  test('push: the token sub is stamped; a producerSub in the body is ignored', async () => {
    const queue = uniqueQueue('auth-sub');
    const headers = await writer('producer-alice');
    const pushed = await send('POST', '/api/v1/push', headers, {
      items: [{ queue, payload: { n: 1 }, producerSub: 'mallory' }, { queue, payload: { n: 2 }, producer_sub: 'mallory' }],
    });
    assert.equal(pushed.status, 201);
    const popped = await send('GET', `/api/v1/pop/queue/${queue}?batch=10&wait=false`, headers);
    assert.equal(popped.status, 200);
    assert.deepEqual(popped.json.messages.map((m: { producerSub: unknown; data: unknown }) => [m.data, m.producerSub]), [
      [{ n: 1 }, 'producer-alice'], [{ n: 2 }, 'producer-alice'],
    ]);
  });

  test('POST /api/v1/transaction: the token sub is stamped; a producerSub in the body is ignored', async () => {
    const queue = uniqueQueue('auth-sub-tx');
    const headers = await writer('producer-bob');
    const tx = await send('POST', '/api/v1/transaction', headers, {
      producerSub: 'mallory',
      operations: [{ type: 'push', producerSub: 'mallory', items: [{ queue, payload: { t: 1 }, producerSub: 'mallory' }] }],
    });
    assert.equal(tx.status, 200);
    assert.equal(tx.json.success, true, tx.text);
    const popped = await send('GET', `/api/v1/pop/queue/${queue}?wait=false`, headers);
    assert.equal(popped.status, 200);
    assert.equal(popped.json.messages[0].producerSub, 'producer-bob');
    assert.deepEqual(popped.json.messages[0].data, { t: 1 });
  });

  test('a token without sub stamps null', async () => {
    const queue = uniqueQueue('auth-nosub');
    const headers = bearer(await mint(SECRET, { claims: { iss: ISSUER, role: 'read-write' } }));
    assert.equal((await send('POST', '/api/v1/push', headers, { items: [{ queue, payload: 1 }] })).status, 201);
    const popped = await send('GET', `/api/v1/pop/queue/${queue}?wait=false`, headers);
    assert.equal(popped.json.messages[0].producerSub, null);
  });
});

describe('auth off (the default)', () => {
  const off = useBroker();

  test('no token needed anywhere; producerSub is null even when the body names one', async () => {
    const queue = uniqueQueue('auth-off');
    const api = off.api;
    const garbage = { Authorization: 'Bearer garbage' };
    const refresh = await request(off.broker.url, 'POST', '/api/v1/stats/refresh', {}, garbage);
    assert.ok(refresh.status !== 401 && refresh.status !== 403, `ADMIN route without auth: ${refresh.status}`);
    assert.equal((await request(off.broker.url, 'GET', '/api/v1/resources/queues', undefined, garbage)).status, 200);
    assert.equal((await api.push([{ queue, payload: 1, producerSub: 'mallory' }])).status, 201);
    const tx = await api.post('/api/v1/transaction', { operations: [{ type: 'push', items: [{ queue, payload: 2, producerSub: 'mallory' }] }] });
    assert.equal(tx.json.success, true);
    const popped = await api.get(`/api/v1/pop/queue/${queue}?batch=10&wait=false`);
    assert.deepEqual(popped.json.messages.map((m: { producerSub: unknown }) => m.producerSub), [null, null]);
  });
});
