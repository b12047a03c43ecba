/**
 * `GET /openapi.json`: the broker serves the checked-in OpenAPI document, as JSON, without a token even when
 * authentication is on (PUBLIC, like /health), and the document describes that very route.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { OPENAPI_FILE } from '../support/contract.js';
import { mint } from '../support/auth.js';
import { useBroker } from '../support/harness.js';

const SECRET = 'openapi-test-secret-0123456789abcdef';
const setup = useBroker({ JWT_ENABLED: 'true', JWT_SECRET: SECRET });

test('GET /openapi.json answers the checked-in document, without a token while auth is on', async () => {
  const res = await setup.api.get('/openapi.json');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(res.json, JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')));
  assert.equal(res.json.paths['/openapi.json'].get['x-queen-access'], 'PUBLIC');
});

test('the other routes still need a token: the document is the only new public surface', async () => {
  const denied = await setup.api.get('/api/v1/resources/queues');
  assert.equal(denied.status, 401);
  assert.deepEqual(denied.json, { error: 'Authentication required' });
  const token = await mint(SECRET, { claims: { role: 'read-only' } });
  const allowed = await setup.api.get('/api/v1/resources/queues', { Authorization: `Bearer ${token}` });
  assert.equal(allowed.status, 200);
});
