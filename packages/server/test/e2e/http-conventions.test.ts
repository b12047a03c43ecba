/**
 * Global HTTP conventions (docs/api.md 1.2, 1.3, 1.6, 1.7), GET /health (4.1) and shutdown (9.8, 5.15 rule 9).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  client, request, startBroker, uniqueQueue, useBroker, type BrokerProcess, type TestDatabase, type TestResponse,
} from '../support/harness.js';

const CORS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
  'access-control-allow-headers': 'Content-Type, Authorization, traceparent, tracestate',
  'access-control-expose-headers': 'X-Queen-Empty-Reason, X-Queen-Status, Retry-After',
};
const PACKAGE_VERSION = (JSON.parse(fs.readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../package.json'), 'utf8')) as { version: string }).version;

const setup = useBroker();

/** With CORS_ORIGINS=*: the four CORS headers on every response (docs/api.md 1.3). */
function assertCorsAny(res: TestResponse, what: string): void {
  for (const [name, value] of Object.entries(CORS)) assert.equal(res.headers.get(name), value, `${what}: ${name}`);
}

/** By default (no CORS_ORIGINS), a request without Origin gets no CORS headers. */
function assertCors(res: TestResponse, what: string): void {
  for (const name of Object.keys(CORS)) assert.equal(res.headers.get(name), null, `${what}: ${name}`);
}

function assertJson(res: TestResponse, what: string): void {
  const type = res.headers.get('content-type') ?? '';
  assert.equal(type.split(';')[0]!.trim().toLowerCase(), 'application/json', `${what}: content-type ${type}`);
}

async function queueExists(name: string, database: TestDatabase = setup.db): Promise<boolean> {
  const r = await database.query('SELECT 1 FROM queen.queues WHERE name = $1', [name]);
  return (r.rowCount ?? 0) > 0;
}

/**
 * A raw chunked POST (no Content-Length) that writes `chunks` and then keeps the request open, never ending
 * it: a broker that enforces the limit while reading must answer without waiting for the end of the body.
 */
function rawChunkedNeverEnding(url: string, pathName: string, chunks: string[]): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(new URL(pathName, url), {
      method: 'POST',
      agent: false,
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
    }, (res) => {
      answered = true;
      clearTimeout(timer);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
        req.destroy();
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error('no answer within 10 s while the body was still open'));
    }, 10_000);
    req.on('error', (error) => {
      if (!answered) {
        clearTimeout(timer);
        reject(error);
      }
    });
    for (const chunk of chunks) req.write(chunk);
  });
}

/** A GET without keep-alive (`Connection: close`). */
function rawGet(url: string, pathName: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(pathName, url), { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

describe('cross-origin access by default: same-origin pages and clients without Origin only', () => {
  test('no CORS headers; a page of another origin gets 403 before the route runs, even for a simple POST', async () => {
    const queue = uniqueQueue('cors-default');
    const own = { Origin: setup.broker.url };
    const evil = { Origin: 'http://evil.example' };
    const plain = await setup.api.post('/api/v1/configure', { queue });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('access-control-allow-origin'), null);
    const same = await request(setup.broker.url, 'POST', '/api/v1/push', { items: [{ queue, payload: 1 }] }, own);
    assert.equal(same.status, 201, 'the dashboard (same origin) works');
    for (const [method, route, body] of [
      ['GET', `/api/v1/pop/queue/${queue}?autoAck=true&wait=false`, undefined],
      ['DELETE', `/api/v1/resources/queues/${queue}`, undefined],
      ['POST', '/api/v1/push', JSON.stringify({ items: [{ queue, payload: 2 }] })],
    ] as const) {
      const res = await request(setup.broker.url, method, route, body, { ...evil, 'Content-Type': 'text/plain' });
      assert.deepEqual([res.status, res.json], [403, { error: 'Origin not allowed (set CORS_ORIGINS)' }], `${method} ${route}`);
      assert.equal(res.headers.get('access-control-allow-origin'), null);
    }
    const preflight = await request(setup.broker.url, 'OPTIONS', '/api/v1/push', undefined, evil);
    assert.equal(preflight.status, 403);
    assert.equal(await queueExists(queue), true, 'the DELETE did not run');
    const stored = await setup.db.query(`SELECT count(*)::int AS n FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id JOIN queen.segments s ON s.partition_id = p.id WHERE q.name = $1`, [queue]);
    assert.equal(stored.rows[0]!.n, 1, 'only the same-origin push was stored');
  });
});

describe('CORS_ORIGINS lists origins', () => {
  let listed: BrokerProcess;
  before(async () => {
    listed = await startBroker(setup.db, { CORS_ORIGINS: 'https://ops.example.com, http://localhost:5173/' });
  });
  after(async () => {
    await listed?.stop();
  });

  test('a listed origin gets its own Access-Control-Allow-Origin and Vary: Origin; others get 403', async () => {
    const ok = await request(listed.url, 'GET', '/health', undefined, { Origin: 'http://localhost:5173' });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), 'http://localhost:5173');
    assert.equal(ok.headers.get('vary'), 'Origin');
    assert.equal(ok.headers.get('access-control-expose-headers'), 'X-Queen-Empty-Reason, X-Queen-Status, Retry-After');
    const preflight = await request(listed.url, 'OPTIONS', '/api/v1/push', undefined, { Origin: 'https://ops.example.com' });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, POST, PUT, DELETE, OPTIONS');
    assert.equal((await request(listed.url, 'GET', '/health', undefined, { Origin: 'https://other.example.com' })).status, 403);
  });
});

