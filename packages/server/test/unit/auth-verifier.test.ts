/**
 * Token verification in-process (src/auth/verifier.ts, errors.ts): every check of docs/api.md 9.7 rules 3-4 with
 * its exact wire error, the key modes (secret, PEM, auto) and the configurations refused at start-up.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, test } from 'node:test';
import { CompactSign } from 'jose';
import { TokenVerifier } from '../../src/auth/verifier.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DomainError } from '../../src/errors.js';
import { toHttpError } from '../../src/http/errors.js';
import { keyPair, mint } from '../support/auth.js';

const SECRET = 'unit-test-secret-0123456789abcdef';
const now = (): number => Math.floor(Date.now() / 1000);
const b64 = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function verifier(env: Record<string, string>): TokenVerifier {
  return new TokenVerifier(loadConfig({ JWT_ENABLED: 'true', ...env }).auth);
}

/** Asserts that verifying `token` fails with `status` and exactly `text` (or text matching a RegExp). */
async function refuses(v: TokenVerifier, token: string, status: number, text: string | RegExp): Promise<void> {
  await assert.rejects(v.verify(token), (error: unknown) => {
    assert.ok(error instanceof DomainError, `expected a DomainError, got ${String(error)}`);
    const answer = toHttpError(error);
    assert.equal(answer.status, status);
    if (typeof text === 'string') assert.deepEqual(answer.body, { error: text });
    else assert.match(String(answer.body.error), text);
    return true;
  });
}

