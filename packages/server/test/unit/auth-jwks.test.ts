/**
 * The remote key set (src/auth/jwks.ts) against a JWKS endpoint served by the test, with an injected clock:
 * caching, refresh by age in the background, refetch on an unknown kid at most once per cooldown, previous
 * keys kept when a fetch fails, the fetch timeout, and the error texts through the verifier.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { RemoteKeySet } from '../../src/auth/jwks.js';
import { TokenVerifier } from '../../src/auth/verifier.js';
import { loadConfig } from '../../src/config.js';
import { DomainError } from '../../src/errors.js';
import { toHttpError } from '../../src/http/errors.js';
import { freePort } from '../support/harness.js';
import { keyPair, mint, startJwksServer, type JwksServer, type TestKeyPair } from '../support/auth.js';

let jwks: JwksServer;
let a: TestKeyPair;
let b: TestKeyPair;
let ed: TestKeyPair;

before(async () => {
  a = await keyPair('RS256', 'key-a');
  b = await keyPair('RS256', 'key-b');
  ed = await keyPair('EdDSA', 'key-ed');
  jwks = await startJwksServer([a.jwk]);
});
after(() => jwks.close());

/** A verifier on the test JWKS whose key set runs on a fake clock. */
function setUp(options: { refreshSeconds?: number; algorithm?: string } = {}) {
  const clock = { t: 1_000_000 };
  const config = loadConfig({
    JWT_ENABLED: 'true', JWT_ALGORITHM: options.algorithm ?? 'RS256', JWT_JWKS_URL: jwks.url,
    JWT_JWKS_REFRESH_INTERVAL: String(options.refreshSeconds ?? 3600),
  }).auth;
  const verifier = new TokenVerifier(config, { jwksClock: () => clock.t });
  return { clock, set: verifier.jwks!, verifier };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof DomainError, `expected a DomainError, got ${String(error)}`);
    const answer = toHttpError(error);
    assert.equal(answer.status, 401);
    return String(answer.body.error);
  }
  assert.fail('expected a refusal');
}

