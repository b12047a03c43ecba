/**
 * Transport policy against a tiny scripted HTTP server (docs/client.md): which failures are retried, back-off and
 * Retry-After, timeouts, caller aborts, headers and bearer token, body parsing, logging, and the transaction
 * exception (never replayed once the request may have reached a broker).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { QueenError } from '../src/index.js';
import { deadUrl, recordingLogger, scriptedServer, testClient, type ScriptedServer } from './support.js';

const servers: ScriptedServer[] = [];
async function serve(...args: Parameters<typeof scriptedServer>): Promise<ScriptedServer> {
  const s = await scriptedServer(...args);
  servers.push(s);
  return s;
}
after(async () => {
  for (const s of servers) await s.close();
});

const rejection = async (p: PromiseLike<unknown>): Promise<QueenError> => {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof QueenError, String(error));
    return error;
  }
  assert.fail('expected a rejection');
};

describe('retry policy', () => {
  test('5xx is retried with exponential back-off and then succeeds', async () => {
    const s = await serve([{ status: 500, body: { error: 'pool' } }, { status: 503, body: { error: 'pool' } }, { status: 200, body: { status: 'healthy' } }]);
    const q = testClient(s.url, { retryDelayMillis: 50 });
    assert.deepEqual(await q.admin.health(), { status: 'healthy' });
    assert.equal(s.seen.length, 3);
    const gap1 = s.seen[1]!.at - s.seen[0]!.at;
    const gap2 = s.seen[2]!.at - s.seen[1]!.at;
    assert.ok(gap1 >= 45, `first wait ${gap1}`);
    assert.ok(gap2 >= 95, `second wait doubles: ${gap2}`);
  });

  test('persistent 5xx rejects after retryAttempts with the last HTTP error', async () => {
    const s = await serve([{ status: 500, body: { error: 'statement timeout' } }]);
    const error = await rejection(testClient(s.url, { retryAttempts: 2 }).admin.getOverview());
    assert.equal(s.seen.length, 2);
    assert.equal(error.code, 'HTTP');
    assert.equal(error.status, 500);
    assert.equal(error.message, 'statement timeout');
    assert.deepEqual(error.body, { error: 'statement timeout' });
    assert.equal(error.url, s.url);
  });

  test('4xx other than 429 is never retried; message falls back to HTTP <status>: <text>', async () => {
    const s = await serve([{ status: 404, body: 'nope' }]);
    const error = await rejection(testClient(s.url).admin.getOverview());
    assert.equal(s.seen.length, 1);
    assert.equal(error.status, 404);
    assert.equal(error.message, 'HTTP 404: Not Found');
    assert.equal(error.body, 'nope');
  });

  test('429 is retried after Retry-After seconds', async () => {
    const s = await serve([{ status: 429, headers: { 'Retry-After': '1' }, body: { error: 'slow down' } }, { status: 200, body: { ok: 1 } }]);
    const q = testClient(s.url, { retryDelayMillis: 1 });
    assert.deepEqual(await q.admin.metrics(), { ok: 1 });
    const gap = s.seen[1]!.at - s.seen[0]!.at;
    assert.ok(gap >= 950, `waited ${gap} ms`);
  });

  test('503 (the database is unreachable) is retried after Retry-After seconds', async () => {
    const s = await serve([{ status: 503, headers: { 'Retry-After': '1' }, body: { error: 'Service Unavailable: the database is unreachable' } }, { status: 200, body: { ok: 1 } }]);
    const q = testClient(s.url, { retryDelayMillis: 1 });
    assert.deepEqual(await q.admin.metrics(), { ok: 1 });
    const gap = s.seen[1]!.at - s.seen[0]!.at;
    assert.ok(gap >= 950, `waited ${gap} ms`);
  });

  test('names "." and ".." never reach a path: VALIDATION before any request; dots inside a name are fine', async () => {
    const s = await serve([{ status: 200, body: {} }]);
    const q = testClient(s.url);
    for (const call of [
      () => q.admin.deleteConsumerGroupForQueue('G', '..'),
      () => q.admin.seekConsumerGroupPartition('G', 'q', '..', { toEnd: true }),
      () => q.admin.deleteConsumerGroup('.'),
    ]) {
      const error = await rejection(call());
      assert.equal(error.code, 'VALIDATION', error.message);
    }
    assert.equal(s.seen.length, 0, 'nothing was sent');
    await q.admin.deleteConsumerGroupForQueue('G', 'orders.v2');
    assert.equal(s.seen[0]!.url, '/api/v1/consumer-groups/G/queues/orders.v2?deleteMetadata=true');
  });

  test('network errors are retried and end as NETWORK', async () => {
    const q = testClient(await deadUrl(), { retryAttempts: 2 });
    const error = await rejection(q.admin.health());
    assert.equal(error.code, 'NETWORK');
  });
});

describe('timeouts and aborts', () => {
  test('timeoutMillis ends an attempt with TIMEOUT (retried like a network error)', async () => {
    const s = await serve([{ hang: true }]);
    const q = testClient(s.url, { timeoutMillis: 100, retryAttempts: 2 });
    const started = Date.now();
    const error = await rejection(q.admin.health());
    assert.equal(error.code, 'TIMEOUT');
    assert.equal(s.seen.length, 2);
    assert.ok(Date.now() - started >= 200);
  });

  test('a waiting pop gets timeout + 5000 ms of HTTP time and answers [] when it runs out', async () => {
    const s = await serve([{ hang: true }]);
    const q = testClient(s.url, { timeoutMillis: 50 });
    const started = Date.now();
    assert.deepEqual(await q.queue('q').wait(true).timeoutMillis(100).pop(), []);
    const took = Date.now() - started;
    assert.ok(took >= 5000 && took < 9000, `took ${took}`);
    assert.equal(s.seen.length, 1, 'a long-poll timeout is not retried');
    assert.match(s.seen[0]!.url, /timeout=100/);
  });

  test("a caller's AbortSignal ends consume promptly and is never retried", async () => {
    const s = await serve([{ hang: true }]);
    const q = testClient(s.url);
    const ac = new AbortController();
    const running = q.queue('q').consume(async () => undefined, { signal: ac.signal });
    const done = Promise.resolve(running);
    const started = Date.now();
    setTimeout(() => ac.abort(), 100);
    assert.deepEqual(await done, { processed: 0, failed: 0 });
    const took = Date.now() - started;
    assert.ok(took < 5000, `ended ${took} ms after start, long before the 35 s HTTP time of the poll`);
    assert.equal(s.seen.length, 1);
  });
});

describe('headers, parsing, logging', () => {
  test('bearer token, Content-Type only with a body, and extra headers applied last', async () => {
    const s = await serve([{ status: 200, body: { ok: true } }]);
    const q = testClient(s.url, { bearerToken: 'tok-123', headers: { 'X-Tenant': 't9', 'X-Override': 'yes' } });
    await q.admin.health();
    await q.admin.refreshConsumerStats();
    const [get, post] = s.seen;
    assert.equal(get!.headers.authorization, 'Bearer tok-123');
    assert.equal(get!.headers['x-tenant'], 't9');
    assert.equal(get!.headers['content-type'], undefined);
    assert.equal(get!.body, '');
    assert.equal(post!.headers['content-type'], 'application/json');
    assert.equal(post!.body, '{}');
    const overriding = testClient(s.url, { bearerToken: 'a', headers: { Authorization: 'Custom b' } });
    await overriding.admin.health();
    assert.equal(s.seen[2]!.headers.authorization, 'Custom b');
    const anonymous = testClient(s.url);
    await anonymous.admin.health();
    assert.equal(s.seen[3]!.headers.authorization, undefined);
  });

  test('user headers that differ from ours only in case replace them instead of being joined', async () => {
    const s = await serve([{ status: 200, body: { ok: true } }]);
    const q = testClient(s.url, { bearerToken: 'a', headers: { authorization: 'Custom x', 'content-type': 'application/vnd.queen+json' } });
    await q.admin.refreshConsumerStats();
    assert.equal(s.seen[0]!.headers.authorization, 'Custom x');
    assert.equal(s.seen[0]!.headers['content-type'], 'application/vnd.queen+json');
  });

  test('204 and empty bodies are null, text stays text', async () => {
    const s = await serve([{ status: 204 }, { status: 200, body: 'queen_up 1\n', headers: { 'Content-Type': 'text/plain' } }]);
    const q = testClient(s.url);
    assert.equal(await q.admin.health(), null);
    assert.equal(await q.admin.prometheusMetrics(), 'queen_up 1\n');
  });

  test('the logger gets retries as warn with metadata and never the token', async () => {
    const s = await serve([{ status: 500, body: { error: 'pool' } }, { status: 200, body: {} }]);
    const logger = recordingLogger();
    const q = testClient(s.url, { logger, bearerToken: 'secret-token' });
    await q.admin.health();
    const warn = logger.entries.find((e) => e.level === 'warn');
    assert.ok(warn, JSON.stringify(logger.entries));
    assert.equal(warn.msg, 'request failed, retrying');
    assert.deepEqual({ ...(warn.meta as object), url: undefined }, { method: 'GET', path: '/health', url: undefined, attempt: 1, code: 'HTTP', status: 500 });
    assert.ok(!JSON.stringify(logger.entries).includes('secret-token'));
  });

  test('a throwing logger never breaks a request', async () => {
    const s = await serve([{ status: 500, body: {} }, { status: 200, body: { fine: true } }]);
    const boom = () => {
      throw new Error('logger down');
    };
    const q = testClient(s.url, { logger: { info: boom, warn: boom, error: boom, debug: boom } });
    assert.deepEqual(await q.admin.health(), { fine: true });
  });

  test('QUEEN_CLIENT_LOG=true logs to the console when no logger is given', async () => {
    const s = await serve([{ status: 500, body: {} }, { status: 200, body: {} }]);
    const original = console.warn;
    const lines: unknown[][] = [];
    console.warn = (...args: unknown[]) => void lines.push(args);
    process.env.QUEEN_CLIENT_LOG = 'true';
    try {
      await testClient(s.url).admin.health();
    } finally {
      delete process.env.QUEEN_CLIENT_LOG;
      console.warn = original;
    }
    assert.ok(lines.some((l) => String(l[0]).includes('request failed, retrying')), JSON.stringify(lines));
    const silent: unknown[][] = [];
    console.warn = (...args: unknown[]) => void silent.push(args);
    try {
      await testClient(s.url).admin.health();
    } finally {
      console.warn = original;
    }
    assert.deepEqual(silent, []);
  });
});

describe('pop failure policy', () => {
  test('persistent 5xx: retried, then logged with logger.error and answered []', async () => {
    const s = await serve([{ status: 500, body: { error: 'pop failed' } }]);
    const logger = recordingLogger();
    const q = testClient(s.url, { retryAttempts: 2, logger });
    assert.deepEqual(await q.queue('q').wait(false).pop(), []);
    assert.equal(s.seen.length, 2);
    const error = logger.entries.find((e) => e.level === 'error');
    assert.equal(error?.msg, 'pop failed');
    assert.equal((error?.meta as { status: number }).status, 500);
  });

  test('a 4xx pop rejects at once; a 204 is []', async () => {
    const s = await serve([{ status: 204 }, { status: 403, body: { error: 'Insufficient permissions' } }]);
    const q = testClient(s.url);
    assert.deepEqual(await q.queue('q').wait(false).pop(), []);
    const error = await rejection(q.queue('q').wait(false).pop());
    assert.deepEqual([error.code, error.status, error.message], ['HTTP', 403, 'Insufficient permissions']);
    assert.equal(s.seen.length, 2);
  });

  test('the pop query: batch, wait, timeout always; the rest only when set; autoAck only from autoAck(true)', async () => {
    const s = await serve([{ status: 204 }]);
    const q = testClient(s.url);
    await q.queue('a b').wait(false).pop();
    await q.queue('a b').partition('p/1').group('g').batch(5).partitions(0).leaseSeconds(30).subscriptionMode('new').subscriptionFrom(new Date(0)).autoAck(true).wait(false).timeoutMillis(7).pop();
    await q.queue().namespace('ns').task('t').wait(false).pop();
    const [plain, full, discovery] = s.seen.map((r) => new URL(r.url, 'http://x'));
    assert.equal(plain!.pathname, '/api/v1/pop/queue/a%20b');
    assert.deepEqual([...plain!.searchParams.keys()], ['batch', 'wait', 'timeout']);
    assert.equal(full!.pathname, '/api/v1/pop/queue/a%20b/partition/p%2F1');
    assert.deepEqual(Object.fromEntries(full!.searchParams), {
      batch: '5', wait: 'false', timeout: '7', consumerGroup: 'g', partitions: '0', leaseSeconds: '30',
      subscriptionMode: 'new', subscriptionFrom: '1970-01-01T00:00:00.000Z', autoAck: 'true',
    });
    assert.equal(discovery!.pathname, '/api/v1/pop');
    assert.equal(discovery!.searchParams.get('namespace'), 'ns');
    assert.equal(discovery!.searchParams.get('task'), 't');
  });
});

describe('transactions are not blindly retried', () => {
  test('a 500 after the request reached the broker is reported, not replayed', async () => {
    const s = await serve([{ status: 500, body: { error: 'pool' } }]);
    const q = testClient(s.url, { retryAttempts: 3 });
    const tx = q.transaction().queue('q').push([{ data: 1 }]);
    const error = await rejection(tx.commit());
    assert.equal(error.code, 'HTTP');
    assert.equal(s.seen.length, 1);
  });

  test('a refused connection fails over to the next URL', async () => {
    const s = await serve([{ status: 200, body: { transactionId: 'tx-1', success: true, results: [] } }]);
    const q = testClient([await deadUrl(), s.url], { loadBalancingStrategy: 'round-robin' });
    // Round-robin starts at the dead URL for the first request.
    const result = await q.transaction().queue('q').push([{ data: 1 }]).commit();
    assert.equal(result.transactionId, 'tx-1');
    assert.equal(s.seen.length, 1);
  });
});
