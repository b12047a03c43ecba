/**
 * What a log record keeps of an error (src/logger.ts errorFields): type, message, scalar fields and stack, never
 * the objects an error carries (a pg client dumped 4-5 KB per line at shutdown); a lost connection is one line.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorFields, prettyLine } from '../../src/logger.js';

test('scalar fields stay, objects and long strings go', () => {
  const error = Object.assign(new Error('duplicate key'), { code: '23505', detail: 'Key (id)=(1) exists', client: { connection: { stream: {} } }, huge: 'x'.repeat(500) });
  const fields = errorFields(error);
  assert.deepEqual(Object.keys(fields).sort(), ['code', 'detail', 'message', 'stack', 'type']);
  assert.equal(fields.code, '23505');
});

test('a lost connection keeps no stack and prints as one line', () => {
  for (const error of [
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    new Error('Connection terminated unexpectedly'),
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  ]) {
    const fields = errorFields(error);
    assert.equal(fields.stack, undefined, error.message);
    const line = prettyLine(JSON.stringify({ level: 40, time: 0, msg: 'idle database connection failed', err: fields }));
    assert.equal(line.split('\n').length, 2, line); // one line and its newline
    assert.match(line, new RegExp(`WARN  idle database connection failed error="${error.message}"`));
  }
});

test('something thrown that is not an Error is shown briefly', () => {
  assert.deepEqual(errorFields(undefined), { message: 'undefined' });
  assert.ok(String(errorFields({ a: { b: { c: 'x'.repeat(1000) } } }).message).length <= 200);
});
