/**
 * Where an external PostgreSQL is: libpq's multi-host URL and comma-separated PG_HOST/PG_PORT, with
 * target_session_attrs, and the TLS variables. A malformed value stops start-up with a ConfigError that
 * names the variable and never quotes the password.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig, type ExternalDatabase } from '../../src/config.js';
import { parseDatabaseUrl } from '../../src/database-address.js';

function external(env: Record<string, string>): ExternalDatabase {
  const { database } = loadConfig(env);
  assert.equal(database.kind, 'external');
  return database as ExternalDatabase;
}

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, got ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/);
    return error.message;
  }
  assert.fail('loadConfig accepted it');
}

describe('multi-host DATABASE_URL', () => {
  test('several host:port pairs in order, read-write by default, credentials and database read once', () => {
    const db = external({ DATABASE_URL: 'postgres://queen:s3cret@pg-a:5432,pg-b:5433,pg-c/orders' });
    assert.deepEqual(db.hosts, [{ host: 'pg-a', port: 5432 }, { host: 'pg-b', port: 5433 }, { host: 'pg-c', port: 5432 }]);
    assert.equal(db.targetSessionAttrs, 'read-write');
    assert.deepEqual([db.user, db.password, db.database, db.source], ['queen', 's3cret', 'orders', 'DATABASE_URL']);
  });

  test('target_session_attrs: read-write, primary and any as libpq spells them; a single host defaults to any', () => {
    assert.equal(external({ DATABASE_URL: 'postgres://u:p@a,b/db?target_session_attrs=primary' }).targetSessionAttrs, 'primary');
    assert.equal(external({ DATABASE_URL: 'postgresql://u:p@a,b/db?target_session_attrs=any' }).targetSessionAttrs, 'any');
    assert.equal(external({ DATABASE_URL: 'postgres://u:p@a/db?target_session_attrs=read-write' }).targetSessionAttrs, 'read-write');
    assert.equal(external({ DATABASE_URL: 'postgres://u:p@a:6000/db' }).targetSessionAttrs, 'any');
  });

  test('IPv6 literals, percent-encoded credentials, sslmode and connect_timeout', () => {
    const db = external({ DATABASE_URL: 'postgres://u%40x:p%2Fw@[::1]:5432,[fe80::2]/db?sslmode=require&connect_timeout=3' });
    assert.deepEqual(db.hosts, [{ host: '::1', port: 5432 }, { host: 'fe80::2', port: 5432 }]);
    assert.deepEqual([db.user, db.password], ['u@x', 'p/w']);
    assert.notEqual(db.tls, false);
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://u:p@a,b/db?connect_timeout=3' }).databaseHealth.connectTimeoutMs, 3000);
  });

  test('a standby-only target_session_attrs is refused: the broker writes', () => {
    assert.match(configError({ DATABASE_URL: 'postgres://u:p@a,b/db?target_session_attrs=standby' }), /^DATABASE_URL target_session_attrs must be one of any, read-write, primary \(got standby\)/);
  });

  for (const [url, why] of [
    ['postgres://u:hunter2@a:5432,:5433/db', /host entry/],
    ['postgres://u:hunter2@a:99999,b/db', /port must be an integer between 1 and 65535/],
    ['postgres://u:hunter2@a,b:x/db', /host entry|port/],
    ['mysql://u:hunter2@a/db', /is not a postgres:\/\/ URL/],
    ['postgres://u:hunter2@a b/db', /is not a valid URL/],
  ] as const) {
    test(`malformed: ${url.replace('hunter2', '***')} stops start-up with one line naming DATABASE_URL, never the password`, () => {
      const message = configError({ DATABASE_URL: url });
      assert.match(message, /^DATABASE_URL /);
      assert.match(message, why);
      assert.doesNotMatch(message, /hunter2/);
    });
  }

  test('a single-host URL means what node-postgres reads from it', () => {
    const parsed = parseDatabaseUrl('postgres://alice:pw@db.example:5433/queen?application_name=x&options=-c%20search_path%3Dqueen');
    assert.deepEqual(parsed.hosts, [{ host: 'db.example', port: 5433 }]);
    assert.equal(parsed.options, '-c search_path=queen');
  });
});

describe('PG_HOST / PG_PORT lists', () => {
  test('comma-separated hosts with one port each, or one port for all; read-write by default', () => {
    const db = external({ PG_HOST: 'a, b', PG_PORT: '5432,5433' });
    assert.deepEqual(db.hosts, [{ host: 'a', port: 5432 }, { host: 'b', port: 5433 }]);
    assert.equal(db.targetSessionAttrs, 'read-write');
    assert.deepEqual(external({ PG_HOST: 'a,b,c', PG_PORT: '6000' }).hosts.map((h) => h.port), [6000, 6000, 6000]);
    assert.equal(external({ PG_HOST: 'a,b', PG_TARGET_SESSION_ATTRS: 'primary' }).targetSessionAttrs, 'primary');
  });

  test('mismatched lists, empty entries and bad ports name their variable', () => {
    assert.match(configError({ PG_HOST: 'a,b,c', PG_PORT: '1,2' }), /^PG_HOST lists 3 hosts but PG_PORT lists 2 ports/);
    assert.match(configError({ PG_HOST: 'a,,b' }), /^PG_HOST has an empty host name/);
    assert.match(configError({ PG_HOST: 'a', PG_PORT: '70000' }), /^PG_PORT port must be an integer between 1 and 65535 \(got 70000\)/);
    assert.match(configError({ PG_HOST: 'a,b', PG_TARGET_SESSION_ATTRS: 'prefer-standby' }), /^PG_TARGET_SESSION_ATTRS target_session_attrs must be one of/);
  });
});

describe('TLS with the PG_* variables', () => {
  test('PG_USE_SSL turns TLS on, verifying the certificate unless PG_SSL_REJECT_UNAUTHORIZED=false', () => {
    assert.equal(external({ PG_HOST: 'a' }).tls, false);
    assert.deepEqual(external({ PG_HOST: 'a', PG_USE_SSL: 'true' }).tls, { rejectUnauthorized: true });
    assert.deepEqual(external({ PG_HOST: 'a', PG_USE_SSL: 'true', PG_SSL_REJECT_UNAUTHORIZED: 'false' }).tls, { rejectUnauthorized: false });
  });

  test('PG_SSL_CA_FILE is read at start-up (and implies TLS); an unreadable file names the variable', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-ca-'));
    const file = path.join(dir, 'ca.pem');
    fs.writeFileSync(file, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    try {
      assert.deepEqual(external({ PG_HOST: 'a', PG_SSL_CA_FILE: file }).tls, { rejectUnauthorized: true, ca: fs.readFileSync(file, 'utf8') });
      assert.match(configError({ PG_HOST: 'a', PG_SSL_CA_FILE: path.join(dir, 'missing.pem') }), /^PG_SSL_CA_FILE ENOENT/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('sslmode in DATABASE_URL wins over PG_USE_SSL; without it PG_USE_SSL applies to the URL too', () => {
    assert.equal(external({ DATABASE_URL: 'postgres://u:p@a/db?sslmode=disable', PG_USE_SSL: 'true' }).tls, false);
    assert.deepEqual(external({ DATABASE_URL: 'postgres://u:p@a/db', PG_USE_SSL: 'true' }).tls, { rejectUnauthorized: true });
  });
});

describe('liveness settings', () => {
  test('defaults, and DB_TCP_USER_TIMEOUT_MS over DB_KEEPALIVES_INTERVAL x DB_KEEPALIVES_COUNT', () => {
    assert.deepEqual(loadConfig({}).databaseHealth, { connectTimeoutMs: 5000, keepAliveIdleMs: 10_000, probeIntervalMs: 2000, probeTimeoutMs: 6000 });
    assert.equal(loadConfig({ DB_KEEPALIVES_INTERVAL: '1', DB_KEEPALIVES_COUNT: '4' }).databaseHealth.probeTimeoutMs, 4000);
    assert.equal(loadConfig({ DB_KEEPALIVES_INTERVAL: '1', DB_TCP_USER_TIMEOUT_MS: '2500' }).databaseHealth.probeTimeoutMs, 2500);
  });
});
