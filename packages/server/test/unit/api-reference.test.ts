/**
 * docs/api-reference.md is generated from packages/server/openapi.json by scripts/api-docs.mjs: the checked-in
 * page must be exactly what the script renders from the checked-in document, so the page people read cannot
 * drift from the contract the broker serves and the tests enforce.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

test('docs/api-reference.md is what scripts/api-docs.mjs renders from openapi.json', () => {
  const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts/api-docs.mjs'), '--stdout'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const checkedIn = fs.readFileSync(path.join(ROOT, 'docs/api-reference.md'), 'utf8');
  const rendered = run.stdout;
  if (checkedIn !== rendered) {
    const a = checkedIn.split('\n');
    const b = rendered.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    assert.fail(`docs/api-reference.md is stale (first difference at line ${line + 1}): run \`node scripts/api-docs.mjs\`\n  checked in: ${a[line]}\n  rendered:   ${b[line]}`);
  }
});
