/** loadConfig: the JWT_* variables of docs/api.md 10 with their defaults and rules. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('JWT_* (docs/api.md 10)', () => {
  test('an empty environment gives every documented default (auth off)', () => {
    assert.deepEqual(loadConfig({}).auth, {
      enabled: false,
      algorithm: 'HS256',
      secret: undefined,
      publicKey: undefined,
      jwksUrl: undefined,
      issuer: undefined,
      audience: undefined,
      clockSkewSeconds: 30,
      skipPaths: ['/health', '/metrics/prometheus', '/metrics', '/'],
      rolesClaim: 'role',
      rolesArrayClaim: 'roles',
      roles: { admin: 'admin', readWrite: 'read-write', readOnly: 'read-only' },
      jwksRefreshIntervalSeconds: 3600,
      jwksTimeoutMs: 5000,
    });
  });

  test('explicit values', () => {
    const auth = loadConfig({
      JWT_ENABLED: 'true', JWT_ALGORITHM: 'EdDSA', JWT_SECRET: 's3cret', JWT_PUBLIC_KEY: 'line1\\nline2',
      JWT_JWKS_URL: ' https://idp.example/jwks ', JWT_ISSUER: 'https://idp.example', JWT_AUDIENCE: 'queen', JWT_CLOCK_SKEW: '5',
      JWT_SKIP_PATHS: '/api/v1/status/,/health', JWT_ROLES_CLAIM: 'r', JWT_ROLES_ARRAY_CLAIM: 'rs', JWT_ROLE_ADMIN: 'A',
      JWT_ROLE_READ_WRITE: 'W', JWT_ROLE_READ_ONLY: 'R', JWT_JWKS_REFRESH_INTERVAL: '60', JWT_JWKS_TIMEOUT_MS: '250',
    }).auth;
    assert.deepEqual(auth, {
      enabled: true,
      algorithm: 'EdDSA',
      secret: 's3cret',
      publicKey: 'line1\nline2',
      jwksUrl: 'https://idp.example/jwks',
      issuer: 'https://idp.example',
      audience: 'queen',
      clockSkewSeconds: 5,
      skipPaths: ['/api/v1/status/', '/health'],
      rolesClaim: 'r',
      rolesArrayClaim: 'rs',
      roles: { admin: 'A', readWrite: 'W', readOnly: 'R' },
      jwksRefreshIntervalSeconds: 60,
      jwksTimeoutMs: 250,
    });
  });

  const enabled: Array<[string, boolean]> = [['true', true], ['TRUE', true], ['1', true], ['false', false], ['0', false], ['', false]];
  for (const [value, expected] of enabled) {
    test(`JWT_ENABLED=${JSON.stringify(value)} -> ${expected}`, () => assert.equal(loadConfig({ JWT_ENABLED: value }).auth.enabled, expected));
  }

  test('any other JWT_ENABLED stops the start-up, naming it (issue 13 item 9)', () => {
    for (const value of ['yes', 'on', 'enabled']) {
      assert.throws(() => loadConfig({ JWT_ENABLED: value }), (error: unknown) => error instanceof ConfigError && error.message === `JWT_ENABLED must be true or false (got ${value})`);
    }
  });

  test('JWT_ALGORITHM is case-insensitive', () => {
    for (const [raw, expected] of [['hs256', 'HS256'], ['rs256', 'RS256'], ['eddsa', 'EdDSA'], ['AUTO', 'auto']]) {
      assert.equal(loadConfig({ JWT_ENABLED: 'true', JWT_ALGORITHM: raw! }).auth.algorithm, expected);
    }
  });

  test('an unknown JWT_ALGORITHM stops the start-up when auth is on, and is ignored when it is off', () => {
    assert.throws(() => loadConfig({ JWT_ENABLED: 'true', JWT_ALGORITHM: 'ES256' }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /JWT_ALGORITHM must be one of HS256, RS256, EdDSA, auto \(got ES256\)/);
      return true;
    });
    assert.equal(loadConfig({ JWT_ALGORITHM: 'ES256' }).auth.enabled, false);
  });

  test('empty integers take the default; unparsable and out-of-range ones stop the start-up', () => {
    assert.equal(loadConfig({ JWT_JWKS_TIMEOUT_MS: '' }).auth.jwksTimeoutMs, 5000);
    for (const [name, value] of [['JWT_CLOCK_SKEW', '-1'], ['JWT_JWKS_REFRESH_INTERVAL', '0'], ['JWT_JWKS_TIMEOUT_MS', '0'], ['JWT_CLOCK_SKEW', 'soon'], ['JWT_JWKS_REFRESH_INTERVAL', '1h']]) {
      assert.throws(() => loadConfig({ [name!]: value! }), (error: unknown) => error instanceof ConfigError && error.message.includes(name!));
    }
  });
});
