/**
 * The payload cipher (src/core/payload-cipher.ts): AES-256-GCM round trips of JSON texts, the stored form
 * (prefix, 12-byte IV, 16-byte tag, fresh IV per seal), tamper detection, wrong or missing key, and the reader
 * used by pop and the admin routes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { isSealed, PayloadCipher, PayloadDecryptError, PayloadReader, SEALED_PREFIX } from '../../src/core/payload-cipher.js';

const key = randomBytes(32);
const cipher = new PayloadCipher(key);
const SAMPLES: unknown[] = [
  { order: 7, items: [{ sku: 'A-1', qty: 2 }], note: null },
  'a plain string', 42, -0.5, true, false, null, [], {},
  { unicode: 'héllo wörld ✓ 日本語 🎉', escaped: 'line\nbreak\t"quoted"\\', nul: '\u0000' },
  { nested: { deeper: { deepest: [1, [2, [3, { four: 4 }]]] } } },
];

describe('PayloadCipher', () => {
  test('seal then open gives back the exact JSON text, for every kind of JSON value', () => {
    for (const value of SAMPLES) {
      const json = JSON.stringify(value);
      const sealed = cipher.seal(json);
      assert.ok(sealed.startsWith(SEALED_PREFIX), sealed);
      assert.ok(isSealed(sealed));
      assert.equal(cipher.open(sealed), json);
      assert.deepEqual(JSON.parse(cipher.open(sealed)), value);
    }
  });

  test('the stored form is prefix + base64(12-byte IV | 16-byte tag | ciphertext), with a fresh IV each time', () => {
    const json = JSON.stringify({ secret: 'attack at dawn' });
    const a = cipher.seal(json);
    const b = cipher.seal(json);
    assert.notEqual(a, b);
    const rawA = Buffer.from(a.slice(SEALED_PREFIX.length), 'base64');
    const rawB = Buffer.from(b.slice(SEALED_PREFIX.length), 'base64');
    assert.equal(rawA.length, 12 + 16 + Buffer.byteLength(json));
    assert.notDeepEqual(rawA.subarray(0, 12), rawB.subarray(0, 12));
    assert.ok(!a.includes('attack') && !rawA.toString('latin1').includes('attack'));
  });

  test('a modified ciphertext, tag or IV fails to open (GCM authentication)', () => {
    const sealed = cipher.seal(JSON.stringify({ amount: 1250 }));
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64');
    for (const position of [0, 12, 28, raw.length - 1]) {
      const tampered = Buffer.from(raw);
      tampered[position] = tampered[position]! ^ 0x01;
      assert.throws(() => cipher.open(SEALED_PREFIX + tampered.toString('base64')), PayloadDecryptError);
    }
    assert.throws(() => cipher.open(SEALED_PREFIX + raw.subarray(0, 20).toString('base64')), PayloadDecryptError);
    assert.throws(() => cipher.open(SEALED_PREFIX), PayloadDecryptError);
  });

  test('another key cannot open it', () => {
    const sealed = cipher.seal('{"a":1}');
    assert.throws(() => new PayloadCipher(randomBytes(32)).open(sealed), PayloadDecryptError);
  });

  test('the key must have 32 bytes', () => {
    assert.throws(() => new PayloadCipher(randomBytes(16)));
    assert.throws(() => new PayloadCipher(Buffer.alloc(0)));
  });

  test('no JSON text is taken for a sealed payload', () => {
    for (const value of [...SAMPLES, 'enc:v1:abc', ' enc:v1:']) assert.equal(isSealed(JSON.stringify(value)), false);
  });
});

describe('PayloadReader', () => {
  const sealed = cipher.seal(JSON.stringify({ n: 1 }));

  test('plaintext passes through; sealed payloads are opened with the key', () => {
    const reader = new PayloadReader(cipher);
    assert.equal(reader.text('{"n":2}'), '{"n":2}');
    assert.equal(reader.text(sealed), '{"n":1}');
    assert.deepEqual(reader.value(sealed), { n: 1 });
    assert.deepEqual(reader.value('[1,"x"]'), [1, 'x']);
  });

  test('without the key, or with another one, admin reads give null and pop reads throw', () => {
    for (const reader of [new PayloadReader(null), new PayloadReader(new PayloadCipher(randomBytes(32)))]) {
      assert.equal(reader.value(sealed), null);
      assert.deepEqual(reader.value('{"plain":true}'), { plain: true });
      assert.throws(() => reader.text(sealed), PayloadDecryptError);
      assert.throws(() => reader.openAll([{ payload: '"ok"' }, { payload: sealed }]), PayloadDecryptError);
    }
  });

  test('openAll opens sealed payloads in place and leaves plaintext ones as they are', () => {
    const batch = [{ payload: '"plain"' }, { payload: sealed }, { payload: 'null' }];
    const plainObject = batch[0];
    new PayloadReader(cipher).openAll(batch);
    assert.deepEqual(batch.map((m) => m.payload), ['"plain"', '{"n":1}', 'null']);
    assert.equal(batch[0], plainObject);
  });
});
