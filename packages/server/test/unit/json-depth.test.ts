/**
 * The depth scan that runs before JSON.parse (src/http/body.ts#jsonDepthExceeds): strings are skipped to
 * their closing quote, so brackets inside strings never count, escaped quotes do not close a string, and
 * the answer is the nesting JSON.parse would build. Checked against a character-by-character reference on
 * bodies that put brackets, quotes and backslash runs inside and around strings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonDepthExceeds } from '../../src/http/body.js';

/** The reference: the character-by-character scan the broker used before. */
function reference(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth -= 1;
  }
  return false;
}

const BODIES = [
  '{"items":[{"queue":"q","payload":{"a":[1,2,{"b":null}]}}]}',
  '{"a":"[[[[[[[[[[[[[[[[[[[["}',
  '{"a":"\\\\"}',
  '{"a":"x\\"[[[[[[[[[","b":[[[[1]]]]}',
  '{"a":"\\\\\\"[[[[[[[[","b":1}',
  `${'['.repeat(40)}"]]]"${']'.repeat(40)}`,
  '{"a":"unterminated [[[[[[[[[[[[',
  '"\\\\\\\\"[[[[[[[[[[',
  '{"k\\u0022[[[[":[[[["x"]]]]}',
];

test('the depth scan agrees with a character-by-character scan at every limit', () => {
  for (const body of BODIES) {
    for (let limit = 0; limit <= 45; limit++) {
      assert.equal(jsonDepthExceeds(body, limit), reference(body, limit), `${body} at ${limit}`);
    }
  }
});

test('brackets inside strings never count; nesting does', () => {
  assert.equal(jsonDepthExceeds('{"a":"[[[[[[[[[[[[[[[[[["}', 1), false);
  assert.equal(jsonDepthExceeds('{"a":[[["x"]]]}', 3), true);
  assert.equal(jsonDepthExceeds('{"a":[[["x"]]]}', 4), false);
  // An escaped quote does not end the string, an escaped backslash before a quote does.
  assert.equal(jsonDepthExceeds('{"a":"\\"[[["}', 1), false);
  assert.equal(jsonDepthExceeds('{"a":"\\\\",[[[1]]]}', 3), true);
});
