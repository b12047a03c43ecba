#!/usr/bin/env node
// The queenctl executable: runs the bundle (dist/queenctl.js). Right after `npm ci`, before any build, it builds
// the bundle once (esbuild, well under a second) so `npx queenctl` works at once.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = new URL('../dist/queenctl.js', import.meta.url);
if (!fs.existsSync(bundle)) {
  execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/bundle.mjs', import.meta.url))], { stdio: ['ignore', 'ignore', 'inherit'] });
}
await import(bundle.href);
