/**
 * The SDK's API layer and the broker's OpenAPI document describe the same API: every operation of the document
 * has one route in `apiRoutes` with the same method, path template and access level, and the reverse. (What the
 * answers look like is checked against the document at run time: every SDK test's responses pass through the
 * shared harness, which validates them with the document's schemas.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { apiRoutes } from '../src/api/index.js';

interface Operation {
  operationId: string;
  'x-queen-access': string;
}
const DOCUMENT = new URL('../../server/openapi.json', import.meta.url);
const document = JSON.parse(fs.readFileSync(DOCUMENT, 'utf8')) as { paths: Record<string, Record<string, Operation>> };
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** `METHOD path -> access` of every operation in the document. */
const documented = new Map<string, string>(
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation['x-queen-access']] as const),
  ),
);
const layered = new Map<string, string>(apiRoutes.map((route) => [`${route.method} ${route.path}`, route.access]));

test('every documented operation has a route in the SDK, with its access level', () => {
  const missing = [...documented.keys()].filter((key) => !layered.has(key));
  assert.deepEqual(missing, [], 'operations of openapi.json without an SDK route');
  for (const [key, access] of documented) assert.equal(layered.get(key), access, key);
});

test('every SDK route is a documented operation', () => {
  const extra = [...layered.keys()].filter((key) => !documented.has(key));
  assert.deepEqual(extra, [], 'SDK routes missing from openapi.json');
  assert.equal(layered.size, documented.size);
});
