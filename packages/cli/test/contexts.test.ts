/**
 * Contexts, tokens and authentication (docs/cli.md) against a real broker with JWT auth on: the
 * resolution order of server and token (file < $QUEEN_CONTEXT < --context < $QUEEN_SERVER/$QUEEN_TOKEN <
 * --server/--token), the token-ref schemes, the keychain fallback to `literal:`, 401/403 with the role needed
 * (exit 3), login/logout, and the config file's modes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { freePort, uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { mint } from '../../server/test/support/auth.js';
import { queenctl, tempHome, type RunOptions } from './support.js';

const SECRET = 'cli-suite-secret-that-is-long-enough-for-hs256';
const setup = useBroker({ JWT_ENABLED: 'true', JWT_SECRET: SECRET });
const home = tempHome();
after(() => home.remove());

let admin = '';
let readOnly = '';
let deadA = '';
let deadB = '';
before(async () => {
  admin = await mint(SECRET, { claims: { sub: 'ops', role: 'admin' } });
  readOnly = await mint(SECRET, { claims: { sub: 'viewer', role: 'read-only' } });
  deadA = `http://127.0.0.1:${await freePort()}`;
  deadB = `http://127.0.0.1:${await freePort()}`;
});

/** Runs with this suite's HOME and config file. */
const run = (args: string[], options: RunOptions = {}) => queenctl(args, { ...options, env: { HOME: home.home, QUEEN_CONFIG: home.config, ...options.env } });
const config = () => parseYaml(fs.readFileSync(home.config, 'utf8')) as { 'current-context'?: string; contexts: Array<Record<string, unknown>> };

describe('config commands', () => {
  test('a missing file is an empty config; current-context exits 4', async () => {
    assert.deepEqual(JSON.parse((await run(['config', 'view'], { env: { QUEEN_CONFIG: path.join(home.home, 'none.yaml') } })).stdout), { contexts: [] });
    const r = await run(['config', 'current'], { env: { QUEEN_CONFIG: path.join(home.home, 'none.yaml') } });
    assert.equal(r.code, 4);
    assert.equal(r.stderr, '');
  });
  test('set-context writes atomically with 0700/0600; the first becomes current; --token falls back to literal: with a warning', async () => {
    const r = await run(['config', 'set-context', 'dead', '--server', deadA]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'context "dead" saved (current)\n');
    assert.equal(fs.statSync(home.config).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(home.config)).mode & 0o777, 0o700);
    const t = await run(['config', 'set-context', 'good', '--server', setup.broker.url, '--token', admin]);
    assert.equal(t.code, 0);
    assert.equal(t.stderr, 'queenctl: warning: no OS keychain on this machine: the token is stored as literal: in the config file (mode 0600)\n');
    assert.deepEqual(config(), { 'current-context': 'dead', contexts: [{ name: 'dead', server: deadA }, { name: 'good', server: setup.broker.url, 'token-ref': `literal:${admin}` }] });
    assert.deepEqual(fs.readdirSync(path.dirname(home.config)), ['config.yaml'], 'no temp file left');
  });
  test('get-contexts shows the AUTH kind of each token-ref', async () => {
    await run(['config', 'set-context', 'fromenv', '--server', deadB, '--token-ref', 'env', '--insecure']);
    const rows = JSON.parse((await run(['config', 'get-contexts'])).stdout);
    assert.deepEqual(rows, [
      { current: '*', name: 'dead', server: deadA, auth: 'none', insecure: false },
      { current: '', name: 'good', server: setup.broker.url, auth: 'literal', insecure: false },
      { current: '', name: 'fromenv', server: deadB, auth: 'env', insecure: true },
    ]);
    const table = (await run(['config', 'ls', '-o', 'table'])).stdout.split('\n');
    assert.match(table[0]!, /^CURRENT +NAME +SERVER +AUTH$/);
    assert.match(table[1]!, /^\* +dead +http/);
  });
  test('use-context: unknown exits 1; known switches', async () => {
    const bad = await run(['config', 'use-context', 'nope']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^queenctl: unknown context "nope" \(known: dead, good, fromenv\)/);
    assert.equal((await run(['config', 'use-context', 'dead'])).code, 0);
    assert.equal((await run(['config', 'current-context'])).stdout, 'dead\n');
  });
});

