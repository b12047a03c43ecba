/**
 * The pure parts, without a broker: time expressions and seek targets (docs/cli.md), the jsonpath subset and
 * format parsing (§3), table cells, the route -> role table used in 403 messages (docs/api.md §3), and `--insecure`
 * against an HTTPS server with a self-signed certificate (upstream never wired the flag to its HTTP client).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { queenctl, tempHome } from './support.js';
import { pathOf, routes } from '@queen/client/api';
import { requiredRole } from '../src/errors.js';
import { evaluate, formatResult } from '../src/jsonpath.js';
import { cell, colourEnabled, parseFormat } from '../src/output.js';
import { durationMillis, humanSeconds, parseTime, rfc3339, seekTarget } from '../src/time.js';

const now = new Date('2026-06-15T12:00:00Z');

test('time expressions', () => {
  const at = (e: string) => rfc3339(parseTime(e, '--to', now));
  assert.equal(at('now'), '2026-06-15T12:00:00Z');
  for (const e of ['beginning', 'start', 'earliest']) assert.equal(at(e), '1970-01-01T00:00:00Z');
  assert.equal(at('15m ago'), '2026-06-15T11:45:00Z');
  assert.equal(at('2h30m'), '2026-06-15T09:30:00Z', 'a bare duration means ago');
  assert.equal(at('1d'), '2026-06-14T12:00:00Z');
  assert.equal(at('1w ago'), '2026-06-08T12:00:00Z');
  assert.equal(at('1767225600'), '2026-01-01T00:00:00Z');
  assert.equal(at('2026-01-02T03:04:05.678+02:00'), '2026-01-02T01:04:05.678Z', 'milliseconds are kept');
  assert.equal(rfc3339(parseTime('now', '--to', new Date('2026-06-15T12:00:00.250Z'))), '2026-06-15T12:00:00.250Z');
  assert.equal(at('2026-01-02T03:04:05'), '2026-01-02T03:04:05Z');
  assert.equal(at('2026-01-02 03:04:05'), '2026-01-02T03:04:05Z');
  assert.equal(at('2026-01-02'), '2026-01-02T00:00:00Z');
  for (const bad of ['yesterday', '12', '2026-13-40', '5 minutes ago']) assert.throws(() => parseTime(bad, '--to', now), { exitCode: 1 });
  assert.equal(durationMillis('1.5h'), 5_400_000);
  assert.equal(durationMillis('500ms'), 500);
  assert.equal(durationMillis('90'), undefined);
});

test('seek targets and humanised seconds', () => {
  for (const e of ['now', 'end', 'latest']) assert.deepEqual(seekTarget(e), { toEnd: true });
  for (const e of ['beginning', 'earliest', 'start']) assert.deepEqual(seekTarget(e), { timestamp: '1970-01-01T00:00:00Z' });
  assert.deepEqual(seekTarget('2026-01-01'), { timestamp: '2026-01-01T00:00:00Z' });
  assert.deepEqual([humanSeconds(5), humanSeconds(90), humanSeconds(7500), humanSeconds(90000)], ['5s', '1m30s', '2h5m', '1d1h']);
});

test('jsonpath subset', () => {
  const body = { a: { b: [{ c: 1 }, { c: 2.5 }] }, s: 'x', n: null };
  assert.equal(formatResult(evaluate(body, '.a.b[1].c')), '2.5');
  assert.equal(formatResult(evaluate(body, 'a.b[0].c')), '1');
  assert.equal(formatResult(evaluate(body, '.s')), 'x');
  assert.equal(formatResult(evaluate(body, '.n')), '');
  assert.equal(formatResult(evaluate([7, 8], '[1]')), '8');
  assert.deepEqual(JSON.parse(formatResult(evaluate(body, '.'))), body);
  assert.throws(() => evaluate(body, '.a.x'), { message: 'jsonpath .a.x: no such key', exitCode: 1 });
  assert.throws(() => evaluate(body, '.a.b[9]'), { exitCode: 1 });
  assert.throws(() => evaluate(body, '.a[zz'), { exitCode: 1 });
});

test('formats, colour rules and table cells', () => {
  assert.deepEqual(parseFormat('jsonl'), { kind: 'ndjson' });
  assert.deepEqual(parseFormat('json-path=.a'), { kind: 'jsonpath', expr: '.a' });
  assert.throws(() => parseFormat('xml'), { exitCode: 1 });
  assert.equal(colourEnabled(undefined, {}, true), true);
  assert.equal(colourEnabled(undefined, {}, false), false);
  assert.equal(colourEnabled(undefined, { NO_COLOR: '1' }, true), false);
  assert.equal(colourEnabled(undefined, { CLICOLOR: '0' }, true), false);
  assert.equal(colourEnabled(undefined, { CLICOLOR_FORCE: '1' }, false), true);
  assert.equal(colourEnabled(false, { CLICOLOR_FORCE: '1' }, true), false);
  const t = Date.parse('2026-06-15T12:00:00Z');
  assert.deepEqual([cell(null), cell(''), cell([1, 2]), cell({ a: 1, b: 2 }), cell(1234567), cell(90, 'seconds'), cell('2026-06-15T11:55:00Z', 'text', t), cell('2026-06-15T12:00:30Z', 'time', t)], ['-', '-', '2', '{a,b}', '1,234,567', '1m30s', '5m ago', 'in 30s']);
});

test('the role each route needs (for 403 messages)', () => {
  // Concrete paths (parameters filled in, query strings kept) as a request carries them; the roles are docs/api.md §3's.
  assert.equal(requiredRole('GET', pathOf(routes.listQueues, {}, { limit: 1 })), 'read-only');
  assert.equal(requiredRole('GET', pathOf(routes.popQueue, { queue: 'q' })), 'read-write');
  assert.equal(requiredRole('POST', pathOf(routes.push, {})), 'read-write');
  assert.equal(requiredRole('DELETE', pathOf(routes.deleteMessage, { partitionId: 'p', transactionId: 't' })), 'read-write');
  assert.equal(requiredRole('DELETE', pathOf(routes.deleteQueue, { queue: 'q' })), 'admin');
  assert.equal(requiredRole('DELETE', pathOf(routes.clearQueue, { queue: 'q' }, { partition: 'a' })), 'admin');
  assert.equal(requiredRole('DELETE', pathOf(routes.deleteConsumerGroup, { group: 'g' })), 'admin');
  assert.equal(requiredRole('GET', pathOf(routes.getMaintenance, {})), 'admin');
  assert.equal(requiredRole('POST', pathOf(routes.refreshStats, {})), 'admin');
});

test('--insecure (flag or context) skips TLS verification; without it a self-signed certificate fails with exit 2', async () => {
  const home = tempHome();
  try {
    const key = path.join(home.home, 'key.pem');
    const cert = path.join(home.home, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    const { readFileSync } = await import('node:fs');
    const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"healthy","database":"connected","version":"t"}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const env = { HOME: home.home, QUEEN_CONFIG: home.config };
    try {
      const strict = await queenctl(['--server', url, 'ping'], { env });
      assert.equal(strict.code, 2);
      assert.match(strict.stderr, /^queenctl: cannot reach https:\/\/127\.0\.0\.1:\d+: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_CERT_ALTNAME_INVALID)/);
      const loose = await queenctl(['--server', url, '--insecure', 'ping'], { env });
      assert.equal(loose.code, 0, loose.stderr);
      assert.equal(loose.stderr, '', 'no TLS warning printed');
      await queenctl(['config', 'set-context', 'selfsigned', '--server', url, '--insecure'], { env });
      assert.equal((await queenctl(['ping'], { env })).code, 0, 'the context carries insecure');
    } finally {
      server.close();
    }
  } finally {
    home.remove();
  }
});
