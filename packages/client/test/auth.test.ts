/**
 * The SDK against a broker with JWT authentication on (docs/client.md `bearerToken`, docs/api.md 9.7): the token
 * reaches the broker on every route family, `producerSub` comes from the token, and refusals surface as
 * `QueenError` with the broker's status and text (never retried: a 401/403 is a caller problem).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { mint } from '../../server/test/support/auth.js';
import { QueenError } from '../src/index.js';
import { testClient } from './support.js';

const SECRET = 'client-suite-secret-that-is-long-enough';
const setup = useBroker({ JWT_ENABLED: 'true', JWT_SECRET: SECRET });

const token = (role: string, sub: string) => mint(SECRET, { claims: { sub, role } });

test('a read-write token pushes, pops and acks; producerSub is the token subject', async () => {
  const queen = testClient(setup.broker.url, { bearerToken: await token('read-write', 'svc-orders') });
  const queue = uniqueQueue('auth');
  await queen.queue<{ n: number }>(queue).push([{ data: { n: 1 } }]);
  const [msg] = await queen.queue<{ n: number }>(queue).batch(1).wait(false).pop();
  assert.ok(msg !== undefined);
  assert.equal(msg.data.n, 1);
  assert.equal(msg.producerSub, 'svc-orders');
  const ack = await queen.ack(msg, true);
  assert.equal(ack.success, true);
  await queen.close();
});

test('a refused call rejects with the broker status and text, without retries', async () => {
  let requests = 0;
  const counting: typeof fetch = (input, init) => {
    requests += 1;
    return fetch(input, init);
  };
  const anonymous = testClient(setup.broker.url, { retryAttempts: 3, fetch: counting });
  await assert.rejects(anonymous.queue(uniqueQueue('auth')).wait(false).pop(),
    (e: QueenError) => e.code === 'HTTP' && e.status === 401 && e.message === 'Authentication required');
  assert.equal(requests, 1, 'a 401 is not retried');
  await anonymous.close();

  const reader = testClient(setup.broker.url, { bearerToken: await token('read-only', 'dashboard') });
  await assert.rejects(Promise.resolve(reader.queue(uniqueQueue('auth')).push([{ data: 1 }])),
    (e: QueenError) => e.code === 'HTTP' && e.status === 403 && e.message === 'Insufficient permissions');
  await assert.rejects(reader.admin.setMaintenanceMode(true),
    (e: QueenError) => e.code === 'HTTP' && e.status === 403 && e.message === 'Insufficient permissions');
  assert.ok(Array.isArray((await reader.admin.listQueues()).queues), 'read-only reaches the listings');
  await reader.close();
});

test('an admin token reaches the admin routes', async () => {
  const admin = testClient(setup.broker.url, { bearerToken: await token('admin', 'ops') });
  const state = await admin.admin.getMaintenanceMode();
  assert.equal(state.maintenanceMode, false);
  await admin.close();
});
