/**
 * JWKS key rotation on real brokers (docs/api.md 9.7 rule 5), with real durations because the durations are the
 * behaviour under test: an unknown `kid` refetches the set at most once per 30 s, and the set is refreshed every
 * JWT_JWKS_REFRESH_INTERVAL seconds. The two scenarios run concurrently (about 35 s in all).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, keyPair, mint, startJwksServer } from '../support/auth.js';
import { createDatabase, request, startBroker } from '../support/harness.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A broker on its own database and JWKS endpoint, torn down after `body`. */
async function withBroker(keys: Parameters<typeof startJwksServer>[0], env: Record<string, string>,
  body: (url: string, jwks: Awaited<ReturnType<typeof startJwksServer>>) => Promise<void>): Promise<void> {
  const jwks = await startJwksServer(keys);
  const db = await createDatabase();
  const broker = await startBroker(db, { JWT_ENABLED: 'true', JWT_ALGORITHM: 'RS256', JWT_JWKS_URL: jwks.url, ...env });
  try {
    await body(broker.url, jwks);
  } finally {
    await broker.stop();
    await db.close();
    await jwks.close();
  }
}

const status = async (url: string, token: string) => request(url, 'GET', '/api/v1/status', undefined, bearer(token));
const NO_KEY = { error: 'RS256 validation error: no applicable key found in the JSON Web Key Set' };

describe('JWKS rotation', { concurrency: true }, () => {
  test('a new kid is fetched on first sight, but at most once per 30 s', async () => {
    const a = await keyPair('RS256', 'key-a');
    const b = await keyPair('RS256', 'key-b');
    await withBroker([a.jwk], {}, async (url, jwks) => {
      const tokenA = await mint(a.privateKey, { kid: 'key-a', claims: { role: 'admin' } });
      const tokenB = await mint(b.privateKey, { kid: 'key-b', claims: { role: 'admin' } });
      const firstFetch = Date.now();
      assert.equal((await status(url, tokenA)).status, 200);
      assert.equal(jwks.hits, 1);

      jwks.setKeys([a.jwk, b.jwk]); // the issuer rotates: key-b is published
      const early = await status(url, tokenB);
      assert.equal(early.status, 401);
      assert.deepEqual(early.json, NO_KEY);
      assert.equal(jwks.hits, 1, 'no refetch within 30 s of the last fetch');

      await sleep(Math.max(0, firstFetch + 30_500 - Date.now()));
      assert.equal((await status(url, tokenB)).status, 200, 'the unknown kid refetched the set');
      assert.equal(jwks.hits, 2);
      assert.equal((await status(url, tokenA)).status, 200, 'key-a is still in the set');
      assert.equal((await status(url, tokenB)).status, 200);
      assert.equal(jwks.hits, 2, 'known kids need no fetch');
    });
  });

  test('the set is refreshed every JWT_JWKS_REFRESH_INTERVAL seconds: a removed key stops working', async () => {
    const a = await keyPair('RS256', 'key-a');
    const b = await keyPair('RS256', 'key-b');
    await withBroker([a.jwk], { JWT_JWKS_REFRESH_INTERVAL: '2' }, async (url, jwks) => {
      const tokenA = await mint(a.privateKey, { kid: 'key-a', claims: { role: 'read-only' } });
      const tokenB = await mint(b.privateKey, { kid: 'key-b', claims: { role: 'read-only' } });
      assert.equal((await status(url, tokenA)).status, 200);
      jwks.setKeys([b.jwk]); // key-a revoked, key-b published
      await sleep(2200);
      assert.equal((await status(url, tokenA)).status, 200, 'the request that notices the age is served with the cached set');
      const deadline = Date.now() + 5000;
      while (jwks.hits < 2 && Date.now() < deadline) await sleep(50);
      assert.equal(jwks.hits, 2, 'one background refresh');
      await sleep(200);
      const revoked = await status(url, tokenA);
      assert.equal(revoked.status, 401);
      assert.deepEqual(revoked.json, NO_KEY);
      assert.equal((await status(url, tokenB)).status, 200);
      assert.equal(jwks.hits, 2);
    });
  });
});