describe('resolution order', () => {
  const target = async (args: string[], env: Record<string, string> = {}) => {
    const r = await run([...args, 'ping'], { env });
    if (r.code === 0) return setup.broker.url;
    const m = /cannot reach (http:\/\/[^:]+:\d+)/.exec(r.stderr);
    return m?.[1] ?? r.stderr;
  };
  test('file current-context < $QUEEN_CONTEXT < --context < $QUEEN_SERVER < --server', async () => {
    assert.equal(await target([]), deadA, 'current-context');
    assert.equal(await target([], { QUEEN_CONTEXT: 'good' }), setup.broker.url, '$QUEEN_CONTEXT beats the file');
    assert.equal(await target(['--context', 'dead'], { QUEEN_CONTEXT: 'good' }), deadA, '--context beats $QUEEN_CONTEXT');
    assert.equal(await target(['--context', 'dead'], { QUEEN_SERVER: setup.broker.url }), setup.broker.url, '$QUEEN_SERVER beats --context');
    assert.equal(await target(['--context', 'good', '--server', deadB], { QUEEN_SERVER: setup.broker.url }), deadB, '--server beats $QUEEN_SERVER');
  });
  test('an unknown --context or $QUEEN_CONTEXT exits 1', async () => {
    const r = await run(['--context', 'nope', 'ping']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^queenctl: unknown context "nope" \(from --context;/);
    assert.match((await run(['ping'], { env: { QUEEN_CONTEXT: 'gone' } })).stderr, /from \$QUEEN_CONTEXT/);
  });
  test('token: context < $QUEEN_TOKEN < --token, each sent as a bearer token', async () => {
    const list = (args: string[], env: Record<string, string> = {}) => run(['--context', 'good', ...args, 'queue', 'list'], { env });
    assert.equal((await list([])).code, 0, 'the context token');
    const env = await list([], { QUEEN_TOKEN: 'not-a-jwt' });
    assert.equal(env.code, 3, '$QUEEN_TOKEN beats the context');
    assert.match(env.stderr, /^queenctl: unauthorized \(401\): Token decode error/);
    assert.equal((await list(['--token', admin], { QUEEN_TOKEN: 'not-a-jwt' })).code, 0, '--token beats $QUEEN_TOKEN');
  });
  test('token-ref schemes: env, file://, literal:, a bare token; a keychain:// ref without a keychain exits 3', async () => {
    const file = path.join(home.home, 'token.txt');
    fs.writeFileSync(file, `${admin}\n`);
    for (const [name, ref, env] of [['e', 'env', { QUEEN_TOKEN: admin }], ['f', `file://${file}`, {}], ['l', `literal:${admin}`, {}], ['b', admin, {}]] as const) {
      await run(['config', 'set-context', name, '--server', setup.broker.url, '--token-ref', ref]);
      const r = await run(['--context', name, 'queue', 'list'], { env });
      assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    }
    await run(['config', 'set-context', 'k', '--server', setup.broker.url, '--token-ref', 'keychain://k']);
    const k = await run(['--context', 'k', 'queue', 'list']);
    assert.equal(k.code, 3);
    assert.match(k.stderr, /^queenctl: token-ref keychain:\/\/k: no keychain on this machine/);
  });
});

describe('authorization errors', () => {
  test('no token: 401 exits 3 with how to give one', async () => {
    const r = await run(['--server', setup.broker.url, 'queue', 'list']);
    assert.equal(r.code, 3);
    assert.equal(r.stderr, "queenctl: unauthorized (401): Authentication required; give a token with --token, $QUEEN_TOKEN or 'queenctl login'\n");
  });
  test('a read-only token: 403 names the role the command needs', async () => {
    const q = uniqueQueue('auth');
    const push = await run(['--server', setup.broker.url, '--token', readOnly, 'push', q, '--data', '{}']);
    assert.equal(push.code, 3);
    assert.equal(push.stderr, 'queenctl: forbidden (403): Insufficient permissions; this command needs the read-write role\n');
    const del = await run(['--server', setup.broker.url, '--token', readOnly, 'queue', 'delete', q, '--yes']);
    assert.equal(del.code, 3);
    assert.match(del.stderr, /this command needs the admin role\n$/);
    assert.equal((await run(['--server', setup.broker.url, '--token', readOnly, 'queue', 'list'])).code, 0, 'reads are allowed');
  });
});

describe('keychain', () => {
  test('with secret-tool and a D-Bus session, --token goes to the keychain (keychain://<context>), is read back, and delete-context removes it', async () => {
    // A stand-in for libsecret's secret-tool that keeps secrets in a file: it checks the CLI's calls (store
    // reads the secret from stdin; lookup/clear by service and account), not GNOME's keyring.
    const bin = path.join(home.home, 'keychain-bin');
    const store = path.join(home.home, 'secrets');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'secret-tool'), `#!/bin/sh
set -e
op="$1"; shift
[ "$op" = store ] && shift
[ "$1" = service ] && [ "$2" = queenctl ] && [ "$3" = account ] || { echo "bad args: $*" >&2; exit 2; }
f="${store}.$4"
case "$op" in
  store) cat > "$f";;
  lookup) [ -f "$f" ] && cat "$f" || exit 1;;
  clear) rm -f "$f";;
esac
`, { mode: 0o755 });
    const env = { QUEENCTL_KEYCHAIN: undefined, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/dev/null', PATH: `${bin}:${process.env.PATH}` };
    const r = await run(['config', 'set-context', 'kc', '--server', setup.broker.url, '--token', admin], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '', 'no fallback warning');
    assert.equal(config().contexts.find((c) => c.name === 'kc')?.['token-ref'], 'keychain://kc');
    assert.equal(fs.readFileSync(`${store}.kc`, 'utf8'), admin);
    assert.deepEqual(config().contexts.find((c) => c.name === 'kc'), { name: 'kc', server: setup.broker.url, 'token-ref': 'keychain://kc' }, 'the token is not in the file');
    assert.equal((await run(['--context', 'kc', 'queue', 'list'], { env })).code, 0, 'read back from the keychain');
    assert.equal((await run(['config', 'set-context', 'kc2', '--server', setup.broker.url, '--token', admin, '--no-keychain'], { env })).stderr, '', '--no-keychain: literal without a warning');
    assert.equal(config().contexts.find((c) => c.name === 'kc2')?.['token-ref'], `literal:${admin}`);
    assert.equal((await run(['config', 'delete-context', 'kc'], { env })).code, 0);
    assert.equal(fs.existsSync(`${store}.kc`), false, 'keychain entry removed');
  });
});