describe('CORS headers and content types with CORS_ORIGINS=*', () => {
  const setup = useBroker({ CORS_ORIGINS: '*' });
  test('every response carries the four CORS headers: 200, 201, 204, 400, 404, and the admin 200 + X-Queen-Status', async () => {
    const queue = uniqueQueue('cors');
    const responses: Array<[string, TestResponse, number]> = [];
    responses.push(['GET /health', await setup.api.get('/health'), 200]);
    responses.push(['POST configure', await setup.api.post('/api/v1/configure', { queue }), 200]);
    responses.push(['POST push', await setup.api.push([{ queue, payload: 1 }]), 201]);
    responses.push(['GET pop', await setup.api.get(`/api/v1/pop/queue/${queue}?autoAck=true`), 200]);
    responses.push(['GET empty pop', await setup.api.get(`/api/v1/pop/queue/${queue}`), 204]);
    responses.push(['POST ack', await setup.api.post('/api/v1/ack', { transactionId: 'nope', partitionId: 'nope' }), 200]);
    responses.push(['POST push empty body', await setup.api.post('/api/v1/push', ''), 400]);
    responses.push(['GET pop 400', await setup.api.get('/api/v1/pop'), 400]);
    responses.push(['GET unknown', await setup.api.get('/api/v1/no-such-route'), 404]);
    const missing = await setup.api.get(`/api/v1/resources/queues/${uniqueQueue('missing')}`);
    responses.push(['GET missing queue', missing, 200]);
    for (const [what, res, status] of responses) {
      assert.equal(res.status, status, what);
      assertCorsAny(res, what);
      if (status !== 204) assertJson(res, what);
    }
    assert.equal(missing.headers.get('x-queen-status'), '404');
    const empty = responses.find(([what]) => what === 'GET empty pop')![1];
    assert.equal(empty.text, '');
    assert.equal(empty.headers.get('x-queen-empty-reason'), 'none');
  });

  test('OPTIONS on any path: 204, no body, CORS headers and Access-Control-Max-Age: 86400', async () => {
    const queue = uniqueQueue('options');
    for (const p of ['/api/v1/push', '/health', '/does/not/exist', '/', `/api/v1/pop/queue/${queue}?wait=true&timeout=30000`,
      '/api/v1/resources/queues/%ZZ', '/internal/api/x']) {
      const started = Date.now();
      const res = await request(setup.broker.url, 'OPTIONS', p);
      assert.equal(res.status, 204, p);
      assert.equal(res.text, '', p);
      assert.equal(res.headers.get('access-control-max-age'), '86400', p);
      assertCorsAny(res, `OPTIONS ${p}`);
      assert.ok(Date.now() - started < 5000, 'OPTIONS must not run the route (no long poll)');
    }
    assert.equal(await queueExists(queue, setup.db), false, 'OPTIONS must not run the pop route');
  });

  test('a JSON 200 is never a zero-length body', async () => {
    const res = await setup.api.post('/api/v1/ack/batch', { acknowledgments: [] });
    assert.equal(res.status, 200);
    assert.equal(res.text, '[]');
    assertJson(res, 'ack/batch []');
  });
});

