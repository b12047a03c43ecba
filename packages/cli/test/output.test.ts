/**
 * Read commands, output formats and exit codes (docs/cli.md) against a real broker: every format is
 * parsed back (json, yaml, ndjson, jsonpath, raw), stable tables are compared to golden files, and each failure
 * class ends with its documented exit code and one line on stderr.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import * as broker from '@queen/client/api';
import { freePort, uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { brokerApi } from '../../server/test/support/sdk-api.js';
import { buildProgram } from '../src/cli.js';
import { cliFor, golden, ndjson, queenctl } from './support.js';

const ns = uniqueQueue('ns').replace(/-/g, '');
const queue = `${ns}.orders`;
const setup = useBroker({}, async () => {
  await broker.configure(api, { queue, options: { leaseTime: 60 } });
  const items = [1, 2, 3].map((n) => ({ queue, partition: n === 3 ? 'eu' : 'us', payload: { n }, transactionId: `tx-${n}` }));
  await broker.push(api, { items });
  assert.equal(api.last?.status, 201);
});
const cli = cliFor(() => setup.broker.url);
const api = brokerApi(() => setup.broker.url);

describe('formats', () => {
  test('piped output defaults to json; -o json prints the rows', async () => {
    const r = await cli(['queue', 'list', '--namespace', ns]);
    assert.equal(r.code, 0, r.stderr);
    const rows = JSON.parse(r.stdout) as Array<{ name: string; partitions: number; messages: { total: number } }>;
    assert.deepEqual(rows.map((q) => [q.name, q.partitions, q.messages.total]), [[queue, 3, 3]]);
    assert.deepEqual(JSON.parse((await cli(['queue', 'list', '--namespace', ns, '-o', 'json'])).stdout), rows);
  });
  test('yaml, ndjson (and its alias jsonl) parse back to the same rows', async () => {
    const rows = JSON.parse((await cli(['q', 'ls', '--namespace', ns, '-o', 'json'])).stdout);
    assert.deepEqual(parseYaml((await cli(['queues', 'list', '--namespace', ns, '-o', 'yaml'])).stdout), rows);
    assert.deepEqual(ndjson((await cli(['queue', 'ls', '--namespace', ns, '-o', 'ndjson'])).stdout), rows);
    assert.deepEqual(ndjson((await cli(['queue', 'ls', '--namespace', ns, '-o', 'jsonl'])).stdout), rows);
  });
  test('jsonpath applies to what -o json prints: scalars bare, objects as JSON, bad paths exit 1', async () => {
    const rows = JSON.parse((await cli(['queue', 'list', '--namespace', ns, '-o', 'json'])).stdout);
    assert.equal(rows[0].name, queue);
    assert.equal((await cli(['queue', 'list', '--namespace', ns, '-o', 'jsonpath=[0].name'])).stdout, `${queue}\n`);
    assert.equal((await cli(['queue', 'list', '--namespace', ns, '-o', 'json-path=[0].partitions'])).stdout, `${rows[0].partitions}\n`);
    assert.deepEqual(JSON.parse((await cli(['queue', 'list', '--namespace', ns, '-o', 'jsonpath=.'])).stdout), rows);
    assert.deepEqual(JSON.parse((await cli(['queue', 'describe', queue, '-o', 'jsonpath=.totals'])).stdout).total, 3);
    assert.equal((await cli(['queue', 'describe', queue, '-o', 'jsonpath=.config.leaseTime'])).stdout, '60\n');
    const bad = await cli(['queue', 'list', '--namespace', ns, '-o', 'jsonpath=[5].name']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'queenctl: jsonpath [5]: no such element\n');
    assert.equal(bad.stdout, '');
  });
  test('raw prints text verbatim (Prometheus exposition)', async () => {
    const r = await cli(['metrics', '--prometheus', '-o', 'raw']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^# (HELP|TYPE) /m);
    assert.doesNotMatch(r.stdout, /^"/);
  });
  test('table and wide match the golden files; --no-headers drops the header row', async () => {
    const table = await cli(['queue', 'list', '--namespace', ns, '-o', 'table']);
    assert.equal(table.stdout.replaceAll(ns, 'N'.repeat(ns.length)), golden('queue-list.txt', table.stdout.replaceAll(ns, 'N'.repeat(ns.length))));
    const parts = await cli(['partition', 'list', queue, '-o', 'table']);
    assert.equal(parts.stdout, golden('partition-list.txt', parts.stdout));
    const wide = await cli(['p', 'ls', queue, '-o', 'wide']);
    assert.match(wide.stdout.split('\n')[0]!, /^PARTITION +PENDING +PROCESSING +COMPLETED +FAILED +DLQ +TOTAL +ACTIVITY$/);
    const bare = await cli(['partition', 'list', queue, '-o', 'table', '--no-headers']);
    assert.deepEqual(bare.stdout.split('\n').map((l) => l.split(/ +/)), parts.stdout.split('\n').slice(1).map((l) => l.split(/ +/)));
  });
  test('describe-style commands print YAML in table mode', async () => {
    const r = await cli(['queue', 'describe', queue, '-o', 'table']);
    const doc = parseYaml(r.stdout) as { name: string; config: { leaseTime: number } };
    assert.equal(doc.name, queue);
    assert.equal(doc.config.leaseTime, 60);
  });
  test('an unknown format exits 1', async () => {
    const r = await cli(['ping', '-o', 'xml']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^queenctl: unknown output format "xml"/);
  });
});

describe('top-level reads', () => {
  test('ping: table columns and json body', async () => {
    const t = await cli(['ping', '-o', 'table']);
    assert.equal(t.code, 0);
    assert.match(t.stdout, /^STATUS +DATABASE +VERSION +LATENCY\nhealthy +connected +\d+\.\d+\.\d+ +\d+ms\n$/);
    const j = JSON.parse((await cli(['ping'])).stdout)[0];
    assert.equal(j.status, 'healthy');
    assert.equal(typeof j.latencyMs, 'number');
  });
  test('version prints the build line, then server, status, database, context', async () => {
    const short = await queenctl(['version', '--short']);
    assert.match(short.stdout, /^queenctl \d+\.\d+\.\d+ \(commit [0-9a-f]+|unknown, built .+\)\n$/);
    assert.equal((await queenctl(['--version'])).stdout, short.stdout);
    const full = await cli(['version']);
    assert.match(full.stdout, /^queenctl .+\nserver: +http:\/\/127\.0\.0\.1:\d+ \(\d+\.\d+\.\d+\)\nstatus: +healthy\ndatabase: +connected\ncontext: +-\n$/);
  });
  test('status: one row per queue with counts; status <queue> and --partitions', async () => {
    const rows = JSON.parse((await cli(['status', '--namespace', ns])).stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(rows, [{ queue, namespace: ns, task: 'orders', pending: 3, processing: 0, completed: 0, failed: 0, dlq: 0, lag: 0 }]);
    const t = await cli(['status', '--namespace', ns, '-o', 'table']);
    assert.match(t.stdout, /^queues \d+ +partitions/);
    assert.match(t.stdout, /\nQUEUE +NAMESPACE +PENDING +PROCESSING +COMPLETED +FAILED +DLQ +LAG\n/);
    const one = JSON.parse((await cli(['status', queue, '-o', 'json'])).stdout);
    assert.equal(one[0].pending, 3);
    assert.equal(one[0].partitions, 3);
    const parts = JSON.parse((await cli(['status', queue, '--partitions'])).stdout) as Array<{ name: string; messages: { pending: number } }>;
    assert.deepEqual(parts.map((p) => [p.name, p.messages.pending]).sort(), [['Default', 0], ['eu', 1], ['us', 2]]);
  });
  test('metrics renders the JSON summary (upstream printed {})', async () => {
    const body = JSON.parse((await cli(['metrics'])).stdout);
    assert.equal(typeof body.uptime, 'number');
  });
  test('namespace list, task list', async () => {
    const nsRows = JSON.parse((await cli(['ns', 'list'])).stdout) as Array<{ namespace: string; queues: number }>;
    assert.equal(nsRows.find((r) => r.namespace === ns)?.queues, 1);
    const tasks = JSON.parse((await cli(['task', 'ls'])).stdout) as Array<{ task: string }>;
    assert.ok(tasks.some((t) => t.task === 'orders'));
    const t = await cli(['namespaces', 'ls', '-o', 'table']);
    assert.match(t.stdout, /^NAMESPACE +QUEUES +PARTITIONS +PENDING\n/);
  });
  test('docs lists the pages; an unknown topic exits 1', async () => {
    const r = await queenctl(['docs']);
    assert.match(r.stdout, /^cli +.*docs\/cli\.md/m);
    assert.equal((await queenctl(['docs', '--topic', 'nope'])).code, 1);
  });
});

describe('exit codes and errors', () => {
  test('no server: exit 1 with the hint', async () => {
    const r = await queenctl(['ping']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^queenctl: no server configured: pass --server <url>/);
  });
  test('a server URL with the API path: exit 1 with the address to give instead', async () => {
    for (const url of ['http://127.0.0.1:6632/api/v1', 'https://gw.example.com/queen/api/v1/']) {
      const r = await queenctl(['--server', url, 'queue', 'list']);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, `queenctl: invalid server URL "${url}": give the broker's address without /api/v1 (${url.replace(/\/api\/v1\/?$/, '')}): queenctl adds the API path itself\n`);
    }
  });
  test('unreachable server: exit 2 naming the URL and the errno', async () => {
    const port = await freePort();
    const r = await queenctl(['--server', `http://127.0.0.1:${port}`, 'queue', 'list']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`^queenctl: cannot reach http://127\\.0\\.0\\.1:${port}: ECONNREFUSED`));
    assert.match(r.stderr, /ECONNREFUSED \(is the broker running\?/);
    assert.equal(r.stderr.split('\n').length, 2, 'one line');
  });
  test('404 queue: exit 1 with the broker text and the route', async () => {
    const r = await cli(['queue', 'describe', 'no-such-queue']);
    assert.equal(r.code, 1);
    const route = broker.routes.getQueue;
    assert.equal(r.stderr, `queenctl: Queue not found (${route.method} ${broker.pathOf(route, { queue: 'no-such-queue' })})\n`);
    const s = await cli(['status', 'no-such-queue']);
    assert.equal(s.code, 1);
  });
  test('bad flags, bad values, unknown commands and missing arguments: exit 1, one line', async () => {
    for (const args of [['queue', 'list', '--bogus'], ['lag', '--min-seconds', 'x'], ['frobnicate'], ['tail'], ['ping', '--timeout', 'soon']]) {
      const r = await cli(args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^queenctl: /, args.join(' '));
    }
  });
  test('a missing --yes exits 1 and deletes nothing', async () => {
    const r = await cli(['queue', 'delete', queue]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `queenctl: delete queue "${queue}": add --yes to confirm\n`);
    assert.equal(JSON.parse((await cli(['queue', 'describe', queue, '-o', 'json'])).stdout).name, queue);
  });
  test('time expressions: a bad one exits 1 with examples', async () => {
    const r = await cli(['dlq', 'list', '--from', 'yesterday-ish']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^queenctl: invalid time for --from: "yesterday-ish" \(examples: now, beginning/);
  });
});

test('--help on every command shows an example', () => {
  const program = buildProgram();
  const seen: string[] = [];
  const visit = (cmd: ReturnType<typeof buildProgram>, path: string[]) => {
    for (const c of cmd.commands) {
      if ((c as unknown as { _hidden?: boolean })._hidden) continue;
      let text = '';
      c.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
      c.exitOverride();
      c.outputHelp();
      const at = [...path, c.name()];
      seen.push(at.join(' '));
      assert.match(text, /\nExamples?:\n {2}\$ (queenctl|source|echo|cat) /, `${at.join(' ')} --help has an example`);
      visit(c, at);
    }
  };
  visit(program, []);
  const docs = fs.readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
  const undocumented = seen.filter((c) => c.includes(' ') && !docs.includes(c) && !c.startsWith('analytics '));
  assert.deepEqual(undocumented, [], 'every command is in docs/cli.md');
  assert.ok(seen.length > 80, `${seen.length} commands`);
  for (const c of ['ping', 'tail', 'queue clear', 'partition clear', 'messages retry', 'messages dlq', 'dlq requeue', 'dlq drain', 'cg subscription', 'analytics postgres', 'completion', 'login', 'logout']) assert.ok(seen.includes(c), c);
});
