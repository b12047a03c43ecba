/**
 * Identifiers (src/ids.ts, docs/api.md 1.9): UUIDv7 minted by the broker (lowercase, monotonic within one process)
 * and the syntax check that accepts any UUID version in any case.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isUuid, uuidv7 } from '../../src/ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function millisOf(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

describe('uuidv7', () => {
  test('8-4-4-4-12 lowercase hex, version 7, variant 10xx', () => {
    for (let i = 0; i < 1000; i++) {
      const id = uuidv7();
      assert.match(id, V7);
      assert.equal(id, id.toLowerCase());
      assert.equal(id.length, 36);
      assert.equal(id[14], '7');
      assert.equal(parseInt(id[19]!, 16) >> 2, 0b10);
    }
  });

  test('the first 48 bits are the current Unix time in milliseconds', () => {
    const before = Date.now();
    const id = uuidv7();
    const after = Date.now();
    const millis = millisOf(id);
    assert.ok(millis >= before && millis <= after, `timestamp ${millis} not within [${before}, ${after}]`);
  });

  test('strictly increasing over 100 000 calls in a tight loop', () => {
    const ids = new Array<string>(100_000);
    for (let i = 0; i < ids.length; i++) ids[i] = uuidv7();
    for (let i = 1; i < ids.length; i++) {
      if (!(ids[i - 1]! < ids[i]!)) assert.fail(`id ${i} (${ids[i]}) does not sort after id ${i - 1} (${ids[i - 1]})`);
    }
    assert.equal(new Set(ids).size, ids.length);
    const malformed = ids.filter((id) => !V7.test(id));
    assert.deepEqual(malformed, []);
  });
});

describe('isUuid', () => {
  for (const value of [
    '0198f2c0-0000-7000-8000-00000000a001',
    'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    'a0eeBC99-9c0b-4EF8-bb6d-6BB9bd380a11',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '6ba7b810-9dad-11d1-80b4-00c04fd430c8', // v1
    '01234567-89ab-8def-8123-456789abcdef', // v8
  ]) {
    test(`accepts ${value}`, () => {
      assert.equal(isUuid(value), true);
    });
  }

  test('accepts what uuidv7 mints', () => {
    assert.equal(isUuid(uuidv7()), true);
  });

  for (const value of [
    '',
    'not-a-uuid',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1', // 35 characters
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111', // 37 characters
    'a0eebc999c0b4ef8bb6d6bb9bd380a11', // no dashes
    '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g',
    'a0eebc9-99c0b-4ef8-bb6d-6bb9bd380a11', // dash misplaced
    'a0eebc99-9c0b4-ef8-bb6d-6bb9bd380a11',
    ' a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\n',
    'urn:uuid:a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
  ]) {
    test(`rejects ${JSON.stringify(value)}`, () => {
      assert.equal(isUuid(value), false);
    });
  }
});
