// Builds dist/queenctl.js: the CLI, @queen/client (from its sources), commander, yaml and cli-table3 in one ESM
// bundle, with yaml and cli-table3 in lazily loaded chunks. One file to load instead of ~50 modules keeps
// start-up to first request low, and the bundle runs anywhere (`npm install -g ./packages/cli`, a packed
// tarball) without the workspace. Also writes dist/build-info.json (commit, date) for `queenctl --version`.
// Run by the root `npm run build`, and by bin/queenctl.js on first use when the bundle is missing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
} catch {
  // not a git checkout
}
// Chunk names carry a content hash, so every rebuild with a change adds files; stale ones would pile up in
// dist/chunks and ship in the package (its `files` list takes the whole folder). Start it empty.
fs.rmSync(path.join(root, 'dist', 'chunks'), { recursive: true, force: true });
fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
fs.writeFileSync(path.join(root, 'dist', 'build-info.json'), `${JSON.stringify({ commit, date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') })}\n`);
await build({
  entryPoints: { queenctl: path.join(root, 'src', 'main.ts') },
  outdir: path.join(root, 'dist'),
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The SDK's API layer is a subpath of its own; esbuild would otherwise map `@queen/client/api` below index.ts.
  alias: { '@queen/client/api': path.join(root, '..', 'client', 'src', 'api', 'index.ts'), '@queen/client': path.join(root, '..', 'client', 'src', 'index.ts') },
  // commander and cli-table3 are CommonJS and require Node built-ins.
  banner: { js: "import { createRequire as __queenctlRequire } from 'node:module'; const require = __queenctlRequire(import.meta.url);" },
  logLevel: 'warning',
});
