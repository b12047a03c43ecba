/** Client-minted ids: UUIDv7 layout, ordering, and the any-version UUID check used for traceIds. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UUID_V7 } from '../../server/test/support/messaging.js';
import { isUuid, uuidv7 } from '../src/ids.js';

test('uuidv7: RFC 9562 layout, current timestamp, strictly increasing, unique', () => {
  const ids = Array.from({ length: 5000 }, () => uuidv7());
  for (const id of ids) assert.match(id, UUID_V7);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids, 'minted in order');
  const millis = parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16);
  assert.ok(Math.abs(millis - Date.now()) < 5000);
});

test('isUuid accepts every version and case, nothing else', () => {
  assert.ok(isUuid('c232ab00-9414-11ec-b3c8-9f6bdeced846')); // v1
  assert.ok(isUuid('6FA459EA-EE8A-3CA4-894E-DB77E160355E')); // v3, upper case
  assert.ok(isUuid(uuidv7()));
  assert.ok(!isUuid('not-a-uuid'));
  assert.ok(!isUuid('c232ab00941411ecb3c89f6bdeced846'));
  assert.ok(!isUuid(42));
});