describe('HS256', () => {
  const hs = verifier({ JWT_SECRET: SECRET });

  test('a valid token gives its claims', async () => {
    const claims = await hs.verify(await mint(SECRET, { claims: { sub: 'alice', role: 'admin' } }));
    assert.equal(claims.sub, 'alice');
    assert.equal(claims.role, 'admin');
  });

  test('a token without exp is accepted (exp is checked when present)', async () => {
    assert.equal((await hs.verify(await mint(SECRET, { noExp: true, claims: { sub: 'x' } }))).sub, 'x');
  });

  test('wrong secret: Invalid token signature', async () => {
    await refuses(hs, await mint('another-secret-entirely-0123456789'), 401, 'Invalid token signature');
  });

  test('tampered payload: Invalid token signature', async () => {
    const [header, , signature] = (await mint(SECRET, { claims: { role: 'read-only' } })).split('.');
    await refuses(hs, `${header}.${b64({ role: 'admin', exp: now() + 60 })}.${signature}`, 401, 'Invalid token signature');
  });

  test('HS384 and HS512 are refused: Token uses HS384, expected HS256', async () => {
    await refuses(hs, await mint(SECRET, { alg: 'HS384' }), 401, 'Token uses HS384, expected HS256');
    await refuses(hs, await mint(SECRET, { alg: 'HS512' }), 401, 'Token uses HS512, expected HS256');
  });

  test('alg none is refused by the algorithm check', async () => {
    await refuses(hs, `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ role: 'admin' })}.`, 401, 'Token uses none, expected HS256');
  });

  test('an RS256 token: Token uses RS256, expected HS256', async () => {
    const pair = await keyPair('RS256', 'k');
    await refuses(hs, await mint(pair.privateKey), 401, 'Token uses RS256, expected HS256');
  });

  test('undecodable tokens: Token decode error: <detail>', async () => {
    await refuses(hs, 'garbage', 401, /^Token decode error: .+/);
    await refuses(hs, 'a.b.c', 401, /^Token decode error: .+/);
    await refuses(hs, `${b64({ typ: 'JWT' })}.${b64({})}.sig`, 401, 'Token decode error: JWT header has no "alg"');
    await refuses(hs, `${b64({ alg: 'HS256' })}.${b64({})}`, 401, /^Token decode error: .+/);
    const notJson = await new CompactSign(new TextEncoder().encode('not json')).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
    await refuses(hs, notJson, 401, /^Token decode error: .*JSON object/);
    await refuses(hs, await mint(SECRET, { claims: { exp: 'tomorrow' as unknown as number } }), 401, 'Token decode error: "exp" claim must be a number');
  });

  test('exp in the past beyond the leeway: Token has expired', async () => {
    await refuses(hs, await mint(SECRET, { claims: { exp: now() - 120 } }), 401, 'Token has expired');
  });

  test('exp in the past within JWT_CLOCK_SKEW (default 30 s) is accepted', async () => {
    assert.ok(await hs.verify(await mint(SECRET, { claims: { exp: now() - 10 } })));
  });

  test('JWT_CLOCK_SKEW=0: no leeway', async () => {
    const strict = verifier({ JWT_SECRET: SECRET, JWT_CLOCK_SKEW: '0' });
    await refuses(strict, await mint(SECRET, { claims: { exp: now() - 5 } }), 401, 'Token has expired');
    await refuses(strict, await mint(SECRET, { claims: { nbf: now() + 5 } }), 401, 'Token not yet valid');
  });

  test('JWT_CLOCK_SKEW=300 accepts a token expired 200 s ago', async () => {
    assert.ok(await verifier({ JWT_SECRET: SECRET, JWT_CLOCK_SKEW: '300' }).verify(await mint(SECRET, { claims: { exp: now() - 200 } })));
  });

  test('nbf in the future beyond the leeway: Token not yet valid; within it: accepted', async () => {
    await refuses(hs, await mint(SECRET, { claims: { nbf: now() + 120 } }), 401, 'Token not yet valid');
    assert.ok(await hs.verify(await mint(SECRET, { claims: { nbf: now() + 10 } })));
  });

  test('JWT_ISSUER: equal is accepted; different or missing: Invalid token issuer', async () => {
    const v = verifier({ JWT_SECRET: SECRET, JWT_ISSUER: 'https://idp.example' });
    assert.ok(await v.verify(await mint(SECRET, { claims: { iss: 'https://idp.example' } })));
    await refuses(v, await mint(SECRET, { claims: { iss: 'https://evil.example' } }), 401, 'Invalid token issuer');
    await refuses(v, await mint(SECRET, { claims: { iss: 'https://idp.example/' } }), 401, 'Invalid token issuer');
    await refuses(v, await mint(SECRET), 401, 'Invalid token issuer');
    assert.ok(await hs.verify(await mint(SECRET, { claims: { iss: 'anyone' } })), 'no JWT_ISSUER: any issuer');
  });

  test('JWT_AUDIENCE: string or array containing it is accepted; otherwise Invalid token audience', async () => {
    const v = verifier({ JWT_SECRET: SECRET, JWT_AUDIENCE: 'queen' });
    assert.ok(await v.verify(await mint(SECRET, { claims: { aud: 'queen' } })));
    assert.ok(await v.verify(await mint(SECRET, { claims: { aud: ['dashboard', 'queen'] } })));
    await refuses(v, await mint(SECRET, { claims: { aud: ['dashboard', 'other'] } }), 401, 'Invalid token audience');
    await refuses(v, await mint(SECRET, { claims: { aud: 'queen-staging' } }), 401, 'Invalid token audience');
    await refuses(v, await mint(SECRET), 401, 'Invalid token audience');
    assert.ok(await hs.verify(await mint(SECRET, { claims: { aud: 'whatever' } })), 'no JWT_AUDIENCE: any audience');
  });

  test('a token verified before is refused once it expires (remembered tokens never outlive exp + leeway)', async () => {
    const strict = verifier({ JWT_SECRET: SECRET, JWT_CLOCK_SKEW: '1' });
    const exp = now() + 1;
    const token = await mint(SECRET, { claims: { exp } });
    assert.ok(await strict.verify(token));
    assert.ok(await strict.verify(token));
    await new Promise((resolve) => setTimeout(resolve, (exp + 1) * 1000 - Date.now() + 20));
    await refuses(strict, token, 401, 'Token has expired');
  });

  test('no JWT_SECRET: 500 HS256 secret not configured (at request time, not at start-up)', async () => {
    const v = verifier({});
    assert.equal(v.secretMissing, true);
    await refuses(v, await mint(SECRET), 500, 'HS256 secret not configured');
  });
});

