/**
 * The pure authorization rules (src/auth/access.ts): Authorization header parsing (docs/api.md 1.11), roles to
 * levels (9.7 rule 6) and JWT_SKIP_PATHS matching (9.7 rule 2, 11.34).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearerToken, grantedLevel, satisfies, skipPathMatcher } from '../../src/auth/access.js';
import { loadConfig } from '../../src/config.js';

describe('bearerToken (docs/api.md 1.11)', () => {
  const cases: Array<[string | undefined, string | null]> = [
    [undefined, null],
    ['', null],
    ['   ', null],
    ['Bearer', null],
    ['Bearer    ', null],
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['bearer abc.def.ghi', 'abc.def.ghi'],
    ['BEARER abc.def.ghi', 'abc.def.ghi'],
    ['BeArEr   abc.def.ghi  ', 'abc.def.ghi'],
    ['Bearer\tabc.def.ghi', 'abc.def.ghi'],
    ['abc.def.ghi', 'abc.def.ghi'],
    ['  abc.def.ghi ', 'abc.def.ghi'],
    ['Bearerabc.def.ghi', 'Bearerabc.def.ghi'],
    ['Basic dXNlcjpwYXNz', 'Basic dXNlcjpwYXNz'],
  ];
  for (const [header, expected] of cases) {
    test(`${JSON.stringify(header)} -> ${JSON.stringify(expected)}`, () => assert.equal(bearerToken(header), expected));
  }
});

describe('grantedLevel (docs/api.md 9.7 rule 6)', () => {
  const defaults = loadConfig({}).auth;
  const cases: Array<[Record<string, unknown>, string | null]> = [
    [{}, null],
    [{ role: 'admin' }, 'ADMIN'],
    [{ role: 'read-write' }, 'READ_WRITE'],
    [{ role: 'read-only' }, 'READ_ONLY'],
    [{ role: 'Admin' }, null],
    [{ role: 'superuser' }, null],
    [{ roles: ['read-only'] }, 'READ_ONLY'],
    [{ roles: ['read-only', 'admin'] }, 'ADMIN'],
    [{ role: 'read-only', roles: ['read-write'] }, 'READ_WRITE'],
    [{ role: 'admin', roles: ['read-only'] }, 'ADMIN'],
    [{ role: ['admin'] }, null],
    [{ roles: 'admin' }, null],
    [{ roles: [42, null, 'read-write'] }, 'READ_WRITE'],
    [{ roles: ['viewer', 'editor'] }, null],
  ];
  for (const [claims, expected] of cases) {
    test(`${JSON.stringify(claims)} -> ${expected}`, () => assert.equal(grantedLevel(claims, defaults), expected));
  }

  test('custom claim names and role names', () => {
    const config = loadConfig({
      JWT_ROLES_CLAIM: 'scope', JWT_ROLES_ARRAY_CLAIM: 'groups',
      JWT_ROLE_ADMIN: 'queen-admin', JWT_ROLE_READ_WRITE: 'queen-rw', JWT_ROLE_READ_ONLY: 'queen-ro',
    }).auth;
    assert.equal(grantedLevel({ scope: 'queen-rw' }, config), 'READ_WRITE');
    assert.equal(grantedLevel({ groups: ['x', 'queen-admin'] }, config), 'ADMIN');
    assert.equal(grantedLevel({ groups: ['queen-ro'] }, config), 'READ_ONLY');
    assert.equal(grantedLevel({ role: 'admin', roles: ['admin'] }, config), null, 'the default names mean nothing any more');
  });

  test('a dotted claim name is followed as a path unless it is a top-level claim', () => {
    const config = loadConfig({ JWT_ROLES_ARRAY_CLAIM: 'realm_access.roles', JWT_ROLES_CLAIM: 'a.b' }).auth;
    assert.equal(grantedLevel({ realm_access: { roles: ['read-write'] } }, config), 'READ_WRITE');
    assert.equal(grantedLevel({ 'realm_access.roles': ['admin'], realm_access: { roles: ['read-only'] } }, config), 'ADMIN');
    assert.equal(grantedLevel({ a: { b: 'read-only' } }, config), 'READ_ONLY');
    assert.equal(grantedLevel({ realm_access: ['read-write'] }, config), null);
    assert.equal(grantedLevel({ realm_access: null }, config), null);
  });
});

test('satisfies: READ_ONLY < READ_WRITE < ADMIN', () => {
  const levels = ['READ_ONLY', 'READ_WRITE', 'ADMIN'] as const;
  for (const [i, granted] of levels.entries()) {
    for (const [j, required] of levels.entries()) assert.equal(satisfies(granted, required), i >= j, `${granted} for ${required}`);
  }
});

describe('skipPathMatcher (docs/api.md 9.7 rule 2)', () => {
  test('the default list: exact entries, and / only for the root', () => {
    const skip = skipPathMatcher(loadConfig({}).auth.skipPaths);
    for (const path of ['/health', '/health/', '/metrics', '/metrics/prometheus', '/']) assert.equal(skip(path), true, path);
    for (const path of ['/api/v1/push', '/healthz', '/health/x', '/metrics/other', '/api/v1/status', '/metricsx']) {
      assert.equal(skip(path), false, path);
    }
  });

  test('an entry ending in / also matches as a prefix (and the path itself)', () => {
    const skip = skipPathMatcher(['/api/v1/status/']);
    for (const path of ['/api/v1/status/', '/api/v1/status', '/api/v1/status/queues', '/api/v1/status/queues/q/messages']) {
      assert.equal(skip(path), true, path);
    }
    for (const path of ['/api/v1/statusx', '/api/v1/stat', '/api/v1/analytics/queue-lag', '/']) assert.equal(skip(path), false, path);
  });

  test('an entry without a trailing / is exact only', () => {
    const skip = skipPathMatcher(['/api/v1/status']);
    assert.equal(skip('/api/v1/status'), true);
    assert.equal(skip('/api/v1/status/'), true, 'the same route with its ignored trailing slash');
    assert.equal(skip('/api/v1/status/queues'), false);
  });

  test('/ matches only the root, never as a prefix', () => {
    const skip = skipPathMatcher(['/']);
    assert.equal(skip('/'), true);
    for (const path of ['/api/v1/push', '/health', '/x/']) assert.equal(skip(path), false, path);
  });

  test('JWT_SKIP_PATHS is split at commas, trimmed, empty entries dropped', () => {
    assert.deepEqual(loadConfig({ JWT_SKIP_PATHS: ' /a , ,/b/,' }).auth.skipPaths, ['/a', '/b/']);
    assert.deepEqual(skipPathMatcher([])('/'), false);
  });
});
