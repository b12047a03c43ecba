/**
 * The retention settings of loadConfig (src/config.ts): RETENTION_INTERVAL, RETENTION_BATCH_SIZE,
 * PARTITION_CLEANUP_DAYS, EVICTION_INTERVAL and EVICTION_BATCH_SIZE (docs/api.md 10), defaults and ranges.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

test('defaults: retention every 5 min in chunks of 1000, cleanup after 30 idle days, eviction every minute up to 1000', () => {
  assert.deepEqual(loadConfig({}).retention, {
    intervalMs: 300_000, batchSize: 1000, partitionCleanupDays: 30, evictionIntervalMs: 60_000, evictionBatchSize: 1000,
  });
});

test('explicit values (small intervals for tests); unparsable ones stop the start-up', () => {
  const config = loadConfig({
    RETENTION_INTERVAL: '200', RETENTION_BATCH_SIZE: '7', PARTITION_CLEANUP_DAYS: '2', EVICTION_INTERVAL: '150', EVICTION_BATCH_SIZE: '3',
  });
  assert.deepEqual(config.retention, { intervalMs: 200, batchSize: 7, partitionCleanupDays: 2, evictionIntervalMs: 150, evictionBatchSize: 3 });
  assert.throws(() => loadConfig({ RETENTION_INTERVAL: 'hourly' }), /RETENTION_INTERVAL must be an integer/);
  assert.throws(() => loadConfig({ EVICTION_BATCH_SIZE: '1.5' }), /EVICTION_BATCH_SIZE must be an integer/);
  assert.deepEqual(loadConfig({ RETENTION_BATCH_SIZE: '' }).retention.batchSize, 1000);
});

test('values out of range stop the start-up, naming the variable', () => {
  assert.throws(() => loadConfig({ RETENTION_INTERVAL: '0' }), (e: unknown) => e instanceof ConfigError && /RETENTION_INTERVAL/.test(e.message));
  assert.throws(() => loadConfig({ RETENTION_BATCH_SIZE: '0' }), /RETENTION_BATCH_SIZE must be an integer between 1 and 1000000/);
  assert.throws(() => loadConfig({ PARTITION_CLEANUP_DAYS: '0' }), /PARTITION_CLEANUP_DAYS/);
  assert.throws(() => loadConfig({ EVICTION_INTERVAL: '-5' }), /EVICTION_INTERVAL/);
  assert.throws(() => loadConfig({ EVICTION_BATCH_SIZE: '1000001' }), /EVICTION_BATCH_SIZE/);
});
