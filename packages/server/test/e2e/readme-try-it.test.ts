/**
 * The README's "Try it" block (issue 13 item 12) runs as written against a broker (its port substituted) and
 * prints exactly the outputs the README shows under each command (`01a2...` stands for any id). It needs
 * bash, curl and jq, like the README itself.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { useBroker } from '../support/harness.js';

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../README.md');
const setup = useBroker();

/** The sh block that follows "Try it" in the README. */
function tryItBlock(): string {
  const text = fs.readFileSync(README, 'utf8');
  const start = text.indexOf('```sh\n', text.indexOf('Try it'));
  return text.slice(start + 6, text.indexOf('```\n', start + 6));
}

test('README "Try it": push, pop, a second pop (204) and ack print what the README says', async () => {
  const block = tryItBlock();
  const expected = block.split('\n').filter((line) => /^# [[{0-9]/.test(line)).map((line) => line.slice(2));
  assert.equal(expected.length, 4, 'the README shows four outputs');
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-try-it-'));
  try {
    const script = `set -euo pipefail\n${block.replaceAll('localhost:6632', `127.0.0.1:${setup.broker.port}`)}`;
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd, timeout: 30_000 });
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, expected.length, stdout);
    expected.forEach((want, i) => {
      const pattern = new RegExp(`^${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/01a2\\\.\\\.\\\./g, '[0-9a-f-]{36}')}$`);
      assert.match(lines[i]!, pattern, `output ${i + 1}`);
    });
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});