describe('login and logout', () => {
  test('login --token checks the token, stores it (literal: here) and logout forgets it', async () => {
    await run(['config', 'set-context', 'l2', '--server', setup.broker.url]);
    const bad = await run(['--context', 'l2', 'login', '--token', 'nope']);
    assert.equal(bad.code, 3);
    assert.match(bad.stderr, /^queenctl: the server rejected the token \(401\)/);
    const ok = await run(['--context', 'l2', 'login', '--token', admin]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^logged in to context "l2" \(token in the config file\)\n$/);
    assert.equal(config().contexts.find((c) => c.name === 'l2')?.['token-ref'], `literal:${admin}`);
    assert.equal((await run(['--context', 'l2', 'queue', 'list'])).code, 0);
    assert.equal((await run(['--context', 'l2', 'logout'])).code, 0);
    assert.equal(config().contexts.find((c) => c.name === 'l2')?.['token-ref'], undefined);
    assert.equal((await run(['--context', 'l2', 'queue', 'list'])).code, 3);
  });
  test('login reads the token from stdin when not given', async () => {
    const r = await run(['--context', 'l2', 'login'], { input: `${admin}\n` });
    assert.equal(r.code, 0, r.stderr);
  });
  test('password and google methods need queen-mq-proxy: exit 1 naming --method token; no context exits 1', async () => {
    const p = await run(['--context', 'l2', 'login', '-u', 'alice', '--password', 'x']);
    assert.equal(p.code, 1);
    assert.match(p.stderr, /has no \/api\/login \(that method needs queen-mq-proxy in front of the broker\): use --method token\n$/);
    assert.equal((await run(['--context', 'l2', 'login', '--method', 'google'])).code, 1);
    const none = await run(['login', '--token', admin], { env: { QUEEN_CONFIG: path.join(home.home, 'empty.yaml') } });
    assert.equal(none.code, 1);
  });
  test('password and google methods against a scripted queen-mq-proxy: the token cookie is stored; Google is announced or not', async () => {
    // A stand-in for queen-mq-proxy's sign-in routes (the SDK's api/proxy.ts): it checks what the CLI sends.
    let google = true;
    const proxy = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => { body += c.toString('utf8'); });
      req.on('end', () => {
        if (req.method === 'POST' && req.url === '/api/login') {
          const { username, password } = JSON.parse(body) as { username: string; password: string };
          if (username !== 'alice' || password !== 's3cret') return void res.writeHead(401).end();
          res.writeHead(200, { 'Set-Cookie': `token=${encodeURIComponent(admin)}; HttpOnly; Path=/` }).end('{}');
        } else if (req.method === 'GET' && req.url === '/api/auth/config') {
          res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ google: { enabled: google } }));
        } else res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const server = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      await run(['config', 'set-context', 'px', '--server', server]);
      const wrong = await run(['--context', 'px', 'login', '-u', 'alice', '--password', 'nope']);
      assert.equal(wrong.code, 3);
      assert.equal(wrong.stderr, 'queenctl: login refused (401): wrong user or password\n');
      const ok = await run(['--context', 'px', 'login', '-u', 'alice', '--password', 's3cret', '--no-keychain']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(config().contexts.find((c) => c.name === 'px')?.['token-ref'], `literal:${admin}`);
      const viaGoogle = await run(['--context', 'px', 'login', '--method', 'google', '--no-keychain'], { input: 'google-token\n' });
      assert.equal(viaGoogle.code, 0, viaGoogle.stderr);
      assert.match(viaGoogle.stderr, new RegExp(`Sign in at ${server}/api/auth/google, then paste the token shown`));
      assert.equal(config().contexts.find((c) => c.name === 'px')?.['token-ref'], 'literal:google-token');
      google = false;
      const off = await run(['--context', 'px', 'login', '--method', 'google']);
      assert.equal(off.code, 1);
      assert.equal(off.stderr, `queenctl: ${server} does not offer Google sign-in\n`);
    } finally {
      await run(['config', 'delete-context', 'px']);
      proxy.close();
    }
  });
  test('delete-context removes it and clears current-context when it was current', async () => {
    assert.equal((await run(['config', 'use-context', 'l2'])).code, 0);
    assert.equal((await run(['config', 'delete-context', 'l2'])).code, 0);
    assert.equal(config()['current-context'], undefined);
    assert.equal((await run(['config', 'current-context'])).code, 4);
  });
});