describe('routing', () => {
  test('unknown routes and wrong methods answer 404 naming the method and the path', async () => {
    const cases: Array<[string, string]> = [
      // GET of any other path is the dashboard (docs/dashboard.md, dashboard-static.test.ts).
      ['GET', '/api/nope'],
      ['GET', '/internal/api/nope'],
      ['POST', '/nope'],
      ['GET', '/api/v1/nope'],
      ['GET', '/api/v2/push'],
      ['GET', '/api/v1/push'],
      ['PUT', '/api/v1/push'],
      ['DELETE', '/api/v1/push'],
      ['POST', '/health'],
      ['DELETE', '/health'],
      ['GET', '/api/v1/configure'],
      ['PUT', '/api/v1/configure'],
      ['POST', '/api/v1/pop/queue/some-queue'],
      ['DELETE', '/api/v1/pop'],
      ['GET', '/api/v1/ack'],
      ['PATCH', '/api/v1/resources/queues/some-queue'],
      ['GET', '/api/v1/resources/queues/a/b'],
      ['GET', '/api/v1/pop/queue/q/partition/p/extra'],
      ['GET', '/api/v1/migration/x'],
      ['POST', '/api/v1/migration/x'],
      ['GET', '/internal/api/x'],
      ['POST', '/internal/api/x'],
      ['GET', '/api/v1/stream/x'],
      ['POST', '/api/v1/stream/x'],
    ];
    for (const [method, p] of cases) {
      const body = method === 'POST' || method === 'PUT' || method === 'PATCH' ? { items: [] } : undefined;
      const res = await request(setup.broker.url, method, p, body);
      assert.equal(res.status, 404, `${method} ${p}`);
      assert.deepEqual(res.json, { error: `Not Found: no route for ${method} ${p}` }, `${method} ${p}`);
      assertJson(res, `${method} ${p}`);
      assertCors(res, `${method} ${p}`);
    }
  });

  test('one trailing slash is ignored', async () => {
    const queue = uniqueQueue('slash');
    const health = await setup.api.get('/health/');
    assert.equal(health.status, 200);
    assert.equal(health.json.status, 'healthy');
    const push = await setup.api.post('/api/v1/push/', { items: [{ queue, payload: 'x' }] });
    assert.equal(push.status, 201);
    assert.equal(push.json[0].status, 'queued');
    const detail = await setup.api.get(`/api/v1/resources/queues/${queue}/`);
    assert.equal(detail.status, 200);
    assert.equal(detail.json.name, queue);
    const pop = await setup.api.get(`/api/v1/pop/queue/${queue}/?autoAck=true`);
    assert.equal(pop.status, 200);
    assert.equal(pop.json.messages[0].data, 'x');
    const popPartition = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/Default/`);
    assert.equal(popPartition.status, 204);
  });

  test('path segments are percent-decoded on the pop routes: %2F is part of the name', async () => {
    const queue = `${uniqueQueue('enc')}/with slash`;
    const partition = 'p/1 ü';
    const push = await setup.api.push([{ queue, partition, payload: 'encoded' }]);
    assert.equal(push.json[0].status, 'queued');
    const res = await setup.api.get(`/api/v1/pop/queue/${encodeURIComponent(queue)}/partition/${encodeURIComponent(partition)}?autoAck=true`);
    assert.equal(res.status, 200);
    assert.equal(res.json.queue, queue);
    assert.equal(res.json.partition, partition);
    assert.equal(res.json.messages[0].data, 'encoded');
  });
});

describe('request bodies', () => {
  test('empty body -> 400 {"error":"Empty request body"} on every route that reads one', async () => {
    for (const p of ['/api/v1/push', '/api/v1/configure', '/api/v1/ack', '/api/v1/ack/batch']) {
      for (const body of ['', undefined]) {
        const res = await setup.api.post(p, body);
        assert.equal(res.status, 400, `${p} ${JSON.stringify(body)}`);
        assert.deepEqual(res.json, { error: 'Empty request body' });
        assertJson(res, p);
      }
    }
  });

  test('lease extend treats an empty body as {}', async () => {
    const leaseId = '0198f2d3-1b2c-7a00-8c11-5e6f708192a3';
    const res = await setup.api.post(`/api/v1/lease/${leaseId}/extend`, '');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, [{ index: 0, leaseId, success: false, error: 'Lease not found', expiresAt: null, newExpiresAt: null }]);
  });

  test('unparsable JSON -> 400 "Invalid JSON: <parser message>"', async () => {
    for (const text of ['{bad', '{"items": [}', 'undefined', "{'items': []}", '{"items": []} trailing']) {
      const res = await setup.api.post('/api/v1/push', text);
      assert.equal(res.status, 400, text);
      assert.deepEqual(Object.keys(res.json), ['error']);
      assert.ok(res.json.error.startsWith('Invalid JSON: '), res.json.error);
      assert.ok(res.json.error.length > 'Invalid JSON: '.length, 'the parser message follows the prefix');
    }
  });

  test('valid JSON that is not an object -> 400 "Request body must be a JSON object", nothing written', async () => {
    const queue = uniqueQueue('notobject');
    for (const text of ['[]', JSON.stringify([{ queue, payload: 1 }]), '"str"', '42', 'null', 'true']) {
      const res = await setup.api.post('/api/v1/push', text);
      assert.equal(res.status, 400, text);
      assert.deepEqual(res.json, { error: 'Request body must be a JSON object' });
    }
    const configure = await setup.api.post('/api/v1/configure', JSON.stringify([{ queue }]));
    assert.equal(configure.status, 400);
    assert.deepEqual(configure.json, { error: 'Request body must be a JSON object' });
    assert.equal(await queueExists(queue), false);
  });

  test('the request Content-Type is not checked', async () => {
    const queue = uniqueQueue('ctype');
    const res = await request(setup.broker.url, 'POST', '/api/v1/push', JSON.stringify({ items: [{ queue, payload: 'ct' }] }), { 'Content-Type': 'text/plain' });
    assert.equal(res.status, 201);
    assert.equal(res.json[0].status, 'queued');
    const other = await request(setup.broker.url, 'POST', '/api/v1/configure', JSON.stringify({ queue }), { 'Content-Type': 'application/x-www-form-urlencoded' });
    assert.equal(other.status, 200);
    assert.equal(other.json.configured, true);
  });
});

describe('query strings', () => {
  test('malformed escape on a pop route: 400 in the pop shape, no side effect', async () => {
    const queue = uniqueQueue('malformed');
    const cases = [
      `/api/v1/pop/queue/${queue}?consumerGroup=%ZZ`,
      `/api/v1/pop/queue/${queue}?batch=%E0%A4%A`,
      `/api/v1/pop/queue/${queue}/partition/Default?consumerGroup=ok&x=%`,
      '/api/v1/pop?task=t&consumerGroup=%ZZ',
      '/api/v1/pop/queue/%ZZ',
      `/api/v1/pop/queue/${queue}/partition/%ZZ`,
    ];
    for (const p of cases) {
      const res = await setup.api.get(p);
      assert.equal(res.status, 400, p);
      assert.equal(res.text.length > 0, true);
      assert.deepEqual(res.json, { success: false, error: 'Malformed URL encoding', messages: [] }, p);
      assertCors(res, p);
      assertJson(res, p);
    }
    assert.equal(await queueExists(queue), false, 'a 400 pop must not create the queue');
  });

  test('malformed escape on a non-pop route: 400 {"error":"Malformed URL encoding"}', async () => {
    const queue = uniqueQueue('malformed2');
    await setup.api.post('/api/v1/configure', { queue });
    const cases: Array<[string, string]> = [
      ['GET', '/api/v1/resources/queues/%ZZ'],
      ['DELETE', '/api/v1/resources/queues/%ZZ'],
      ['GET', `/api/v1/resources/queues/${queue}?x=%ZZ`],
      ['DELETE', `/api/v1/resources/queues/${queue}?x=%G1`],
    ];
    for (const [method, p] of cases) {
      const res = await request(setup.broker.url, method, p);
      assert.equal(res.status, 400, `${method} ${p}`);
      assert.deepEqual(res.json, { error: 'Malformed URL encoding' }, `${method} ${p}`);
      assertCors(res, p);
    }
    assert.equal(await queueExists(queue), true, 'the DELETE with a malformed query must not have run');
  });

  test('form decoding: + is a space, first occurrence wins, empty value is absent, unknown keys ignored', async () => {
    const queue = uniqueQueue('form');
    await setup.api.push(Array.from({ length: 4 }, (_, i) => ({ queue, payload: i })));
    const spaced = await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=my+group&autoAck=true&unknownKey=1`);
    assert.equal(spaced.status, 200);
    assert.equal(spaced.json.consumerGroup, 'my group');
    const encoded = await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=%C3%BC%2Bx&autoAck=true`);
    assert.equal(encoded.json.consumerGroup, 'ü+x');
    const first = await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=g1&consumerGroup=g2&autoAck=true&batch=2&batch=1`);
    assert.equal(first.json.consumerGroup, 'g1');
    assert.equal(first.json.messages.length, 2);
    const empty = await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=&autoAck=true&batch=`);
    assert.equal(empty.json.consumerGroup, '__QUEUE_MODE__');
    assert.equal(empty.json.messages.length, 1, 'batch= is absent: DEFAULT_BATCH_SIZE 1');
    const caseSensitive = await setup.api.get(`/api/v1/pop/queue/${queue}?ConsumerGroup=x&autoAck=true&Batch=3`);
    assert.equal(caseSensitive.json.consumerGroup, '__QUEUE_MODE__');
    assert.equal(caseSensitive.json.messages.length, 1);
    const bools = await setup.api.get(`/api/v1/pop/queue/${queue}?autoAck=1&consumerGroup=g3`);
    assert.equal(bools.json.leaseId, '', 'autoAck=1 is true');
    const notFalse = await setup.api.get(`/api/v1/pop/queue/${queue}?autoAck=0&consumerGroup=g4`);
    assert.notEqual(notFalse.json.leaseId, '', 'autoAck=0 is false');
    // Any other value cannot mean anything: a 400 naming the parameter (`TRUE` included: only true/false/1/0).
    for (const value of ['yes', 'TRUE']) {
      const refused = await setup.api.get(`/api/v1/pop/queue/${queue}?autoAck=${value}&consumerGroup=g5`);
      assert.deepEqual([refused.status, refused.json], [400, { success: false, error: `Invalid autoAck: must be true or false (or 1 or 0) (got "${value}")`, messages: [] }]);
    }
  });

  test('integers: optional sign and digits below 2^53; anything else on batch is a 400 naming it', async () => {
    const queue = uniqueQueue('ints');
    await setup.api.push(Array.from({ length: 30 }, (_, i) => ({ queue, payload: i })));
    // [raw, messages delivered], or null for a 400.
    const cases: Array<[string, number | null]> = [
      ['%2B3', 3], // "+3"
      ['+3', null], // "+" is a space: " 3" is not an integer
      ['2.5', null],
      ['1e2', null],
      ['0x10', null],
      ['9007199254740993', null],
      ['-5', null], // below 1
      ['4', 4],
      ['0004', 4],
    ];
    let expectedPayload = 0;
    for (const [raw, count] of cases) {
      const res = await setup.api.get(`/api/v1/pop/queue/${queue}?autoAck=true&batch=${raw}`);
      if (count === null) {
        assert.equal(res.status, 400, raw);
        assert.match(res.json.error, /^Invalid batch: must be an integer from 1 to 10000 \(got ".*"\)$/, raw);
        continue;
      }
      assert.equal(res.status, 200, raw);
      assert.deepEqual(res.json.messages.map((m: any) => m.data), Array.from({ length: count }, (_, i) => expectedPayload + i), `batch=${raw}`);
      expectedPayload += count;
    }
  });

  test('pop parameters that cannot mean anything: 400 naming the parameter and what it accepts, on all three routes', async () => {
    const queue = uniqueQueue('badparams');
    await setup.api.push([{ queue, partition: 'P', payload: 1 }]);
    const expected: Array<[string, string]> = [
      ['wait=maybe', 'Invalid wait: must be true or false (or 1 or 0) (got "maybe")'],
      ['timeout=abc', 'Invalid timeout: must be an integer of milliseconds up to 600000 (0 or less: one attempt) (got "abc")'],
      ['timeout=1.5', 'Invalid timeout: must be an integer of milliseconds up to 600000 (0 or less: one attempt) (got "1.5")'],
      ['batch=-5', 'Invalid batch: must be an integer from 1 to 10000 (got "-5")'],
      ['partitions=many', 'Invalid partitions: must be an integer (0 or less: no limit) (got "many")'],
    ];
    for (const route of [`/api/v1/pop/queue/${queue}`, `/api/v1/pop/queue/${queue}/partition/P`, `/api/v1/pop?namespace=${queue}`]) {
      for (const [param, error] of expected) {
        const res = await setup.api.get(`${route}${route.includes('?') ? '&' : '?'}${param}`);
        assert.deepEqual([res.status, res.json], [400, { success: false, error, messages: [] }], `${route} ${param}`);
      }
    }
    // The seed's "treated as absent" rules stand: leaseSeconds <= 0 is the queue's lease, an unparseable
    // subscriptionFrom is ignored, partitions <= 0 is no limit; and the message is still there to pop.
    const kept = await setup.api.get(`/api/v1/pop/queue/${queue}?leaseSeconds=-3&subscriptionFrom=yesterday&partitions=0&wait=false&timeout=0`);
    assert.equal(kept.status, 200, kept.text);
    assert.equal(kept.json.messages.length, 1);
  });
});

describe('GET /health', () => {
  test('exact shape', async () => {
    const res = await setup.api.get('/health');
    assert.equal(res.status, 200);
    assertJson(res, 'health');
    const h = res.json;
    assert.deepEqual(Object.keys(h).sort(), ['buffer', 'database', 'database_server', 'queen', 'server', 'shared_state', 'status', 'version', 'worker_id']);
    assert.deepEqual(h.buffer, { state: 'idle', buffered_messages: 0, detail: 'empty' });
    assert.equal(h.status, 'healthy');
    assert.equal(h.database, 'connected');
    const { PG_HOST, PG_PORT } = setup.db.env;
    if (PG_HOST !== undefined) assert.equal(h.database_server, `${PG_HOST}:${PG_PORT ?? 5432}`, 'the PostgreSQL server in use');
    else assert.match(h.database_server, /:\d+$/);
    assert.equal(h.server, 'Queen TS Broker');
    assert.equal(h.worker_id, 0);
    assert.equal(h.version, PACKAGE_VERSION);
    assert.equal(h.version, '1.0.0');
    assert.deepEqual(h.queen, { worker_id: 0, status: 'active' });
    const s = h.shared_state;
    assert.deepEqual(Object.keys(s).sort(), ['enabled', 'maintenance_mode', 'pop_maintenance_mode', 'queue_config_cache', 'running',
      'server_health', 'server_id', 'transport'].sort());
    assert.equal(typeof s.enabled, 'boolean');
    assert.equal(typeof s.running, 'boolean');
    assert.equal(s.server_id, `${os.hostname()}:${setup.broker.process.pid}`);
    assert.equal(typeof s.transport, 'string');
    assert.deepEqual(Object.keys(s.queue_config_cache).sort(), ['hit_rate', 'hits', 'misses', 'size']);
    for (const v of Object.values(s.queue_config_cache)) assert.equal(typeof v, 'number');
    assert.deepEqual(Object.keys(s.server_health).sort(),
      ['heartbeats_received', 'restarts_detected', 'servers_alive', 'servers_dead', 'servers_tracked']);
    for (const v of Object.values(s.server_health)) assert.equal(typeof v, 'number');
    assert.equal(s.maintenance_mode, false);
    assert.equal(s.pop_maintenance_mode, false);
  });

  test('queue_config_cache counts the look-ups of the queue-options cache', async () => {
    const queue = uniqueQueue('cache');
    assert.equal((await setup.api.push([{ queue, payload: 1 }, { queue, payload: 2 }])).status, 201);
    const before = (await setup.api.get('/health')).json.shared_state.queue_config_cache;
    // An autoAck pop reads the queue's encryption flags: a miss the first time, a hit the second.
    for (let i = 0; i < 2; i++) assert.equal((await setup.api.get(`/api/v1/pop/queue/${queue}?autoAck=true`)).status, 200);
    const after = (await setup.api.get('/health')).json.shared_state.queue_config_cache;
    assert.equal(after.misses, before.misses + 1);
    assert.equal(after.hits, before.hits + 1);
    assert.ok(after.size >= 1);
    assert.equal(after.hit_rate, Number((after.hits / (after.hits + after.misses)).toFixed(4)));
  });
});

describe('MAX_PAYLOAD_BYTES', () => {
  let small: BrokerProcess;
  let smallApi: ReturnType<typeof client>;
  before(async () => {
    small = await startBroker(setup.db, { MAX_PAYLOAD_BYTES: '1000' });
    smallApi = client(small.url);
  });
  after(async () => {
    await small?.stop();
  });

  /** A push body of exactly `size` bytes. */
  function pushBodyOfSize(queue: string, size: number): string {
    const empty = JSON.stringify({ items: [{ queue, payload: '' }] });
    const body = JSON.stringify({ items: [{ queue, payload: 'x'.repeat(size - empty.length) }] });
    assert.equal(Buffer.byteLength(body), size);
    return body;
  }

  test('a 5000-byte body -> 413 {"error":"Payload too large"}, nothing stored, the broker keeps serving', async () => {
    const queue = uniqueQueue('big');
    const res = await smallApi.post('/api/v1/push', pushBodyOfSize(queue, 5000));
    assert.equal(res.status, 413);
    assert.deepEqual(res.json, { error: 'Payload too large' });
    assertCors(res, '413');
    assertJson(res, '413');
    assert.equal(await queueExists(queue), false, 'nothing of a 413 request is applied');

    const next = await smallApi.push([{ queue, payload: 'small' }]);
    assert.equal(next.status, 201);
    assert.equal(next.json[0].status, 'queued');
    const pop = await smallApi.get(`/api/v1/pop/queue/${queue}?batch=10&autoAck=true`);
    assert.deepEqual(pop.json.messages.map((m: any) => m.data), ['small']);
  });

  test('exactly MAX_PAYLOAD_BYTES is accepted, one byte more is a 413', async () => {
    const queue = uniqueQueue('edge');
    const ok = await smallApi.post('/api/v1/push', pushBodyOfSize(queue, 1000));
    assert.equal(ok.status, 201);
    assert.equal(ok.json[0].status, 'queued');
    const tooBig = await smallApi.post('/api/v1/push', pushBodyOfSize(`${queue}-2`, 1001));
    assert.equal(tooBig.status, 413);
    assert.deepEqual(tooBig.json, { error: 'Payload too large' });
    assert.equal(await queueExists(`${queue}-2`), false);
  });

  test('a chunked body without Content-Length is cut off at the limit too (answered before the body ends)', async () => {
    const queue = uniqueQueue('chunked');
    const body = pushBodyOfSize(queue, 5000);
    const chunks = Array.from({ length: 3 }, (_, i) => body.slice(i * 500, (i + 1) * 500));
    const res = await rawChunkedNeverEnding(small.url, '/api/v1/push', chunks);
    assert.equal(res.status, 413);
    assert.deepEqual(JSON.parse(res.text), { error: 'Payload too large' });
    assert.equal(res.headers['access-control-allow-origin'], undefined, 'no CORS headers by default');
    assert.equal(await queueExists(queue), false);
    const next = await smallApi.push([{ queue, payload: 'after' }]);
    assert.equal(next.status, 201);
  });

  test('the limit applies to every body-reading route (configure)', async () => {
    const queue = uniqueQueue('bigconf');
    const res = await smallApi.post('/api/v1/configure', JSON.stringify({ queue, options: {}, padding: 'p'.repeat(2000) }));
    assert.equal(res.status, 413);
    assert.deepEqual(res.json, { error: 'Payload too large' });
    assert.equal(await queueExists(queue), false);
  });
});

describe('shutdown', () => {
  test('SIGTERM: a parked long poll gets 204 shutdown, then the broker exits with code 0', async () => {
    const serverId = `http-conv-${uniqueQueue('sid')}`;
    const own = await startBroker(setup.db, { SERVER_ID: serverId });
    const ownApi = client(own.url);
    try {
      const health = await ownApi.get('/health');
      assert.equal(health.json.shared_state.server_id, serverId);

      const queue = uniqueQueue('parked');
      // A client without keep-alive, so that the exit does not also wait on an idle connection.
      let answeredAt = 0;
      const parked = rawGet(own.url, `/api/v1/pop/queue/${queue}?wait=true&timeout=20000`).then((res) => {
        answeredAt = Date.now();
        return res;
      });
      // The first attempt creates the queue row; once it exists the pop is in its attempt or parked.
      const deadline = Date.now() + 10_000;
      while (!(await queueExists(queue))) {
        assert.ok(Date.now() < deadline, 'the long poll never reached the broker');
        await new Promise((r) => setTimeout(r, 20));
      }
      const signalledAt = Date.now();
      const exited = own.stop();
      const res = await parked;
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.equal(res.headers['x-queen-empty-reason'], 'shutdown');
      for (const name of Object.keys(CORS)) assert.equal(res.headers[name], undefined, name);
      assert.ok(answeredAt - signalledAt < 10_000, `the parked pop was answered ${answeredAt - signalledAt} ms after SIGTERM`);
      assert.equal(await exited, 0);
      await assert.rejects(fetch(`${own.url}/health`), 'a stopped broker accepts no connections');
    } finally {
      await own.kill();
    }
  });

  test('SIGTERM: an open connection that never sent a request does not hold the exit', async () => {
    const own = await startBroker(setup.db);
    const socket = net.connect(own.port, '127.0.0.1');
    try {
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      const closedByBroker = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const signalledAt = Date.now();
      assert.equal(await own.stop(), 0);
      // The shutdown grace is 30 s: an exit well before it means the connection was closed, not waited out.
      assert.ok(Date.now() - signalledAt < 10_000, `the broker took ${Date.now() - signalledAt} ms to exit`);
      await closedByBroker;
    } finally {
      socket.destroy();
      await own.kill();
    }
  });

  test('SIGTERM: a request in flight (headers read, body still coming) is finished before the exit', async () => {
    const own = await startBroker(setup.db);
    try {
      const queue = uniqueQueue('inflight');
      const body = JSON.stringify({ items: [{ queue, payload: 'late body', transactionId: 'in-flight' }] });
      const req = http.request(new URL('/api/v1/push', own.url), {
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Expect: '100-continue' },
      });
      // `100 Continue` proves the broker has read the headers and dispatched the request.
      const continued = new Promise<void>((resolve) => req.once('continue', () => resolve()));
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        req.once('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.once('error', reject);
      });
      req.flushHeaders();
      await continued;
      const exited = own.stop();
      req.end(body);
      const res = await response;
      assert.equal(res.status, 201, res.text);
      assert.equal(JSON.parse(res.text)[0].status, 'queued');
      assert.equal(await exited, 0);
      const stored = await setup.db.query(
        'SELECT k.transaction_id FROM queen.message_keys k JOIN queen.partitions p ON p.id = k.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1',
        [queue],
      );
      assert.deepEqual(stored.rows.map((r) => r.transaction_id), ['in-flight']);
    } finally {
      await own.kill();
    }
  });
});
