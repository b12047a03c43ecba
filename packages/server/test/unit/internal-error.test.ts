/**
 * An error of the broker's own code answers a generic 500 with a request id, never its JavaScript message
 * (`{"error":"Invalid string length"}` quoted internals); the log line carries the same id and the error.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { internalError } from '../../src/http/server.js';

test('a generic 500 with a request id; the log line has the id, the route and the error', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const reply = internalError(pino({ level: 'info' }, sink), new RangeError('Invalid string length'), 'GET /api/v1/dlq');
  assert.equal(reply.status, 500);
  const body = reply.body as { error: string; requestId: string };
  assert.deepEqual(Object.keys(body), ['error', 'requestId']);
  assert.equal(body.error, 'Internal server error');
  assert.match(body.requestId, /^[0-9a-f-]{36}$/);
  assert.equal(reply.headers?.['X-Request-Id'], body.requestId);
  assert.ok(!JSON.stringify(reply.body).includes('Invalid string length'));
  assert.equal(lines.length, 1);
  const logged = JSON.parse(lines[0]!) as { requestId: string; route: string; err: { message: string }; msg: string };
  assert.equal(logged.requestId, body.requestId);
  assert.equal(logged.route, 'GET /api/v1/dlq');
  assert.equal(logged.err.message, 'Invalid string length');
});
