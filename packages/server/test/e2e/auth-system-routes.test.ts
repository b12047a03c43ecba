/**
 * One verifier for every protected route (JWT_CLOCK_SKEW): a token that expired less than the allowance ago
 * is accepted on every route, the system routes included; one expired longer ago is refused everywhere.
 * `/analytics/postgres-stats` shows other sessions' SQL text to an admin only.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearer, mint } from '../support/auth.js';
import { request, useBroker } from '../support/harness.js';

const SECRET = 'skew-secret-0123456789abcdef0123456789';
const setup = useBroker({ JWT_ENABLED: 'true', JWT_SECRET: SECRET, JWT_CLOCK_SKEW: '30' });

const ROUTES = ['/api/v1/resources/queues', '/api/v1/system/maintenance', '/api/v1/system/maintenance/pop', '/api/v1/system/shared-state',
  '/api/v1/status', '/api/v1/consumer-groups', '/api/v1/analytics/postgres-stats'];

test('a token expired within JWT_CLOCK_SKEW is accepted on every route; one expired beyond it on none', async () => {
  const now = Math.floor(Date.now() / 1000);
  const withinSkew = bearer(await mint(SECRET, { claims: { sub: 'adm', role: 'admin', iat: now - 600, exp: now - 10 } }));
  const beyond = bearer(await mint(SECRET, { claims: { sub: 'adm', role: 'admin', iat: now - 600, exp: now - 120 } }));
  for (const route of ROUTES) {
    const ok = await request(setup.broker.url, 'GET', route, undefined, withinSkew);
    assert.equal(ok.status, 200, `${route} within the skew: ${ok.status} ${ok.text}`);
    const refused = await request(setup.broker.url, 'GET', route, undefined, beyond);
    assert.equal(refused.status, 401, `${route} beyond the skew: ${refused.status} ${refused.text}`);
  }
  // Fresh tokens too (the cache is keyed by token): each route verifies on its own.
  for (const route of ROUTES) {
    const fresh = bearer(await mint(SECRET, { claims: { sub: `adm-${route}`, role: 'admin', iat: now - 600, exp: now - 5 } }));
    const res = await request(setup.broker.url, 'GET', route, undefined, fresh);
    assert.equal(res.status, 200, `${route} (first sight) within the skew: ${res.status} ${res.text}`);
  }
});

test('postgres-stats: the read-only role sees active queries without their SQL text; an admin sees it', async () => {
  const readOnly = bearer(await mint(SECRET, { claims: { sub: 'ro', role: 'read-only' } }));
  const admin = bearer(await mint(SECRET, { claims: { sub: 'adm', role: 'admin' } }));
  // A session of its own runs a recognisable statement for the duration of the reads.
  const sleeper = setup.db.query(`SELECT pg_sleep(3) /* secret-customer-4711 */`);
  try {
    const seen = async (headers: Record<string, string>): Promise<Array<{ query: string | null }>> => {
      for (let i = 0; i < 40; i++) {
        const res = await request(setup.broker.url, 'GET', '/api/v1/analytics/postgres-stats', undefined, headers);
        assert.equal(res.status, 200, res.text);
        const active = (res.json as { activeQueries: Array<{ query: string | null }> }).activeQueries;
        if (active.length > 0) return active;
        await new Promise((r) => setTimeout(r, 50));
      }
      return [];
    };
    const forReader = await seen(readOnly);
    assert.ok(forReader.length > 0);
    assert.ok(forReader.every((q) => q.query === null), JSON.stringify(forReader));
    const forAdmin = await seen(admin);
    assert.ok(forAdmin.some((q) => q.query?.includes('secret-customer-4711')), JSON.stringify(forAdmin));
  } finally {
    await sleeper;
  }
});