describe('RemoteKeySet', () => {
  test('fetched once, then served from the cache', async () => {
    jwks.setKeys([a.jwk]);
    const { set, verifier } = setUp();
    for (let i = 0; i < 5; i += 1) assert.equal((await verifier.verify(await mint(a.privateKey, { kid: 'key-a', claims: { sub: `s${i}` } }))).sub, `s${i}`);
    assert.equal(set.fetches, 1);
  });

  test('unknown kid: refetched at most once per 30 s, then found', async () => {
    jwks.setKeys([a.jwk]);
    const { clock, set, verifier } = setUp();
    await verifier.verify(await mint(a.privateKey, { kid: 'key-a' }));
    jwks.setKeys([a.jwk, b.jwk]); // rotation: key-b appears
    const tokenB = await mint(b.privateKey, { kid: 'key-b' });
    clock.t += 29_000;
    assert.equal(await refusal(verifier.verify(tokenB)), 'RS256 validation error: no applicable key found in the JSON Web Key Set');
    assert.equal(set.fetches, 1, 'no refetch inside the cooldown');
    clock.t += 1_000;
    assert.ok(await verifier.verify(tokenB));
    assert.equal(set.fetches, 2, 'one refetch for the unknown kid');
    const unknown = await mint(b.privateKey, { kid: 'key-z' });
    assert.match(await refusal(verifier.verify(unknown)), /^RS256 validation error: no applicable key/);
    assert.equal(set.fetches, 2, 'a second unknown kid right after is not a refetch');
  });

  test('refreshed by age in the background: the request that notices uses the current keys', async () => {
    jwks.setKeys([a.jwk]);
    const { clock, set, verifier } = setUp({ refreshSeconds: 60 });
    await verifier.verify(await mint(a.privateKey, { kid: 'key-a' }));
    jwks.setKeys([b.jwk]); // key-a revoked, key-b new
    clock.t += 59_000;
    assert.ok(await verifier.verify(await mint(a.privateKey, { kid: 'key-a' })));
    assert.equal(set.fetches, 1);
    clock.t += 1_000;
    assert.ok(await verifier.verify(await mint(a.privateKey, { kid: 'key-a' })), 'served while the refresh runs');
    assert.equal(set.fetches, 2, 'the refresh started');
    await set.reload(); // wait for the refresh (a second one is harmless)
    assert.match(await refusal(verifier.verify(await mint(a.privateKey, { kid: 'key-a' }))), /^RS256 validation error: no applicable key/);
    assert.ok(await verifier.verify(await mint(b.privateKey, { kid: 'key-b' })));
  });

  test('a failed refresh keeps the previous keys; the next attempt waits for the cooldown', async () => {
    jwks.setKeys([a.jwk]);
    const errors: Error[] = [];
    const clock = { t: 5_000_000 };
    const set = new RemoteKeySet(new URL(jwks.url), { timeoutMs: 2000, refreshIntervalMs: 60_000, now: () => clock.t, onRefreshError: (e) => errors.push(e) });
    const header = { alg: 'RS256', kid: 'key-a' };
    await set.resolve(header, { payload: '', signature: '' });
    jwks.setDown(true);
    try {
      clock.t += 60_000;
      await set.resolve(header, { payload: '', signature: '' }); // starts a refresh that fails
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(errors.length, 1);
      assert.equal(errors[0]!.message, 'JWKS endpoint answered HTTP 503');
      assert.equal(set.fetches, 2);
      clock.t += 10_000;
      assert.ok(await set.resolve(header, { payload: '', signature: '' }), 'previous keys still in use');
      assert.equal(set.fetches, 2, 'no new attempt inside the cooldown');
      clock.t += 20_000;
      jwks.setDown(false);
      await set.resolve(header, { payload: '', signature: '' });
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(set.fetches, 3, 'retried after the cooldown');
      assert.equal(errors.length, 1);
    } finally {
      jwks.setDown(false);
    }
  });

  test('unreachable before any key was loaded: <ALG> validation error, retried only after the cooldown', async () => {
    jwks.setDown(true);
    try {
      const { clock, set, verifier } = setUp();
      const token = await mint(a.privateKey, { kid: 'key-a' });
      assert.equal(await refusal(verifier.verify(token)), 'RS256 validation error: JWKS endpoint answered HTTP 503');
      assert.equal(await refusal(verifier.verify(token)), 'RS256 validation error: JWKS endpoint answered HTTP 503');
      assert.equal(set.fetches, 1, 'failed fetches are not retried per request');
      jwks.setDown(false);
      clock.t += 30_000;
      assert.ok(await verifier.verify(token));
      assert.equal(set.fetches, 2);
    } finally {
      jwks.setDown(false);
    }
  });

  test('nothing listening: RS256 validation error: JWKS fetch failed: <cause>', async () => {
    const port = await freePort();
    const config = loadConfig({ JWT_ENABLED: 'true', JWT_ALGORITHM: 'RS256', JWT_JWKS_URL: `http://127.0.0.1:${port}/jwks.json` }).auth;
    const text = await refusal(new TokenVerifier(config).verify(await mint(a.privateKey, { kid: 'key-a' })));
    assert.match(text, /^RS256 validation error: JWKS fetch failed: .*ECONNREFUSED/);
  });

  test('JWT_JWKS_TIMEOUT_MS bounds the fetch', async () => {
    const silent = http.createServer(() => {}); // never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/jwks.json`;
      const config = loadConfig({ JWT_ENABLED: 'true', JWT_ALGORITHM: 'EdDSA', JWT_JWKS_URL: url, JWT_JWKS_TIMEOUT_MS: '300' }).auth;
      const started = Date.now();
      const text = await refusal(new TokenVerifier(config).verify(await mint(ed.privateKey, { kid: 'key-ed' })));
      assert.equal(text, 'EdDSA validation error: JWKS request timed out after 300 ms');
      assert.ok(Date.now() - started < 5000, 'the timeout ended the wait');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  test('a response that is not a key set: <ALG> validation error', async () => {
    jwks.setKeys([{ kty: 'nonsense' } as never]);
    try {
      const { verifier } = setUp();
      assert.match(await refusal(verifier.verify(await mint(a.privateKey, { kid: 'key-a' }))), /^RS256 validation error: /);
    } finally {
      jwks.setKeys([a.jwk]);
    }
  });

  test('EdDSA keys from the set; a token without kid is checked against every usable key', async () => {
    const ed2 = await keyPair('EdDSA', 'key-ed2');
    jwks.setKeys([a.jwk, ed.jwk, ed2.jwk]);
    const { verifier } = setUp({ algorithm: 'EdDSA' });
    assert.equal((await verifier.verify(await mint(ed.privateKey, { kid: 'key-ed', claims: { sub: 'one' } }))).sub, 'one');
    assert.equal((await verifier.verify(await mint(ed2.privateKey, { claims: { sub: 'no-kid' } }))).sub, 'no-kid');
    const stranger = await keyPair('EdDSA', 'key-x');
    assert.equal(await refusal(verifier.verify(await mint(stranger.privateKey))), 'Invalid token signature');
  });
});
