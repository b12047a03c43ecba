#!/usr/bin/env node
// Builds the dashboard into dist/: one hashed JS and one hashed CSS file under dist/assets/ (immutable-cached
// by the broker), dist/index.html that loads them (never cached), and a .gz beside every text file (the broker
// sends it to clients that accept gzip). Prints the gzipped size of the first view and fails above the budget.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, 'dist');
/** Gzipped bytes the first view may load (DASHBOARD budget: < 300 KB). */
export const BUDGET_BYTES = 300 * 1024;

fs.rmSync(dist, { recursive: true, force: true });
const result = await build({
  entryPoints: [path.join(here, 'src', 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: path.join(dist, 'assets'),
  entryNames: '[name].[hash]',
  assetNames: '[name].[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
  // The SDK's API layer from its sources, as the CLI bundle takes it: the build needs no prior build of the SDK.
  alias: { '@queen/client/api': path.join(here, '..', 'client', 'src', 'api', 'index.ts') },
});
const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(dist, path.resolve(process.cwd(), file)).split(path.sep).join('/'));
const js = outputs.find((f) => f.endsWith('.js'));
const css = outputs.find((f) => f.endsWith('.css'));
if (js === undefined) throw new Error('esbuild wrote no JavaScript');
const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Queen Dashboard</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='7' fill='%23e0b84c'/%3E%3C/svg%3E">
${css !== undefined ? `<link rel="stylesheet" href="/${css}">\n` : ''}<script type="module" src="/${js}"></script>
</head>
<body><div id="app"></div></body>
</html>
`;
fs.writeFileSync(path.join(dist, 'index.html'), html);
let gzipped = 0;
for (const file of ['index.html', ...outputs]) {
  const full = path.join(dist, file);
  const gz = zlib.gzipSync(fs.readFileSync(full), { level: 9 });
  fs.writeFileSync(`${full}.gz`, gz);
  gzipped += gz.length;
}
fs.writeFileSync(path.join(dist, 'bundle-size.json'), JSON.stringify({ gzippedBytes: gzipped, budgetBytes: BUDGET_BYTES, files: ['index.html', ...outputs] }, null, 2) + '\n');
console.log(`dashboard: ${outputs.join(', ')}; first view ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${BUDGET_BYTES / 1024} KB)`);
if (gzipped >= BUDGET_BYTES) {
  console.error('dashboard: bundle over budget');
  process.exit(1);
}
