/**
 * JWT auth with asymmetric keys on real brokers (docs/api.md 9.7 rules 2-6): RS256 and EdDSA through a JWKS served
 * by this test, an unreachable JWKS, an EdDSA PEM key, `auto` with custom claims, roles, audience and skip
 * paths, and the configurations that stop the start-up.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { bearer, keyPair, mint, startJwksServer } from '../support/auth.js';
import { createDatabase, freePort, request, startBroker, uniqueQueue, useBroker, type TestResponse } from '../support/harness.js';

const SECRET = 'keys-secret-0123456789abcdef0123456789';
// Top-level: the brokers' environments need the JWKS URL before their `before` hooks start them.
const rsa = await keyPair('RS256', 'rsa-1');
const rsaNoAlg = await keyPair('RS256', 'rsa-any');
delete rsaNoAlg.jwk.alg; // usable for RS384 and RS512 as well
const ed = await keyPair('EdDSA', 'ed-1');
const jwks = await startJwksServer([rsa.jwk, rsaNoAlg.jwk, ed.jwk]);
after(() => jwks.close());
const closedPort = await freePort(); // nothing listens there

const get = (url: string, path: string, headers: Record<string, string> = {}): Promise<TestResponse<any>> => request(url, 'GET', path, undefined, headers);

function assertRefused(res: TestResponse<any>, status: number, text: string | RegExp): void {
  assert.equal(res.status, status, res.text);
  if (typeof text === 'string') assert.deepEqual(res.json, { error: text });
  else assert.match(res.json.error, text);
}

describe('RS256 through a JWKS', () => {
  const setup = useBroker({ JWT_ENABLED: 'true', JWT_ALGORITHM: 'RS256', JWT_JWKS_URL: jwks.url });

  test('RS256 tokens verified with the key of their kid; the set is fetched once and cached', async () => {
    const hits = jwks.hits;
    for (let i = 0; i < 3; i += 1) {
      const res = await get(setup.broker.url, '/api/v1/resources/queues', bearer(await mint(rsa.privateKey, { kid: 'rsa-1', claims: { role: 'read-only' } })));
      assert.equal(res.status, 200, res.text);
    }
    assert.equal(jwks.hits - hits, 1);
  });

  test('RS384 and RS512 tokens are accepted too', async () => {
    for (const alg of ['RS384', 'RS512']) {
      const res = await get(setup.broker.url, '/api/v1/status', bearer(await mint(rsaNoAlg.privateKey, { alg, kid: 'rsa-any', claims: { roles: ['admin'] } })));
      assert.equal(res.status, 200, `${alg}: ${res.text}`);
    }
  });

  test('refusals: other key, unknown kid, other algorithms', async () => {
    const url = setup.broker.url;
    const stranger = await keyPair('RS256', 'rsa-1');
    assertRefused(await get(url, '/api/v1/status', bearer(await mint(stranger.privateKey, { kid: 'rsa-1', claims: { role: 'admin' } }))), 401, 'Invalid token signature');
    assertRefused(await get(url, '/api/v1/status', bearer(await mint(rsa.privateKey, { kid: 'rsa-unknown', claims: { role: 'admin' } }))), 401,
      'RS256 validation error: no applicable key found in the JSON Web Key Set');
    assertRefused(await get(url, '/api/v1/status', bearer(await mint(ed.privateKey, { kid: 'ed-1', claims: { role: 'admin' } }))), 401, 'Token uses EdDSA, expected RS256');
    assertRefused(await get(url, '/api/v1/status', bearer(await mint(SECRET, { claims: { role: 'admin' } }))), 401, 'Token uses HS256, expected RS256');
  });
});

describe('EdDSA through a JWKS', () => {
  const setup = useBroker({ JWT_ENABLED: 'true', JWT_ALGORITHM: 'EdDSA', JWT_JWKS_URL: jwks.url });

  test('an Ed25519 token is verified; another key or algorithm is refused', async () => {
    const url = setup.broker.url;
    assert.equal((await get(url, '/api/v1/status', bearer(await mint(ed.privateKey, { kid: 'ed-1', claims: { role: 'read-only' } })))).status, 200);
    const stranger = await keyPair('EdDSA', 'ed-1');
    assertRefused(await get(url, '/api/v1/status', bearer(await mint(stranger.privateKey, { kid: 'ed-1', claims: { role: 'admin' } }))), 401, 'Invalid token signature');
    assertRefused(await get(url, '/api/v1/status', bearer(await mint(rsa.privateKey, { kid: 'rsa-1', claims: { role: 'admin' } }))), 401, 'Token uses RS256, expected EdDSA');
  });
});

describe('an unreachable JWKS', () => {
  const setup = useBroker({ JWT_ENABLED: 'true', JWT_ALGORITHM: 'RS256', JWT_JWKS_TIMEOUT_MS: '1000', JWT_JWKS_URL: `http://127.0.0.1:${closedPort}/jwks.json` });

  test('RS256 validation error: JWKS fetch failed: <cause>; PUBLIC routes still answer', async () => {
    const res = await get(setup.broker.url, '/api/v1/status', bearer(await mint(rsa.privateKey, { kid: 'rsa-1', claims: { role: 'admin' } })));
    assertRefused(res, 401, /^RS256 validation error: JWKS fetch failed: .*ECONNREFUSED/);
    assert.equal((await get(setup.broker.url, '/health')).status, 200);
  });
});

describe('EdDSA with JWT_PUBLIC_KEY (PEM)', () => {
  const setup = useBroker({ JWT_ENABLED: 'true', JWT_ALGORITHM: 'EdDSA', JWT_PUBLIC_KEY: ed.publicPem });

  test('tokens signed by the matching private key pass, others do not', async () => {
    const url = setup.broker.url;
    assert.equal((await get(url, '/api/v1/status', bearer(await mint(ed.privateKey, { claims: { role: 'read-only' } })))).status, 200);
    const stranger = await keyPair('EdDSA', 'x');
    assertRefused(await get(url, '/api/v1/status', bearer(await mint(stranger.privateKey, { claims: { role: 'read-only' } }))), 401, 'Invalid token signature');
  });
});

describe('auto, custom claims and roles, audience, nbf, skip paths', () => {
  const env: Record<string, string> = {
    JWT_ENABLED: 'true', JWT_ALGORITHM: 'auto', JWT_SECRET: SECRET, JWT_AUDIENCE: 'queen-api',
    JWT_ROLES_CLAIM: 'queen_role', JWT_ROLES_ARRAY_CLAIM: 'groups',
    JWT_ROLE_ADMIN: 'ops', JWT_ROLE_READ_WRITE: 'service', JWT_ROLE_READ_ONLY: 'viewer',
    JWT_SKIP_PATHS: '/api/v1/status/,/api/v1/resources/queues,/', JWT_JWKS_URL: jwks.url,
  };
  const setup = useBroker(env);
  const claims = (extra: Record<string, unknown>) => ({ aud: ['dashboard', 'queen-api'], ...extra });

  test('auto: HS256 with the secret, RS256 and EdDSA from the JWKS', async () => {
    const url = setup.broker.url;
    const tokens = [
      await mint(SECRET, { claims: claims({ queen_role: 'viewer' }) }),
      await mint(SECRET, { alg: 'HS512', claims: claims({ queen_role: 'viewer' }) }),
      await mint(rsa.privateKey, { kid: 'rsa-1', claims: claims({ groups: ['viewer'] }) }),
      await mint(ed.privateKey, { kid: 'ed-1', claims: claims({ groups: ['viewer'] }) }),
    ];
    for (const token of tokens) assert.equal((await get(url, '/api/v1/dlq', bearer(token))).status, 200);
  });

  test('custom role names in the custom claims decide the level', async () => {
    const url = setup.broker.url;
    const as = async (extra: Record<string, unknown>) => bearer(await mint(SECRET, { claims: claims(extra) }));
    assertRefused(await request(url, 'POST', '/api/v1/push', { items: [] }, await as({ queen_role: 'viewer' })), 403, 'Insufficient permissions');
    assert.equal((await request(url, 'POST', '/api/v1/push', { items: [] }, await as({ queen_role: 'service' }))).status, 201);
    assert.equal((await request(url, 'POST', '/api/v1/push', { items: [] }, await as({ groups: ['x', 'service'] }))).status, 201);
    assertRefused(await request(url, 'POST', '/api/v1/stats/refresh', {}, await as({ groups: ['service'] })), 403, 'Insufficient permissions');
    assert.equal((await request(url, 'POST', '/api/v1/stats/refresh', {}, await as({ queen_role: 'viewer', groups: ['ops'] }))).status, 200);
    assertRefused(await get(url, '/api/v1/dlq', await as({ role: 'admin', roles: ['admin'] })), 403, 'Insufficient permissions');
  });

  test('audience: an array containing JWT_AUDIENCE passes; otherwise Invalid token audience', async () => {
    const url = setup.broker.url;
    assert.equal((await get(url, '/api/v1/dlq', bearer(await mint(SECRET, { claims: { aud: 'queen-api', queen_role: 'viewer' } })))).status, 200);
    assertRefused(await get(url, '/api/v1/dlq', bearer(await mint(SECRET, { claims: { aud: ['dashboard'], queen_role: 'viewer' } }))), 401, 'Invalid token audience');
    assertRefused(await get(url, '/api/v1/dlq', bearer(await mint(SECRET, { claims: { queen_role: 'viewer' } }))), 401, 'Invalid token audience');
  });

  test('nbf in the future: Token not yet valid; inside the 30 s leeway: accepted', async () => {
    const url = setup.broker.url;
    const at = Math.floor(Date.now() / 1000);
    assertRefused(await get(url, '/api/v1/dlq', bearer(await mint(SECRET, { claims: claims({ queen_role: 'viewer', nbf: at + 300 }) }))), 401, 'Token not yet valid');
    assert.equal((await get(url, '/api/v1/dlq', bearer(await mint(SECRET, { claims: claims({ queen_role: 'viewer', nbf: at + 10 }) })))).status, 200);
    assert.equal((await get(url, '/api/v1/dlq', bearer(await mint(SECRET, { claims: claims({ queen_role: 'viewer', exp: at - 10 }) })))).status, 200);
  });

  test('skip paths: a prefix entry covers the path and everything below it; exact entries only themselves; / only the root', async () => {
    const url = setup.broker.url;
    for (const path of ['/api/v1/status', '/api/v1/status/', '/api/v1/status/queues', '/api/v1/status/analytics', '/api/v1/resources/queues', '/api/v1/resources/queues/']) {
      assert.equal((await get(url, path)).status, 200, path);
    }
    for (const path of ['/api/v1/resources/queues/some-queue', '/api/v1/dlq', '/api/v1/analytics/queue-lag', '/api/v1/resources/overview']) {
      assertRefused(await get(url, path), 401, 'Authentication required');
    }
  });

  test('a skipped path ignores the token: nothing is stamped from it', async () => {
    const queue = uniqueQueue('auth-skip');
    const env2 = { ...env, JWT_SKIP_PATHS: '/api/v1/push' };
    const db = await createDatabase();
    const broker = await startBroker(db, env2);
    try {
      const token = bearer(await mint(SECRET, { claims: claims({ sub: 'alice', queen_role: 'service' }) }));
      assert.equal((await request(broker.url, 'POST', '/api/v1/push', { items: [{ queue, payload: 1 }] }, token)).status, 201);
      const popped = await get(broker.url, `/api/v1/pop/queue/${queue}?wait=false`, token);
      assert.equal(popped.status, 200);
      assert.equal(popped.json.messages[0].producerSub, null);
    } finally {
      await broker.stop();
      await db.close();
    }
  });
});

describe('configurations that stop the start-up (the reason on stderr)', () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ['RS256 without a key', { JWT_ALGORITHM: 'RS256' }, 'configuration error: JWT_ALGORITHM=RS256 needs JWT_PUBLIC_KEY or JWT_JWKS_URL'],
    ['an unreadable PEM', { JWT_ALGORITHM: 'EdDSA', JWT_PUBLIC_KEY: 'not a key' }, 'configuration error: JWT_PUBLIC_KEY is not a readable PEM public key'],
    ['an unknown algorithm', { JWT_ALGORITHM: 'ES256' }, 'configuration error: JWT_ALGORITHM must be one of HS256, RS256, EdDSA, auto (got ES256)'],
  ];
  for (const [name, env, message] of cases) {
    test(name, async () => {
      const db = await createDatabase();
      try {
        await assert.rejects(startBroker(db, { JWT_ENABLED: 'true', ...env }), (error: Error) => {
          assert.match(error.message, /broker exited during start-up/);
          assert.ok(error.message.includes(message), error.message);
          return true;
        });
      } finally {
        await db.close();
      }
    });
  }
});
