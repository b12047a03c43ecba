/**
 * loadConfig (src/config.ts) against explicit environment objects: the defaults and rules of docs/api.md 10 and 5.2.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('defaults (docs/api.md 10)', () => {
  test('an empty environment gives every documented default', () => {
    const config = loadConfig({});
    assert.equal(config.port, 6632);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.serverId, `${os.hostname()}:${process.pid}`);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.maxPayloadBytes, 10_485_760);
    assert.equal(config.dataDir, path.resolve('./.queen'));
    assert.equal(config.poolSize, 20);
    assert.equal(config.poolAcquireTimeoutMs, 5000);
    assert.equal(config.statementTimeoutMs, 30_000);
    assert.equal(config.lockTimeoutMs, 10_000);
    assert.deepEqual(config.pop, {
      defaultTimeoutMs: 30_000,
      defaultBatchSize: 1,
      maxBatchSize: 10_000,
      waitInitialIntervalMs: 100,
      waitBackoffThreshold: 3,
      waitBackoffMultiplier: 2.0,
      waitMaxIntervalMs: 1000,
      defaultSubscriptionMode: 'all',
    });
    assert.deepEqual(config.ignoredVariables, []);
  });

  test('explicit values are read as decimal integers and strings', () => {
    const config = loadConfig({
      PORT: '7000',
      HOST: '127.0.0.1',
      SERVER_ID: 'node-a',
      LOG_LEVEL: 'warn',
      MAX_PAYLOAD_BYTES: '2048',
      DB_POOL_SIZE: '7',
      DB_POOL_ACQUIRE_TIMEOUT_MS: '250',
      DB_STATEMENT_TIMEOUT: '1500',
      DB_LOCK_TIMEOUT: '900',
      DEFAULT_BATCH_SIZE: '5',
      POP_MAX_BATCH_SIZE: '500',
      POP_WAIT_INITIAL_INTERVAL_MS: '20',
      POP_WAIT_BACKOFF_THRESHOLD: '4',
      POP_WAIT_BACKOFF_MULTIPLIER: '1.5',
      POP_WAIT_MAX_INTERVAL_MS: '700',
    });
    assert.equal(config.port, 7000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.serverId, 'node-a');
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.maxPayloadBytes, 2048);
    assert.equal(config.poolSize, 7);
    assert.equal(config.poolAcquireTimeoutMs, 250);
    assert.equal(config.statementTimeoutMs, 1500);
    assert.equal(config.lockTimeoutMs, 900);
    assert.equal(config.pop.defaultBatchSize, 5);
    assert.equal(config.pop.maxBatchSize, 500);
    assert.equal(config.pop.waitInitialIntervalMs, 20);
    assert.equal(config.pop.waitBackoffThreshold, 4);
    assert.equal(config.pop.waitBackoffMultiplier, 1.5);
    assert.equal(config.pop.waitMaxIntervalMs, 700);
  });

  test('an empty integer takes the default', () => {
    const config = loadConfig({ PORT: '', DB_POOL_SIZE: '', DEFAULT_BATCH_SIZE: '', POP_WAIT_MAX_INTERVAL_MS: '' });
    assert.equal(config.port, 6632);
    assert.equal(config.poolSize, 20);
    assert.equal(config.pop.defaultBatchSize, 1);
    assert.equal(config.pop.waitMaxIntervalMs, 1000);
  });

  test('an unparsable value stops the start-up, naming the variable (issue 13 item 9: PORT=abc is not 6632)', () => {
    for (const raw of ['abc', '80.5', '0x50', '1e3', '12abc']) {
      for (const name of ['PORT', 'DB_POOL_SIZE', 'DEFAULT_BATCH_SIZE', 'POP_WAIT_MAX_INTERVAL_MS', 'QUEEN_EMBEDDED_PG_PORT', 'HTTP_REQUEST_TIMEOUT_MS', 'MAX_JSON_DEPTH']) {
        assert.throws(() => loadConfig({ [name]: raw }), (error: unknown) => error instanceof ConfigError && error.message.startsWith(`${name} must be an integer`) && error.message.endsWith(`(got ${raw})`), `${name}=${raw}`);
      }
    }
    assert.throws(() => loadConfig({ POP_WAIT_BACKOFF_MULTIPLIER: 'fast' }), /POP_WAIT_BACKOFF_MULTIPLIER must be a number between 1 and 1000 \(got fast\)/);
    assert.throws(() => loadConfig({ LOG_FORMAT: 'xml' }), /LOG_FORMAT must be one of auto, json, pretty \(got xml\)/);
  });

  test('a malformed pop timeout counts as unset (docs/api.md 5.2) and is reported once in warnings', () => {
    const config = loadConfig({ HOST: '127.0.0.1', DEFAULT_TIMEOUT: 'soon', POP_DEFAULT_TIMEOUT_MS: '5000' });
    assert.equal(config.pop.defaultTimeoutMs, 5000);
    assert.deepEqual(config.warnings, ['DEFAULT_TIMEOUT is not a non-negative integer (got soon): ignored, as if unset']);
    assert.deepEqual(loadConfig({ HOST: '127.0.0.1' }).warnings, []);
  });

  test('listening beyond this host with authentication off: one warning naming docs/deployment.md', () => {
    const open = loadConfig({}).warnings;
    assert.equal(open.length, 1);
    assert.match(open[0]!, /^authentication is off \(JWT_ENABLED\) and the broker listens on 0\.0\.0\.0, beyond this host: anyone who reaches port 6632 can read, push and delete .* docs\/deployment\.md "Before production"; on a laptop set HOST=127\.0\.0\.1$/);
    for (const host of ['127.0.0.1', '::1', 'localhost']) assert.deepEqual(loadConfig({ HOST: host }).warnings, [], host);
    assert.deepEqual(loadConfig({ HOST: '0.0.0.0', JWT_ENABLED: 'true', JWT_SECRET: 's' }).warnings, []);
  });

  test('empty string variables take their defaults', () => {
    const config = loadConfig({ HOST: '', SERVER_ID: '', LOG_LEVEL: '' });
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.serverId, `${os.hostname()}:${process.pid}`);
    assert.equal(config.logLevel, 'info');
  });
});

describe('pop timeout default chain (docs/api.md 5.2, 10)', () => {
  const cases: Array<[Record<string, string>, number]> = [
    [{}, 30_000],
    [{ POP_DEFAULT_TIMEOUT_MS: '5000' }, 5000],
    [{ DEFAULT_TIMEOUT: '7000' }, 7000],
    [{ DEFAULT_TIMEOUT: '7000', POP_DEFAULT_TIMEOUT_MS: '5000' }, 7000],
    [{ DEFAULT_TIMEOUT: '0', POP_DEFAULT_TIMEOUT_MS: '5000' }, 0],
    [{ DEFAULT_TIMEOUT: '', POP_DEFAULT_TIMEOUT_MS: '5000' }, 5000],
    [{ DEFAULT_TIMEOUT: 'soon', POP_DEFAULT_TIMEOUT_MS: '5000' }, 5000],
    [{ DEFAULT_TIMEOUT: '1.5', POP_DEFAULT_TIMEOUT_MS: '5000' }, 5000],
    [{ DEFAULT_TIMEOUT: '-1', POP_DEFAULT_TIMEOUT_MS: '5000' }, 5000],
    [{ DEFAULT_TIMEOUT: '', POP_DEFAULT_TIMEOUT_MS: '' }, 30_000],
    [{ DEFAULT_TIMEOUT: 'x', POP_DEFAULT_TIMEOUT_MS: 'y' }, 30_000],
    [{ POP_DEFAULT_TIMEOUT_MS: '-20' }, 30_000],
    [{ POP_DEFAULT_TIMEOUT_MS: '2.5' }, 30_000],
    [{ POP_DEFAULT_TIMEOUT_MS: '0' }, 0],
  ];
  for (const [env, expected] of cases) {
    test(`${JSON.stringify(env)} -> ${expected}`, () => {
      assert.equal(loadConfig(env).pop.defaultTimeoutMs, expected);
    });
  }
});

describe('database target', () => {
  test('embedded when none of DATABASE_URL / PG_* is set, under QUEEN_DATA_DIR/pgdata', () => {
    const config = loadConfig({ QUEEN_DATA_DIR: '/tmp/queen-config-test' });
    assert.equal(config.database.kind, 'embedded');
    assert.equal(config.dataDir, '/tmp/queen-config-test');
    assert.equal(config.database.kind === 'embedded' ? config.database.dataDir : null, '/tmp/queen-config-test/pgdata');
  });

  test('embedded data directory defaults to ./.queen/pgdata', () => {
    const config = loadConfig({});
    assert.equal(config.database.kind, 'embedded');
    assert.equal(config.database.kind === 'embedded' ? config.database.dataDir : null, path.join(path.resolve('./.queen'), 'pgdata'));
  });

  for (const name of ['PG_HOST', 'PG_PORT', 'PG_USER', 'PG_PASSWORD', 'PG_DB']) {
    test(`external as soon as ${name} is set, other PG_* defaulted`, () => {
      const value = name === 'PG_PORT' ? '6543' : 'custom';
      const config = loadConfig({ [name]: value });
      assert.deepEqual(config.database, {
        kind: 'external',
        source: 'PG_HOST',
        hosts: [{ host: name === 'PG_HOST' ? 'custom' : 'localhost', port: name === 'PG_PORT' ? 6543 : 5432 }],
        targetSessionAttrs: 'any',
        user: name === 'PG_USER' ? 'custom' : 'postgres',
        password: name === 'PG_PASSWORD' ? 'custom' : 'postgres',
        database: name === 'PG_DB' ? 'custom' : 'postgres',
        tls: false,
        options: undefined,
      });
    });
  }

  test('DATABASE_URL selects an external database: its host, credentials, database and sslmode', () => {
    const url = 'postgres://alice:secret@db.example:5433/queen?sslmode=require';
    const config = loadConfig({ DATABASE_URL: url, PG_HOST: 'ignored-host' });
    assert.equal(config.database.kind, 'external');
    if (config.database.kind !== 'external') return;
    assert.deepEqual(config.database.hosts, [{ host: 'db.example', port: 5433 }]);
    assert.equal(config.database.targetSessionAttrs, 'any');
    assert.deepEqual([config.database.user, config.database.password, config.database.database], ['alice', 'secret', 'queen']);
    assert.notEqual(config.database.tls, false, 'sslmode=require turns TLS on');
  });

  test('all PG_* variables together', () => {
    const config = loadConfig({ PG_HOST: 'h', PG_PORT: '15432', PG_USER: 'u', PG_PASSWORD: 'p', PG_DB: 'd' });
    assert.deepEqual(config.database, { kind: 'external', source: 'PG_HOST', hosts: [{ host: 'h', port: 15432 }], targetSessionAttrs: 'any', user: 'u', password: 'p', database: 'd', tls: false, options: undefined });
  });
});

describe('out-of-range values stop the start-up with a ConfigError naming the variable', () => {
  const cases: Array<[string, string]> = [
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PG_PORT', '65536'],
    ['PG_PORT', '0'],
    ['DB_POOL_SIZE', '0'],
  ];
  for (const [name, value] of cases) {
    test(`${name}=${value}`, () => {
      const env: Record<string, string> = { [name]: value };
      if (name === 'PG_PORT') env.PG_HOST = 'localhost';
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
          assert.match(error.message, new RegExp(`\\b${name}\\b`));
          return true;
        },
      );
    });
  }
});

describe('DEFAULT_SUBSCRIPTION_MODE (docs/api.md 5.2, 5.7, 11.17)', () => {
  const cases: Array<[string | undefined, 'all' | 'new']> = [
    [undefined, 'all'],
    ['', 'all'],
    ['all', 'all'],
    ['new', 'new'],
    ['new-only', 'new'],
    ['something-else', 'all'],
  ];
  for (const [value, expected] of cases) {
    test(`${JSON.stringify(value)} -> ${expected}`, () => {
      const env: Record<string, string> = value === undefined ? {} : { DEFAULT_SUBSCRIPTION_MODE: value };
      assert.equal(loadConfig(env).pop.defaultSubscriptionMode, expected);
    });
  }
});

describe('upstream tuning variables are accepted and listed as ignored', () => {
  test('every upstream family is listed, sorted; the broker\'s own variables are not', () => {
    const config = loadConfig({
      NUM_WORKERS: '4',
      QUEEN_PUSH_MAX_HOLD_MS: '5',
      QUEEN_POP_BATCH_SIZE: '100',
      QUEEN_UDP_PORT: '6634',
      QUEEN_SYNC_ENABLED: 'true',
      SIDECAR_POOL_SIZE: '3',
      LIBQUEEN_THREADS: '2',
      WEBAPP_ROOT: '/srv/app',
      QUEEN_DATA_DIR: '/tmp/queen-ignored-test',
      PORT: '7001',
      DEFAULT_BATCH_SIZE: '2',
    });
    assert.deepEqual(config.ignoredVariables, [
      'LIBQUEEN_THREADS',
      'NUM_WORKERS',
      'QUEEN_POP_BATCH_SIZE',
      'QUEEN_PUSH_MAX_HOLD_MS',
      'QUEEN_SYNC_ENABLED',
      'QUEEN_UDP_PORT',
      'SIDECAR_POOL_SIZE',
      'WEBAPP_ROOT',
    ]);
    assert.equal(config.port, 7001);
    assert.equal(config.pop.defaultBatchSize, 2);
  });

  test('an upstream variable with an out-of-range looking value never fails the start-up', () => {
    const config = loadConfig({ NUM_WORKERS: '-5', QUEEN_UDP_PORT: '999999' });
    assert.deepEqual(config.ignoredVariables, ['NUM_WORKERS', 'QUEEN_UDP_PORT']);
  });
});

describe('dashboard (DASHBOARD_ENABLED, DASHBOARD_DIR)', () => {
  test('on by default, serving packages/dashboard/dist; false, 0, off or no turn it off', () => {
    const config = loadConfig({});
    assert.equal(config.dashboard.enabled, true);
    assert.equal(config.dashboard.dir, path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../dashboard/dist'));
    for (const value of ['false', 'FALSE', '0', 'off', 'no']) assert.equal(loadConfig({ DASHBOARD_ENABLED: value }).dashboard.enabled, false, value);
    for (const value of ['true', '1', '', 'yes']) assert.equal(loadConfig({ DASHBOARD_ENABLED: value }).dashboard.enabled, true, value);
    assert.equal(loadConfig({ DASHBOARD_DIR: 'web/dist' }).dashboard.dir, path.resolve('web/dist'));
  });
});