describe('RS256 with JWT_PUBLIC_KEY', async () => {
  const pair = await keyPair('RS256', 'rsa-1');
  const other = await keyPair('RS256', 'rsa-2');
  const ed = await keyPair('EdDSA', 'ed-1');
  const rs = verifier({ JWT_ALGORITHM: 'RS256', JWT_PUBLIC_KEY: pair.publicPem });

  test('RS256, RS384 and RS512 tokens are accepted', async () => {
    for (const alg of ['RS256', 'RS384', 'RS512']) {
      assert.equal((await rs.verify(await mint(pair.privateKey, { alg, claims: { sub: alg } }))).sub, alg);
    }
  });

  test('another key: Invalid token signature', async () => {
    await refuses(rs, await mint(other.privateKey), 401, 'Invalid token signature');
  });

  test('HS256 and EdDSA tokens: Token uses <alg>, expected RS256', async () => {
    await refuses(rs, await mint(SECRET), 401, 'Token uses HS256, expected RS256');
    await refuses(rs, await mint(ed.privateKey), 401, 'Token uses EdDSA, expected RS256');
  });

  test('a PEM with escaped newlines (one-line environment value) works', async () => {
    const v = new TokenVerifier(loadConfig({ JWT_ENABLED: 'true', JWT_ALGORITHM: 'rs256', JWT_PUBLIC_KEY: pair.publicPem.replace(/\n/g, '\\n') }).auth);
    assert.ok(await v.verify(await mint(pair.privateKey)));
  });

  test('a PKCS#1 PEM works too', async () => {
    const pkcs1 = pair.publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    assert.ok(await verifier({ JWT_ALGORITHM: 'RS256', JWT_PUBLIC_KEY: pkcs1 }).verify(await mint(pair.privateKey)));
  });
});

describe('EdDSA with JWT_PUBLIC_KEY', async () => {
  const pair = await keyPair('EdDSA', 'ed-1');
  const other = await keyPair('EdDSA', 'ed-2');
  const rsa = await keyPair('RS256', 'rsa-1');
  const ed = verifier({ JWT_ALGORITHM: 'EdDSA', JWT_PUBLIC_KEY: pair.publicPem });

  test('an Ed25519 token is accepted; another key is an invalid signature', async () => {
    assert.equal((await ed.verify(await mint(pair.privateKey, { claims: { sub: 'ed' } }))).sub, 'ed');
    await refuses(ed, await mint(other.privateKey), 401, 'Invalid token signature');
  });

  test('RS256 and HS256 tokens: Token uses <alg>, expected EdDSA', async () => {
    await refuses(ed, await mint(rsa.privateKey), 401, 'Token uses RS256, expected EdDSA');
    await refuses(ed, await mint(SECRET), 401, 'Token uses HS256, expected EdDSA');
  });
});

describe('auto (docs/api.md 9.7 rule 3)', async () => {
  const rsa = await keyPair('RS256', 'rsa-1');
  const ed = await keyPair('EdDSA', 'ed-1');

  test('picks the verification by the header alg: HS* with the secret, EdDSA with the PEM', async () => {
    const v = verifier({ JWT_ALGORITHM: 'auto', JWT_SECRET: SECRET, JWT_PUBLIC_KEY: ed.publicPem });
    for (const alg of ['HS256', 'HS384', 'HS512']) assert.equal((await v.verify(await mint(SECRET, { alg, claims: { sub: alg } }))).sub, alg);
    assert.equal((await v.verify(await mint(ed.privateKey, { claims: { sub: 'ed' } }))).sub, 'ed');
    await refuses(v, await mint(rsa.privateKey), 401, 'RS256 validation error: JWT_PUBLIC_KEY is not an RSA key');
    await refuses(v, await mint('wrong-secret-wrong-secret-wrong-secret'), 401, 'Invalid token signature');
  });

  test('RS* with an RSA PEM; no key for a family is a validation error of that family', async () => {
    const v = verifier({ JWT_ALGORITHM: 'AUTO', JWT_PUBLIC_KEY: rsa.publicPem });
    assert.ok(await v.verify(await mint(rsa.privateKey, { alg: 'RS512' })));
    await refuses(v, await mint(SECRET), 500, 'HS256 secret not configured');
    const secretOnly = verifier({ JWT_ALGORITHM: 'auto', JWT_SECRET: SECRET });
    await refuses(secretOnly, await mint(rsa.privateKey), 401, 'RS256 validation error: no JWT_PUBLIC_KEY or JWT_JWKS_URL configured');
    await refuses(secretOnly, await mint(ed.privateKey), 401, 'EdDSA validation error: no JWT_PUBLIC_KEY or JWT_JWKS_URL configured');
  });

  test('other algorithms: Token uses ES256, expected HS256, RS256 or EdDSA', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await refuses(verifier({ JWT_ALGORITHM: 'auto', JWT_SECRET: SECRET }), await mint(privateKey, { alg: 'ES256' }), 401, 'Token uses ES256, expected HS256, RS256 or EdDSA');
  });
});

