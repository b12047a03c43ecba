/**
 * The broker's static serving of the dashboard (docs/dashboard.md, http/static.ts) over real HTTP, on a bundle
 * directory made by the test: content types, immutable assets, index.html never cached, gzip when accepted,
 * the history fallback that never shadows `/api/`, `/health`, `/metrics`, `/streams/`, `/internal/`, path
 * traversal refused, API routes untouched, JWT not needed for the static files; DASHBOARD_ENABLED=false off.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { useBroker } from '../support/harness.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-dashboard-'));
const bundle = path.join(root, 'dist');
fs.mkdirSync(path.join(bundle, 'assets'), { recursive: true });
const INDEX = '<!doctype html><title>Queen Dashboard</title><div id="app"></div>';
const APP_JS = 'console.log("app");'.repeat(50);
fs.writeFileSync(path.join(bundle, 'index.html'), INDEX);
fs.writeFileSync(path.join(bundle, 'assets', 'main.AB12CD34.js'), APP_JS);
fs.writeFileSync(path.join(bundle, 'assets', 'main.AB12CD34.js.gz'), zlib.gzipSync(APP_JS));
fs.writeFileSync(path.join(bundle, 'assets', 'main.AB12CD34.css'), 'body{}');
fs.writeFileSync(path.join(bundle, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
fs.writeFileSync(path.join(root, 'secret.txt'), 'outside the bundle');
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** A GET with a raw, unnormalised path (fetch would resolve `..` itself). */
function rawGet(base: string, rawPath: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: rawPath, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('dashboard enabled (DASHBOARD_DIR = a built bundle)', () => {
  const setup = useBroker({ DASHBOARD_DIR: bundle, JWT_ENABLED: 'true', JWT_SECRET: 'static-test-secret-0123456789abcdef' });

  test('/ and any app path answer index.html, never cached', async () => {
    for (const p of ['/', '/queues', '/queues/orders', '/queues/a%2Fb?range=6h', '/dlq/']) {
      const res = await rawGet(setup.broker.url, p);
      assert.equal(res.status, 200, p);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', p);
      assert.equal(res.headers['cache-control'], 'no-cache, no-store, must-revalidate', p);
      assert.equal(res.body.toString(), INDEX, p);
      // No framing by other pages, scripts and connections from this origin only.
      assert.equal(res.headers['x-frame-options'], 'DENY', p);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/, p);
      assert.match(String(res.headers['content-security-policy']), /script-src 'self';/, p);
    }
  });

  test('assets are served with their type and cached for a year; gzip when accepted', async () => {
    const js = await rawGet(setup.broker.url, '/assets/main.AB12CD34.js');
    assert.equal(js.status, 200);
    assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(js.headers['content-encoding'], undefined);
    assert.equal(js.body.toString(), APP_JS);
    const gz = await rawGet(setup.broker.url, '/assets/main.AB12CD34.js', { 'Accept-Encoding': 'gzip, deflate' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(gz.body).toString(), APP_JS);
    const css = await rawGet(setup.broker.url, '/assets/main.AB12CD34.css');
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    const png = await rawGet(setup.broker.url, '/logo.png');
    assert.equal(png.headers['content-type'], 'image/png');
    assert.equal(png.headers['cache-control'], 'public, max-age=3600');
  });

  test('a missing asset is a plain 404, not the app', async () => {
    const res = await rawGet(setup.broker.url, '/assets/nope.js');
    assert.equal(res.status, 404);
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(res.body.toString(), 'Not Found');
  });

  test('API-looking paths never get the app: JSON 404', async () => {
    for (const p of ['/api/v1/nope', '/api/', '/health/x', '/metrics/nope', '/streams/v1/nope', '/internal/api/x']) {
      const res = await rawGet(setup.broker.url, p);
      assert.equal(res.status, 404, p);
      assert.match(res.headers['content-type'] ?? '', /^application\/json/, p);
      assert.deepEqual(JSON.parse(res.body.toString()), { error: `Not Found: no route for GET ${p}` }, p);
    }
  });

  test('API routes are untouched: /health answers, a protected route still needs a token', async () => {
    const health = await rawGet(setup.broker.url, '/health');
    assert.equal(health.status, 200);
    assert.equal(JSON.parse(health.body.toString()).status, 'healthy');
    const queues = await rawGet(setup.broker.url, '/api/v1/resources/queues');
    assert.equal(queues.status, 401);
  });

  test('path traversal is refused with 403', async () => {
    for (const p of ['/../secret.txt', '/assets/../../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2F..%2Fsecret.txt', '/..%5csecret.txt']) {
      const res = await rawGet(setup.broker.url, p);
      assert.equal(res.status, 403, p);
      assert.equal(res.body.toString(), 'Forbidden', p);
    }
  });

  test('only GET and HEAD are served; HEAD has the headers without a body', async () => {
    const head = await fetch(`${setup.broker.url}/queues`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(INDEX)));
    const post = await fetch(`${setup.broker.url}/queues`, { method: 'POST' });
    assert.equal(post.status, 404);
    assert.deepEqual(await post.json(), { error: 'Not Found: no route for POST /queues' });
  });
});

describe('DASHBOARD_ENABLED=false', () => {
  const setup = useBroker({ DASHBOARD_DIR: bundle, DASHBOARD_ENABLED: 'false' });

  test('nothing is served at / and the API still works', async () => {
    const res = await rawGet(setup.broker.url, '/');
    assert.equal(res.status, 404);
    assert.deepEqual(JSON.parse(res.body.toString()), { error: 'Not Found: no route for GET /' });
    assert.equal((await rawGet(setup.broker.url, '/assets/main.AB12CD34.js')).status, 404);
    assert.equal((await rawGet(setup.broker.url, '/api/v1/resources/queues')).status, 200);
  });
});

describe('a bundle directory without index.html', () => {
  const setup = useBroker({ DASHBOARD_DIR: path.join(root, 'not-built') });

  test('the broker starts, warns, and answers JSON 404 at /', async () => {
    const res = await rawGet(setup.broker.url, '/');
    assert.equal(res.status, 404);
    assert.match(setup.broker.output(), /dashboard not built/);
  });
});
