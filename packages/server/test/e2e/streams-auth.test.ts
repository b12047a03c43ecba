/**
 * The streams routes with JWT auth on (docs/api.md 9.7, docs/streams.md): the official Stream runs with a
 * read-write bearer token and its sink messages carry the token's subject as producerSub; a read-only token
 * reads state but cannot register or commit a cycle.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { bearer, mint } from '../support/auth.js';
import { request, useBroker } from '../support/harness.js';
import { eventually, loadOfficial, quietLogger } from '../support/streams.js';

const SECRET = 'streams-secret-0123456789abcdef0123456789';
const setup = useBroker({ JWT_ENABLED: 'true', JWT_SECRET: SECRET });

test('the official Stream with a bearer token: sink messages carry producerSub; read-only may only read state', async () => {
  const token = await mint(SECRET, { claims: { sub: 'stream-worker', role: 'read-write' } });
  const readOnly = bearer(await mint(SECRET, { claims: { sub: 'viewer', role: 'read-only' } }));
  const writer = bearer(token);
  const { Queen, Stream } = await loadOfficial();
  const q = new Queen({ url: setup.broker.url, bearerToken: token });
  const src = `test-auth-src-${randomUUID().slice(0, 8)}`;
  const sink = `test-auth-sink-${randomUUID().slice(0, 8)}`;
  await q.queue(src).create();
  await q.queue(src).push([{ data: { n: 1 } }, { data: { n: 2 } }]);
  const handle = await Stream.from(q.queue(src)).map((m: any) => ({ n: m.data.n * 10 })).to(q.queue(sink))
    .run({ queryId: `test-auth-${randomUUID().slice(0, 8)}`, url: setup.broker.url, bearerToken: token, logger: quietLogger(), maxWaitMillis: 300 });
  const popped = await eventually('two sink messages', 10_000, async () => {
    const res = await request(setup.broker.url, 'GET', `/api/v1/pop/queue/${sink}?batch=10&wait=false&autoAck=true`, undefined, writer);
    return res.status === 200 && res.json.messages.length === 2 ? res.json.messages : undefined;
  });
  await handle.stop();
  await q.close();
  assert.deepEqual(popped.map((m: any) => [m.data.n, m.producerSub]), [[10, 'stream-worker'], [20, 'stream-worker']]);

  const queryId = String(handle.metrics().serverQueryId);
  const read = await request(setup.broker.url, 'POST', '/streams/v1/state/get', { query_id: queryId, partition_id: randomUUID() }, readOnly);
  assert.deepEqual([read.status, read.json], [200, { success: true, rows: [] }]);
  for (const path of ['/streams/v1/queries', '/streams/v1/cycle']) {
    const refused = await request(setup.broker.url, 'POST', path, {}, readOnly);
    assert.deepEqual([refused.status, refused.json], [403, { error: 'Insufficient permissions' }], path);
    const anonymous = await request(setup.broker.url, 'POST', path, {});
    assert.deepEqual([anonymous.status, anonymous.json], [401, { error: 'Authentication required' }], path);
  }
});