describe('configurations refused at start-up (ConfigError naming the variable)', async () => {
  const rsa = await keyPair('RS256', 'rsa-1');
  const ed = await keyPair('EdDSA', 'ed-1');
  const ecPem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const smallRsaPem = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['RS256 without key or JWKS', { JWT_ALGORITHM: 'RS256' }, /JWT_ALGORITHM=RS256 needs JWT_PUBLIC_KEY or JWT_JWKS_URL/],
    ['EdDSA without key or JWKS', { JWT_ALGORITHM: 'EdDSA', JWT_SECRET: SECRET }, /JWT_ALGORITHM=EdDSA needs JWT_PUBLIC_KEY or JWT_JWKS_URL/],
    ['auto with nothing', { JWT_ALGORITHM: 'auto' }, /JWT_ALGORITHM=auto needs at least one of JWT_SECRET, JWT_PUBLIC_KEY, JWT_JWKS_URL/],
    ['an unreadable PEM', { JWT_ALGORITHM: 'RS256', JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----' }, /JWT_PUBLIC_KEY is not a readable PEM public key/],
    ['an EC key', { JWT_ALGORITHM: 'auto', JWT_PUBLIC_KEY: ecPem }, /JWT_PUBLIC_KEY must be an RSA or Ed25519 key \(got ec\)/],
    ['a 1024-bit RSA key', { JWT_ALGORITHM: 'RS256', JWT_PUBLIC_KEY: smallRsaPem }, /JWT_PUBLIC_KEY: RSA keys need at least 2048 bits/],
    ['an Ed25519 key for RS256', { JWT_ALGORITHM: 'RS256', JWT_PUBLIC_KEY: ed.publicPem }, /JWT_PUBLIC_KEY is an Ed25519 key; JWT_ALGORITHM=RS256 needs an RSA key/],
    ['an RSA key for EdDSA', { JWT_ALGORITHM: 'EdDSA', JWT_PUBLIC_KEY: rsa.publicPem }, /JWT_PUBLIC_KEY is an RSA key; JWT_ALGORITHM=EdDSA needs an Ed25519 key/],
    ['a JWKS URL that is not a URL', { JWT_ALGORITHM: 'RS256', JWT_JWKS_URL: 'jwks.json' }, /JWT_JWKS_URL must be an absolute http\(s\) URL/],
    ['a JWKS URL that is not http(s)', { JWT_ALGORITHM: 'EdDSA', JWT_JWKS_URL: 'file:///etc/jwks.json' }, /JWT_JWKS_URL must be an absolute http\(s\) URL/],
  ];
  for (const [name, env, message] of cases) {
    test(name, () => {
      assert.throws(() => verifier(env), (error: unknown) => {
        assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
        assert.match(error.message, message);
        return true;
      });
    });
  }

  test('HS256 without a secret starts (the 500 is per request)', () => {
    assert.doesNotThrow(() => verifier({}));
  });
});
