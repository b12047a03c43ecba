/**
 * Platform check: the SDK bundles for the browser (no Node built-in is imported anywhere in src, CLIENT.md §0)
 * and the bundle runs its pure parts without `process`.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { build } from 'esbuild';

const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/index.ts');

test('src bundles for platform=browser with no Node built-ins and no dependencies', async () => {
  const result = await build({ entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
  const inputs = Object.keys(result.metafile.inputs);
  assert.ok(inputs.every((file) => file.startsWith('packages/client/src/')), inputs.join(', '));
  const code = result.outputFiles[0]!.text;
  assert.doesNotMatch(code, /from ["']node:|require\(/);
  // The bundle evaluates and constructs a client in a context whose globalThis has no `process`.
  const url = `data:text/javascript;base64,${Buffer.from(code.replace(/globalThis\.process/g, 'globalThis.__noProcess')).toString('base64')}`;
  const mod = (await import(url)) as typeof import('../src/index.js');
  const queen = new mod.Queen({ url: 'http://localhost:1', fetch: (async () => new Response(null, { status: 204 })) as typeof fetch });
  assert.deepEqual(await queen.queue('q').wait(false).pop(), []);
  await queen.close();
});
