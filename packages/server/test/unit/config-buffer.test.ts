/** The failover-buffer settings of loadConfig (src/config.ts): FILE_BUFFER_* (docs/api.md 10), defaults and ranges. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

test('defaults: <QUEEN_DATA_DIR>/buffer, replay 100 records every 100 ms, 10 000 records per file', () => {
  assert.deepEqual(loadConfig({}).buffer, { dir: path.resolve('./.queen/buffer'), flushMs: 100, maxBatch: 100, eventsPerFile: 10_000, maxBytes: null });
  assert.equal(loadConfig({ QUEEN_DATA_DIR: '/srv/queen' }).buffer.dir, '/srv/queen/buffer');
});

test('explicit values; unparsable ones stop the start-up', () => {
  const config = loadConfig({ FILE_BUFFER_DIR: '/var/buf', FILE_BUFFER_FLUSH_MS: '20', FILE_BUFFER_MAX_BATCH: '7', FILE_BUFFER_EVENTS_PER_FILE: '50', FILE_BUFFER_MAX_BYTES: '1048576' });
  assert.deepEqual(config.buffer, { dir: '/var/buf', flushMs: 20, maxBatch: 7, eventsPerFile: 50, maxBytes: 1_048_576 });
  assert.equal(loadConfig({ FILE_BUFFER_MAX_BYTES: '0' }).buffer.maxBytes, null, '0: derived from the free space');
  assert.throws(() => loadConfig({ FILE_BUFFER_MAX_BYTES: '-1' }), /FILE_BUFFER_MAX_BYTES must be an integer/);
  assert.throws(() => loadConfig({ FILE_BUFFER_MAX_BATCH: 'lots' }), /FILE_BUFFER_MAX_BATCH must be an integer between 1 and 100000 \(got lots\)/);
});

test('values out of range stop the start-up, naming the variable', () => {
  assert.throws(() => loadConfig({ FILE_BUFFER_MAX_BATCH: '0' }), (e: unknown) => e instanceof ConfigError && /FILE_BUFFER_MAX_BATCH/.test(e.message));
  assert.throws(() => loadConfig({ FILE_BUFFER_EVENTS_PER_FILE: '0' }), /FILE_BUFFER_EVENTS_PER_FILE must be an integer between 1/);
  assert.throws(() => loadConfig({ FILE_BUFFER_FLUSH_MS: '0' }), /FILE_BUFFER_FLUSH_MS/);
});
