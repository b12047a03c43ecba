/**
 * The monitoring settings of loadConfig (src/config.ts): STATS_INTERVAL_MS, METRICS_RETENTION_DAYS
 * (docs/api.md 10) and QUEEN_HEARTBEAT_INTERVAL_MS (ours), with their defaults and ranges.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

test('defaults: flush every 10 s, heartbeat every 5 s, 90 days of metrics', () => {
  assert.deepEqual(loadConfig({}).stats, { intervalMs: 10_000, heartbeatIntervalMs: 5000, metricsRetentionDays: 90 });
});

test('explicit values; unparsable ones stop the start-up', () => {
  const config = loadConfig({ STATS_INTERVAL_MS: '500', QUEEN_HEARTBEAT_INTERVAL_MS: '200', METRICS_RETENTION_DAYS: '7' });
  assert.deepEqual(config.stats, { intervalMs: 500, heartbeatIntervalMs: 200, metricsRetentionDays: 7 });
  assert.throws(() => loadConfig({ STATS_INTERVAL_MS: 'often' }), /STATS_INTERVAL_MS must be an integer/);
});

test('values out of range stop the start-up, naming the variable', () => {
  assert.throws(() => loadConfig({ STATS_INTERVAL_MS: '10' }), (e: unknown) => e instanceof ConfigError && /STATS_INTERVAL_MS/.test(e.message));
  assert.throws(() => loadConfig({ METRICS_RETENTION_DAYS: '0' }), /METRICS_RETENTION_DAYS must be an integer between 1 and 36500/);
  assert.throws(() => loadConfig({ QUEEN_HEARTBEAT_INTERVAL_MS: '60001' }), /QUEEN_HEARTBEAT_INTERVAL_MS/);
});
