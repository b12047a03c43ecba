/**
 * The terminal side (docs/cli.md colour and TTY defaults, §12, §13): a session through a real pseudo-terminal
 * (util-linux `script`) shows a table with bold headers and yellow warnings, NO_COLOR turns colour off, piped
 * output is JSON; the completion scripts load in bash and complete commands, aliases, flags and (through
 * `__complete`) queue names from the broker; bench prints its summary and drains everything it pushed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as broker from '@queen/client/api';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { brokerApi, notFound } from '../../server/test/support/sdk-api.js';
import { MAIN, cleanEnv, cliFor, tempHome } from './support.js';

const ns = uniqueQueue('tty').replace(/-/g, '');
const queue = `${ns}.jobs`;
const setup = useBroker({}, async () => {
  await broker.push(api, { items: [{ queue, payload: 1 }, { queue, payload: 2 }] });
});
const cli = cliFor(() => setup.broker.url);
const api = brokerApi(() => setup.broker.url);
const tmp = tempHome();
after(() => tmp.remove());

/** A `queenctl` on PATH for the shells (dynamic completion calls it by name). */
function shim(): string {
  const dir = path.join(tmp.home, 'bin');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'queenctl'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`, { mode: 0o755 });
  return dir;
}

/** Runs a command line inside a pseudo-terminal; returns what the terminal showed. */
function inTerminal(command: string, env: Record<string, string> = {}): { code: number | null; screen: string } {
  const r = spawnSync('script', ['-qec', command, '/dev/null'], { env: cleanEnv({ PATH: `${shim()}:${process.env.PATH}`, TERM: 'xterm-256color', ...env }), encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, screen: (r.stdout ?? '').replace(/\r\n/g, '\n') };
}

describe('a terminal session', () => {
  test('on a TTY the default is a table with bold upper-case headers; warnings are yellow', () => {
    const t = inTerminal(`queenctl --server ${setup.broker.url} queue list --namespace ${ns}`);
    assert.equal(t.code, 0, t.screen);
    assert.match(t.screen, /^\u001b\[1mNAME\u001b\[22m +\u001b\[1mNAMESPACE\u001b\[22m +\u001b\[1mTASK\u001b\[22m/);
    assert.match(t.screen, new RegExp(`\\n${ns.replace('.', '\\.')}\\.jobs +${ns} +jobs +1 +2 +0\\n$`));
    const w = inTerminal('queenctl config set-context tty --server http://localhost:6632 --token t', { HOME: tmp.home, QUEEN_CONFIG: path.join(tmp.home, 'c.yaml') });
    assert.match(w.screen, /\u001b\[33mqueenctl: warning: no OS keychain/);
  });
  test('NO_COLOR, CLICOLOR=0 and --no-color turn colour off; CLICOLOR_FORCE and --color force it when piped', async () => {
    for (const env of [{ NO_COLOR: '1' }, { CLICOLOR: '0' }] as Array<Record<string, string>>) {
      const t = inTerminal(`queenctl --server ${setup.broker.url} queue list --namespace ${ns}`, env);
      assert.match(t.screen, /^NAME +NAMESPACE +TASK/, JSON.stringify(env));
    }
    assert.match(inTerminal(`queenctl --server ${setup.broker.url} --no-color queue list --namespace ${ns}`).screen, /^NAME +NAMESPACE/);
    const forced = await cli(['queue', 'list', '--namespace', ns, '-o', 'table'], { env: { CLICOLOR_FORCE: '1' } });
    assert.match(forced.stdout, /^\u001b\[1mNAME/);
    assert.match((await cli(['--color', 'queue', 'list', '--namespace', ns, '-o', 'table'])).stdout, /^\u001b\[1mNAME/);
    assert.match((await cli(['queue', 'list', '--namespace', ns, '-o', 'table'])).stdout, /^NAME/, 'piped: no colour');
  });
  test('piped, the same command prints JSON', async () => {
    const r = await cli(['queue', 'list', '--namespace', ns]);
    assert.deepEqual(JSON.parse(r.stdout).map((q: { name: string }) => q.name), [queue]);
  });
});

describe('shell completion', () => {
  const bash = (script: string) => spawnSync('bash', ['-c', script], { env: cleanEnv({ PATH: `${shim()}:${process.env.PATH}`, QUEEN_SERVER: setup.broker.url }), encoding: 'utf8', timeout: 20_000 });
  const complete = (words: string[]) => bash(`source <(queenctl completion bash) || exit 9; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _queenctl; printf '%s\\n' "\${COMPREPLY[@]}"`);
  test("bash: `source <(queenctl completion bash)` loads and registers the function", () => {
    const r = bash('source <(queenctl completion bash) && complete -p queenctl');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'complete -o default -F _queenctl queenctl\n');
  });
  test('bash completes commands, sub-commands through aliases, flags, formats and queue names', () => {
    assert.deepEqual(complete(['queenctl', 'ta']).stdout.split('\n').filter(Boolean), ['tail', 'task', 'tasks']);
    assert.deepEqual(complete(['queenctl', 'q', 'de']).stdout.split('\n').filter(Boolean), ['describe', 'delete']);
    assert.ok(complete(['queenctl', 'tail', '--']).stdout.split('\n').includes('--auto-ack'));
    assert.ok(complete(['queenctl', 'tail', '--']).stdout.split('\n').includes('--server'), 'global flags too');
    assert.deepEqual(complete(['queenctl', 'ping', '-o', 'nd']).stdout, 'ndjson\n');
    assert.ok(complete(['queenctl', 'tail', '']).stdout.split('\n').includes(queue), 'queue names from the broker');
  });
  test('zsh, fish and powershell scripts are generated from the same tree', async () => {
    for (const shell of ['zsh', 'fish', 'powershell']) {
      const r = await cli(['completion', shell]);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /dlq/);
      assert.match(r.stdout, /drain/);
      assert.match(r.stdout, /Delete every dead-lettered message/, `${shell} carries descriptions`);
    }
    assert.equal((await cli(['completion', 'tcsh'])).code, 1);
  });
});

test('bench pushes and drains --total messages, with the summary lines', async () => {
  const q = uniqueQueue('bench');
  const r = await cli(['bench', '--queue', q, '--total', '300', '--batch', '50', '--producers', '2', '--consumers', '2', '--partitions', '3']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^PUSH 300 msgs in \S+ \(\S+ msg\/s, request p99 \S+\)\nPOP  300 msgs in \S+ \(\S+ msg\/s\)\nRESIDENCY p50=\S+ p95=\S+ p99=\S+\ncleanup: queenctl queue delete /);
  const parts = (await broker.listPartitions(api, { queue: q })).partitions;
  assert.deepEqual(parts.filter((p) => p.messages.total > 0).map((p) => p.name).sort(), ['p0', 'p1', 'p2']);
  const json = await cli(['bench', '--queue', q, '--total', '100', '--auto-delete', '-o', 'json']);
  const summary = JSON.parse(json.stdout);
  assert.equal(summary.push.messages, 100);
  assert.equal(summary.pop.messages, 100);
  assert.equal(notFound(await broker.getQueue(api, q)), 'Queue not found', '--auto-delete');
});
