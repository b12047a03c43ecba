/**
 * The OpenAPI document (packages/server/openapi.json) is a valid OpenAPI 3.1 document, describes exactly the
 * routes the router serves with their access levels, and speaks of the product only. Whether the broker's
 * answers match it is checked on every e2e response (test/support/contract.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { RouteContext } from '../../src/http/context.js';
import { routeTable } from '../../src/http/routes/index.js';
import { OPENAPI_FILE, contractViolation, findOperation, openApi } from '../support/contract.js';

/**
 * The route table is built over the broker's services, which its factories only capture; no handler runs
 * here. A proxy that answers every property read (and every call) with itself stands in for them, so the
 * table can be listed without a database.
 */
function inertContext(): RouteContext {
  const inert: object = new Proxy(function inert() {}, { get: () => inert, apply: () => inert });
  return inert as RouteContext;
}

const served = routeTable(inertContext()).map((r) => ({ method: r.method.toLowerCase(), template: r.path.replace(/:([A-Za-z]+)/g, '{$1}'), access: r.access }));
const documented = Object.entries(openApi.paths).flatMap(([template, item]) =>
  Object.entries(item).map(([method, operation]) => ({ method, template, operation })));

describe('the OpenAPI document', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(OPENAPI_FILE);
    assert.deepEqual(result.errors, undefined, JSON.stringify(result.errors, null, 2));
    assert.equal(result.valid, true);
    assert.equal(openApi.openapi, '3.1.0');
  });

  test('documents every route the router serves, with its access level', () => {
    const missing = served.filter((r) => openApi.paths[r.template]?.[r.method] === undefined).map((r) => `${r.method.toUpperCase()} ${r.template}`);
    assert.deepEqual(missing, [], 'routes served but not documented');
    for (const r of served) assert.equal(openApi.paths[r.template]![r.method]!['x-queen-access'], r.access, `${r.method.toUpperCase()} ${r.template}`);
  });

  test('documents no operation the router does not serve', () => {
    const extra = documented.filter((d) => !served.some((r) => r.method === d.method && r.template === d.template)).map((d) => `${d.method.toUpperCase()} ${d.template}`);
    assert.deepEqual(extra, [], 'operations documented but not served');
    assert.ok(served.some((r) => r.template === '/openapi.json' && r.access === 'PUBLIC'), 'the broker serves its document, PUBLIC');
  });

  test('every operation has an id, a tag, its security, its path parameters and its error answers', () => {
    const ids = new Set<string>();
    for (const { method, template, operation } of documented) {
      const name = `${method.toUpperCase()} ${template}`;
      const op = operation as unknown as { operationId: string; tags?: string[]; security?: unknown[]; parameters?: { $ref?: string; name?: string; in?: string }[]; responses: Record<string, unknown> };
      assert.ok(!ids.has(op.operationId), `${name}: duplicate operationId ${op.operationId}`);
      ids.add(op.operationId);
      assert.equal(op.tags?.length, 1, `${name}: one tag`);
      const access = operation['x-queen-access'];
      assert.deepEqual(op.security, access === 'PUBLIC' ? [] : [{ bearer: [] }], `${name}: security matches ${access}`);
      const params = (op.parameters ?? []).map((p) => (p.$ref === undefined ? p : (openApi as unknown as { components: { parameters: Record<string, { name: string; in: string }> } }).components.parameters[p.$ref.split('/').pop()!]!));
      for (const [, param] of template.matchAll(/\{([A-Za-z]+)\}/g)) assert.ok(params.some((p) => p.in === 'path' && p.name === param), `${name}: path parameter ${param} declared`);
      for (const status of ['400', '403', '500', '503']) assert.ok(status in op.responses, `${name}: documents ${status}`);
      if (access !== 'PUBLIC') assert.ok('401' in op.responses, `${name}: documents 401`);
    }
  });

  test('path templates resolve like the router: literal segments win over parameters', () => {
    assert.equal(findOperation('GET', '/api/v1/consumer-groups/lagging')?.operation.operationId, 'listLaggingConsumerGroups');
    assert.equal(findOperation('GET', '/api/v1/traces/names')?.operation.operationId, 'listTraceNames');
    assert.equal(findOperation('GET', '/api/v1/traces/p-1/t-1')?.operation.operationId, 'getTraces');
    assert.equal(findOperation('GET', '/api/v1/consumer-groups/orders/')?.operation.operationId, 'getConsumerGroup');
    assert.equal(findOperation('PUT', '/api/v1/push'), null);
  });

  test('its descriptions speak of the product only', () => {
    const text = JSON.stringify(openApi);
    for (const word of [/upstream/i, /\bwaves?\b/i, /API\.md/, /§/, /issue #?\d/i]) assert.doesNotMatch(text, word);
  });
});

describe('the response check of the e2e tests (support/contract.ts)', () => {
  const json = new Headers({ 'content-type': 'application/json' });
  const message = {
    id: '0198f2d2-88aa-7b01-9c3d-0e1f2a3b4c5d', transactionId: 't', traceId: null, data: { n: 1 }, producerSub: null,
    createdAt: '2026-08-02T09:15:01.204611Z', partitionId: '0198f2c0-0000-7000-8000-00000000c007', partition: 'Default', leaseId: '', consumerGroup: '__QUEUE_MODE__',
  };
  const pop = { success: true, queue: 'q', partition: 'Default', partitionId: message.partitionId, leaseId: '', consumerGroup: '__QUEUE_MODE__', messages: [message], partitionsClaimed: 1 };
  const check = (method: string, path: string, status: number, body: unknown, headers = json) =>
    contractViolation(method, path, status, headers, body === undefined ? '' : JSON.stringify(body));

  test('accepts an answer the document describes', () => {
    assert.equal(check('GET', '/api/v1/pop/queue/q', 200, pop), null);
    assert.equal(check('GET', '/api/v1/pop/queue/q', 204, undefined, new Headers({ 'x-queen-empty-reason': 'none' })), null);
    assert.equal(check('POST', '/api/v1/ack', 400, { error: 'transactionId is required' }), null);
    assert.equal(check('GET', '/no/such/route', 404, { error: 'Not Found: no route for GET /no/such/route' }), null);
    // The dashboard's files are not API answers, its JSON settings included.
    assert.equal(check('GET', '/dashboard-config.json', 200, { oidc: null }), null);
  });

  test('refuses a body that drifted, an undocumented status, a missing or unknown header, a body on a 204', () => {
    assert.match(check('GET', '/api/v1/pop/queue/q', 200, { ...pop, messages: [{ ...message, offset: 7 }] }) ?? '', /must NOT have additional properties/);
    assert.match(check('GET', '/api/v1/pop/queue/q', 200, { ...pop, partitionsClaimed: '1' }) ?? '', /partitionsClaimed must be integer/);
    assert.match(check('POST', '/api/v1/push', 200, []) ?? '', /status 200 is not documented/);
    assert.match(check('GET', '/api/v1/pop', 204, undefined, new Headers()) ?? '', /lacks the required header X-Queen-Empty-Reason/);
    assert.match(check('GET', '/api/v1/pop', 204, undefined, new Headers({ 'x-queen-empty-reason': 'bored' })) ?? '', /bored is not one of/);
    assert.match(check('GET', '/api/v1/pop', 204, { messages: [] }, new Headers({ 'content-type': 'application/json', 'x-queen-empty-reason': 'none' })) ?? '', /documented without a body/);
    assert.match(check('GET', '/no/such/route', 404, { message: 'nope' }) ?? '', /not the error shape/);
  });
});
