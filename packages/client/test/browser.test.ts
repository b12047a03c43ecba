/**
 * Platform check: the SDK bundles for the browser (no Node built-in is imported anywhere in src, docs/client.md)
 * and the bundle runs in a context that has web globals only (no `process`, no `Buffer`).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import vm from 'node:vm';
import { build } from 'esbuild';

const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/index.ts');

test('src bundles for platform=browser with no Node built-ins and no dependencies', async () => {
  const result = await build({ entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
  const inputs = Object.keys(result.metafile.inputs);
  assert.ok(inputs.every((file) => file.startsWith('packages/client/src/')), inputs.join(', '));
  const code = result.outputFiles[0]!.text;
  assert.doesNotMatch(code, /from ["']node:|require\(/);
  // The browser-style bundle evaluates in a fresh context that has only web globals: a bare `process` or `Buffer`
  // anywhere outside guarded runtime detection would throw a ReferenceError here.
  const iife = await build({ entryPoints: [entry], bundle: true, platform: 'browser', format: 'iife', globalName: 'QueenSDK', write: false, logLevel: 'silent' });
  const web = { fetch, Headers, Request, Response, AbortController, AbortSignal, URL, URLSearchParams, crypto, TextEncoder, TextDecoder, console, setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask };
  const context = vm.createContext({ ...web });
  assert.equal(vm.runInContext('typeof process + typeof Buffer + typeof require', context), 'undefinedundefinedundefined');
  vm.runInContext(iife.outputFiles[0]!.text, context);
  const mod = (context as { QueenSDK: typeof import('../src/index.js') }).QueenSDK;
  const requests: string[] = [];
  const fakeFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    requests.push(String(input));
    if (init?.method === 'POST') return new Response('[]', { status: 201, headers: { 'Content-Type': 'application/json' } });
    return new Response(null, { status: 204 });
  }) as typeof fetch;
  const queen = new mod.Queen({ url: 'http://localhost:1', fetch: fakeFetch });
  assert.deepEqual(Array.from(await queen.queue('q').wait(false).pop()), []);
  await queen.queue('q').buffer({ messageCount: 1 }).push({ data: 1 });
  await queen.flushAllBuffers();
  assert.equal(requests.length, 2, requests.join(', '));
  await queen.close();
});
