/** QUEEN_ENCRYPTION_KEY in loadConfig (docs/api.md 9.6, 10): 64 hex characters, unset means no key, malformed stops the start. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

const HEX = '00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF';

describe('QUEEN_ENCRYPTION_KEY', () => {
  test('unset or empty: no key', () => {
    assert.equal(loadConfig({}).encryptionKey, null);
    assert.equal(loadConfig({ QUEEN_ENCRYPTION_KEY: '' }).encryptionKey, null);
  });

  test('64 hex characters (either case) give the 32 key bytes', () => {
    const key = loadConfig({ QUEEN_ENCRYPTION_KEY: HEX }).encryptionKey;
    assert.ok(key !== null);
    assert.equal(key.length, 32);
    assert.equal(key.toString('hex'), HEX.toLowerCase());
    assert.deepEqual(loadConfig({ QUEEN_ENCRYPTION_KEY: `${HEX}\n` }).encryptionKey, key);
  });

  test('anything else is a configuration error naming the variable', () => {
    for (const bad of [HEX.slice(2), `${HEX}00`, `${HEX.slice(1)}g`, 'not-a-key', HEX.replace('0', ' ')]) {
      assert.throws(() => loadConfig({ QUEEN_ENCRYPTION_KEY: bad }), (error: unknown) =>
        error instanceof ConfigError && /^QUEEN_ENCRYPTION_KEY must be 64 hexadecimal characters/.test(error.message));
    }
  });

  test('the error never echoes the value', () => {
    const secretish = 'ab'.repeat(31) + 'zz';
    assert.throws(() => loadConfig({ QUEEN_ENCRYPTION_KEY: secretish }), (error: unknown) =>
      error instanceof ConfigError && !error.message.includes(secretish));
  });
});
