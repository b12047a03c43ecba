/** QUEEN_CITUS in loadConfig (docs/configuration.md): auto by default, on/off in any case, anything else stops the start. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

test('QUEEN_CITUS: auto by default, on and off as given, anything else is a ConfigError naming the variable', () => {
  assert.equal(loadConfig({}).citus, 'auto');
  assert.equal(loadConfig({ QUEEN_CITUS: '' }).citus, 'auto');
  assert.equal(loadConfig({ QUEEN_CITUS: 'ON' }).citus, 'on');
  assert.equal(loadConfig({ QUEEN_CITUS: ' off ' }).citus, 'off');
  assert.throws(() => loadConfig({ QUEEN_CITUS: 'yes' }), (error: unknown) => error instanceof ConfigError && /QUEEN_CITUS must be one of auto, on, off \(got yes\)/.test(error.message));
});
