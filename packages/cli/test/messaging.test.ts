/**
 * The data path through the CLI (docs/cli.md) against a real broker: push in every input form,
 * pop, ack, tail (limit, one-shot, idle exit, follow + auto-ack + Ctrl-C), replay, apply with and without
 * --dry-run, and transaction bundles. Assertions read the broker's state back, not only the CLI's output.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as broker from '@queen/client/api';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { brokerApi, found, notFound } from '../../server/test/support/sdk-api.js';
import { cliFor, ndjson, spawnCli, tempHome, until } from './support.js';

const setup = useBroker();
const cli = cliFor(() => setup.broker.url);
const api = brokerApi(() => setup.broker.url);
const tmp = tempHome();
after(() => tmp.remove());

/** Every message of a queue as the broker stores them: partition -> payloads, in order. */
async function stored(queue: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (;;) {
    const res = await broker.popQueue(api, queue, { batch: 100, wait: false, consumerGroup: `inspect-${Math.random()}`, autoAck: true, partitions: 100 });
    if (res === null) return out;
    for (const m of res.messages) (out[m.partition] ??= []).push(m.data);
    return out;
  }
}

const UUID = '0198f2e0-51c4-7e22-a1b0-3c4d5e6f7081';

describe('push', () => {
  test('--data with several lines, -f file, stdin; duplicates counted', async () => {
    const q = uniqueQueue('push');
    const r = await cli(['push', q, '--data', '{"n":1}\n\n{"n":2}']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'queued=2 duplicate=0 failed=0\n');
    const file = path.join(tmp.home, 'in.ndjson');
    fs.writeFileSync(file, '{"n":3}\r\n{"n":4}\n');
    assert.equal((await cli(['push', q, '-f', file])).stdout, 'queued=2 duplicate=0 failed=0\n');
    assert.equal((await cli(['push', q], { input: '{"n":5}\n' })).stdout, 'queued=1 duplicate=0 failed=0\n');
    assert.equal((await cli(['push', q, '--data', '{"n":6}', '--transaction-id', 'once'])).stdout, 'queued=1 duplicate=0 failed=0\n');
    assert.equal((await cli(['push', q, '--data', '{"n":6}', '--transaction-id', 'once'])).stdout, 'queued=0 duplicate=1 failed=0\n');
    assert.deepEqual(await stored(q), { Default: [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }, { n: 6 }] });
  });
  test('--partition, --partition-key (missing key falls back), --wrapped per-line values win, --trace-id', async () => {
    const q = uniqueQueue('push');
    const input = ['{"c":{"id":7},"v":1}', '{"c":{"id":"x"},"v":2}', '{"v":3}'].join('\n');
    assert.equal((await cli(['push', q, '--partition-key', 'c.id', '--partition', 'fallback', '--trace-id', UUID], { input })).code, 0);
    assert.deepEqual(await stored(q), { 7: [{ c: { id: 7 }, v: 1 }], x: [{ c: { id: 'x' }, v: 2 }], fallback: [{ v: 3 }] });
    const w = uniqueQueue('wrap');
    const wrapped = ['{"transactionId":"a","partition":"p1","data":{"k":1}}', '{"data":{"k":2}}'].join('\n');
    assert.equal((await cli(['push', w, '--wrapped', '--partition', 'p2'], { input: wrapped })).code, 0);
    assert.deepEqual(await stored(w), { p1: [{ k: 1 }], p2: [{ k: 2 }] });
    const list = (await broker.listMessages(api, { queue: q })).messages;
    assert.ok(list.every((m) => m.traceId === UUID));
  });
  test('--batch splits requests; an invalid line exits 1 after the batches before it were sent', async () => {
    const q = uniqueQueue('push');
    const input = ['{"n":1}', '{"n":2}', '{"n":3}', 'nope', '{"n":5}'].join('\n');
    const r = await cli(['push', q, '--batch', '2'], { input });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^queenctl: line 4: invalid JSON .*; 2 earlier messages were already sent\n$/);
    assert.deepEqual(await stored(q), { Default: [{ n: 1 }, { n: 2 }] });
  });
  test('nothing read exits 4; --dry-run counts and sends nothing; failed items exit 2', async () => {
    const q = uniqueQueue('push');
    const empty = await cli(['push', q], { input: '\n\n' });
    assert.equal(empty.code, 4);
    assert.equal(empty.stdout + empty.stderr, '');
    assert.equal((await cli(['push', q, '--dry-run'], { input: '1\n2\n' })).stdout, `[dry-run] would push 2 messages to "${q}"\n`);
    assert.equal(notFound(await broker.getQueue(api, q)), 'Queue not found');
    const bad = await cli(['push', q, '--data', '{}', '--trace-id', 'not-a-uuid']);
    assert.equal(bad.code, 2);
    assert.equal(bad.stdout, 'queued=0 duplicate=0 failed=1\n');
    assert.equal(bad.stderr, 'queenctl: push failed: item 1: Invalid traceId: must be a UUID\n');
  });
  test('-o json prints the tally', async () => {
    assert.deepEqual(JSON.parse((await cli(['push', uniqueQueue('push'), '--data', '1', '-o', 'json'])).stdout), { queued: 1, duplicate: 0, failed: 0 });
  });
});

describe('pop and ack', () => {
  test('an empty pop exits 4; pop prints NDJSON lines that ack --batch settles', async () => {
    const q = uniqueQueue('pop');
    const empty = await cli(['pop', q, '--no-wait']);
    assert.equal(empty.code, 4);
    assert.equal(empty.stdout, '');
    await cli(['push', q, '--partition', 'a'], { input: '{"n":1}\n{"n":2}\n{"n":3}\n' });
    const r = await cli(['pop', q, '--cg', 'g', '-n', '2', '--wait=false']);
    assert.equal(r.code, 0, r.stderr);
    const lines = ndjson(r.stdout);
    assert.deepEqual(lines.map((l) => [l.queue, l.partition, l.data.n, l.consumerGroup]), [[q, 'a', 1, 'g'], [q, 'a', 2, 'g']]);
    assert.ok(lines.every((l) => typeof l.transactionId === 'string' && typeof l.partitionId === 'string' && typeof l.leaseId === 'string' && typeof l.createdAt === 'string'));
    const ack = await cli(['ack', '--batch', '-', '--cg', 'g'], { input: r.stdout });
    assert.equal(ack.code, 0, ack.stderr);
    assert.equal(ack.stdout, 'ok=2 failed=0\n');
    assert.deepEqual(ndjson((await cli(['pop', q, '--cg', 'g', '-n', '5', '--no-wait'])).stdout).map((l) => l.data.n), [3]);
  });

  test('pop and tail print the same timestamps (milliseconds); --group is --cg', async () => {
    const q = uniqueQueue('times');
    await cli(['push', q], { input: '{"n":1}\n' });
    const tailed = ndjson((await cli(['tail', q, '-n', '1'])).stdout);
    const popped = await cli(['pop', q, '--group', 'kafka-habit', '--no-wait']);
    assert.equal(popped.code, 0, popped.stderr);
    const [line] = ndjson(popped.stdout);
    assert.equal(line.consumerGroup, 'kafka-habit');
    assert.match(line.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(line.createdAt, tailed[0].createdAt, 'the same message, the same text');
    assert.equal((await cli(['ack', '--batch', '-'], { input: '' })).code, 4);
  });
  test('ack one message: ok, then a refused ack exits 2 with the broker reason', async () => {
    const q = uniqueQueue('ack');
    await cli(['push', q, '--data', '{"n":1}']);
    const [m] = ndjson((await cli(['pop', q, '--no-wait'])).stdout);
    const ok = await cli(['ack', m.transactionId, '--partition-id', m.partitionId, '--lease-id', m.leaseId]);
    assert.equal(ok.stdout, 'ack ok\n');
    await cli(['push', q, '--data', '{"n":2}']);
    const [m2] = ndjson((await cli(['pop', q, '--no-wait'])).stdout);
    const bad = await cli(['ack', m2.transactionId, '--partition-id', m2.partitionId, '--lease-id', UUID]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'queenctl: ack failed: Invalid or expired lease\n');
    assert.equal((await cli(['ack', m2.transactionId])).code, 1, '--partition-id required');
  });
  test('--auto-ack, --partition, --batch, and the discovery pop by namespace', async () => {
    const ns = uniqueQueue('ns').replace(/-/g, '');
    const q = `${ns}.jobs`;
    await cli(['push', q, '--partition', 'p1'], { input: '1\n2\n' });
    await cli(['push', q, '--partition', 'p2'], { input: '3\n' });
    assert.deepEqual(ndjson((await cli(['pop', q, '--partition', 'p2', '--auto-ack', '--no-wait'])).stdout).map((l) => l.data), [3]);
    assert.equal((await cli(['pop', q, '--partition', 'p2', '--no-wait'])).code, 4, 'auto-acked');
    const d = ndjson((await cli(['pop', '--namespace', ns, '-n', '2', '--batch', '2', '--no-wait'])).stdout);
    assert.deepEqual(d.map((l) => [l.partition, l.data]), [['p1', 1], ['p1', 2]]);
    assert.equal((await cli(['pop', '--no-wait'])).code, 1, 'neither queue nor namespace/task');
  });
  test('pop --batch 2 pops two messages in one request', async () => {
    const q = uniqueQueue('popbatch');
    await cli(['push', q], { input: '1\n2\n3\n' });
    assert.deepEqual(ndjson((await cli(['pop', q, '--batch', '2', '--no-wait'])).stdout).map((l) => l.data), [1, 2]);
    assert.deepEqual(ndjson((await cli(['pop', q, '--cg', 'g', '--no-wait'])).stdout).map((l) => l.data), [1], 'neither: one');
  });
  test('pop and tail --consume on a queue that does not exist say so before they wait, with the closest name', async () => {
    const q = uniqueQueue('orders');
    await cli(['push', q], { input: '1\n' });
    const typo = `${q.slice(0, -1)}x`;
    const started = Date.now();
    const child = spawnCli(['--server', setup.broker.url, 'pop', typo, '--timeout', '20s']);
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    await until(() => err.includes('does not exist'), 10_000, 'the warning');
    assert.ok(Date.now() - started < 10_000);
    assert.equal(err, `queenctl: warning: queue "${typo}" does not exist; the broker creates it on this pop (did you mean "${q}"?)\n`);
    child.kill('SIGINT');
    await child.result;
    const far = await cli(['tail', `zz${Date.now()}`, '--consume', '--timeout', '200ms']);
    assert.match(far.stderr, /^queenctl: warning: queue "zz\d+" does not exist; the broker creates it on this pop\n/);
    const existing = await cli(['pop', q, '--no-wait']);
    assert.equal(existing.stderr, '', 'no warning for a queue that exists');
  });
});

describe('tail', () => {
  test('peeks without consuming: the newest -n messages oldest first, then -f follows; no group, nothing processing', async () => {
    const q = uniqueQueue('peek');
    await cli(['push', q], { input: '1\n2\n3\n' });
    const r = await cli(['tail', q, '-n', '2']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(ndjson(r.stdout).map((l) => [l.queue, l.data, l.status]), [[q, 2, 'pending'], [q, 3, 'pending']]);
    assert.deepEqual(ndjson((await cli(['tail', q])).stdout).map((l) => l.data), [1, 2, 3], 'default: the newest 10');
    const child = spawnCli(['--server', setup.broker.url, 'tail', q, '-f', '-n', '1']);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    await until(() => ndjson(out).length === 1, 10_000, 'the newest message');
    await cli(['push', q, '--partition', 'later'], { input: '4\n5\n' });
    await until(() => ndjson(out).length === 3, 10_000, `the pushed messages after ${out}`);
    child.kill('SIGINT');
    const followed = await child.result;
    assert.equal(followed.code, 0, followed.stderr);
    assert.deepEqual(ndjson(followed.stdout).map((l) => l.data), [3, 4, 5]);
    // Nothing was claimed: no consumer group, nothing processing, every message still there for a consumer.
    const groups = await broker.listConsumerGroups(api);
    assert.deepEqual(groups.filter((g) => g.queueName === q), []);
    assert.equal(found(await broker.getQueueStatus(api, q)).totals.messages.processing, 0);
    assert.deepEqual(ndjson((await cli(['pop', q, '-n', '5', '--no-wait', '--max-partitions', '2'])).stdout).map((l) => l.data).sort(), [1, 2, 3, 4, 5]);
    // Consuming options need --consume.
    const mixed = await cli(['tail', q, '--cg', 'x', '--auto-ack']);
    assert.deepEqual([mixed.code, mixed.stderr], [1, 'queenctl: --cg, --auto-ack need --consume (tail only reads without it)\n']);
  });
  test('--consume: -n stops after exactly n messages; without --follow it ends on the first empty poll', async () => {
    const q = uniqueQueue('tail');
    await cli(['push', q], { input: '1\n2\n3\n4\n' });
    const r = await cli(['tail', q, '--consume', '-n', '3', '--batch', '2', '--auto-ack']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(ndjson(r.stdout).map((l) => [l.data, l.consumerGroup]), [[1, 'queenctl-tail'], [2, 'queenctl-tail'], [3, 'queenctl-tail']]);
    const once = await cli(['tail', q, '--consume', '--cg', 'other', '--timeout', '500ms', '--auto-ack']);
    assert.equal(once.code, 0, once.stderr);
    assert.deepEqual(ndjson(once.stdout).map((l) => l.data), [1, 2, 3, 4]);
  });
  test('--idle-millis ends a follow after the idle time, exit 0 (peeking and consuming)', async () => {
    const q = uniqueQueue('tail');
    await cli(['push', q], { input: '1\n' });
    for (const mode of [[], ['--consume', '--auto-ack']]) {
      const started = Date.now();
      const r = await cli(['tail', q, ...mode, '-f', '-n', '0', '--idle-millis', '700']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, mode.length === 0 ? '' : `${JSON.stringify(ndjson(r.stdout)[0])}\n`);
      assert.ok(Date.now() - started < 5000);
    }
  });
  test('-f --auto-ack follows new pushes; Ctrl-C exits 0 and what was printed is acked', async () => {
    const q = uniqueQueue('tail');
    await cli(['push', q], { input: '1\n2\n' });
    const child = spawnCli(['--server', setup.broker.url, 'tail', q, '--consume', '--cg', 'live', '-f', '--auto-ack']);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    await until(() => ndjson(out).length === 2, 10_000, 'first two lines');
    await cli(['push', q, '--partition', 'later'], { input: '3\n' });
    await until(() => ndjson(out).length === 3, 10_000, 'the pushed message');
    // Acks run after printing: wait until the broker saw them before interrupting.
    await until(async () => (await broker.listConsumerGroups(api)).some((g) => g.name === 'live' && g.queueName === q && g.totalLag === 0), 10_000, 'acks');
    child.kill('SIGINT');
    const r = await child.result;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.deepEqual(ndjson(r.stdout).map((l) => l.data), [1, 2, 3]);
    assert.equal((await cli(['pop', q, '--cg', 'live', '--no-wait'])).code, 4, 'nothing left for the group');
  });
  test('without --auto-ack nothing is acked: the printed messages stay leased to the group', async () => {
    const q = uniqueQueue('tail');
    await cli(['push', q], { input: '1\n' });
    assert.deepEqual(ndjson((await cli(['tail', q, '--consume', '--cg', 'peek', '-n', '1'])).stdout).map((l) => l.data), [1]);
    const detail = found(await broker.getQueueStatus(api, q));
    assert.equal(detail.totals.messages.processing, 1);
  });
  test('replay moves the group back: the same messages are delivered again', async () => {
    const q = uniqueQueue('replay');
    await cli(['push', q], { input: '1\n2\n' });
    assert.equal(ndjson((await cli(['tail', q, '--consume', '--cg', 'r', '--auto-ack', '--timeout', '300ms'])).stdout).length, 2);
    assert.equal((await cli(['replay', q, '--cg', 'r', '--to', 'beginning', '--dry-run'])).stdout, `[dry-run] would replay cg=r queue=${q} to=1970-01-01T00:00:00Z\n`);
    const r = await cli(['replay', q, '--cg', 'r', '--to', 'beginning']);
    assert.equal(r.stdout, `replayed cg=r queue=${q} to=1970-01-01T00:00:00Z\n`);
    assert.deepEqual(ndjson((await cli(['tail', q, '--consume', '--cg', 'r', '--auto-ack', '--timeout', '300ms'])).stdout).map((l) => l.data), [1, 2]);
    assert.equal((await cli(['replay', q, '--cg', 'r', '--to', 'end'])).stdout, `replayed cg=r queue=${q} to=end\n`);
    assert.equal((await cli(['replay', q, '--to', 'end'])).code, 1, '--cg required');
  });
});

describe('apply', () => {
  const manifest = (q: string) => `kind: Queue\nname: ${q}\nnamespace: mf\nconfig:\n  leaseTime: 45\n  retryLimit: 7\n---\n# no name: skipped\nkind: Queue\n---\nkind: ConsumerGroup\nname: billing\nqueue: ${q}\nseek-to: end\n---\nkind: cg\nname: audit\nqueue: ${q}\n`;
  test('--dry-run prints the plan and creates nothing; apply creates and seeks', async () => {
    const q = uniqueQueue('apply');
    const dry = await cli(['apply', '-f', '-', '--dry-run'], { input: manifest(q) });
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(dry.stdout, `[dry-run] would apply Queue "${q}"\n[dry-run] would apply ConsumerGroup "billing" seek queue=${q} to=end\n[skip] ConsumerGroup "audit" on "${q}": no seek-to, nothing to apply\n`);
    assert.equal(notFound(await broker.getQueue(api, q)), 'Queue not found');
    const r = await cli(['apply', '-f', '-'], { input: manifest(q) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^applied Queue "${q}"\napplied ConsumerGroup "billing"`));
    const body = found(await broker.getQueue(api, q));
    assert.deepEqual([body.namespace, body.config.leaseTime, body.config.retryLimit], ['mf', 45, 7]);
  });
  test('a re-apply keeps options the manifest does not name (configure is a full replace underneath)', async () => {
    const q = uniqueQueue('apply');
    await cli(['queue', 'configure', q, '--retry-delay', '2s', '--lease-time', '90']);
    await cli(['apply', '-f', '-'], { input: `name: ${q}\nconfig:\n  retryLimit: 2\n` });
    const c = found(await broker.getQueue(api, q)).config;
    assert.deepEqual([c.retryDelay, c.leaseTime, c.retryLimit], [2000, 90, 2]);
  });
  test('validation runs before any request: a bad third document applies nothing (exit 1); unknown kind exits 1; nothing applicable exits 4', async () => {
    const q = uniqueQueue('apply');
    const r = await cli(['apply', '-f', '-'], { input: `name: ${q}\n---\nname: b\nqueue: ${q}\nkind: cg\n---\nname: x\nconfig:\n  leasetime: 5\n` });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^queenctl: document 3 \(Queue "x"\): unknown option "leasetime"/);
    assert.equal(notFound(await broker.getQueue(api, q)), 'Queue not found');
    assert.equal((await cli(['apply', '-f', '-'], { input: 'kind: Topic\nname: t\n' })).code, 1);
    assert.equal((await cli(['apply', '-f', '-'], { input: `kind: cg\nname: g\nqueue: ${q}\n` })).code, 4);
    assert.equal((await cli(['apply', '-f', '/nonexistent.yaml'])).code, 1);
    const json = await cli(['apply', '-f', '-'], { input: JSON.stringify({ kind: 'Queue', name: q, config: { priority: 3 } }) });
    assert.equal(json.code, 0, 'JSON accepted');
  });
  test('the first failing document stops the run with exit 2', async () => {
    const q = uniqueQueue('apply');
    const r = await cli(['apply', '-f', '-'], { input: `name: ${q}\n---\nkind: cg\nname: g\nqueue: missing-${q}\nseek-to: end\n---\nname: after-${q}\n` });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^queenctl: apply ConsumerGroup "g" failed: Queue not found .*\(1 document before it applied\)\n$/);
    assert.equal(notFound(await broker.getQueue(api, `after-${q}`)), 'Queue not found');
  });
});

describe('tx', () => {
  test('a bundle is sent as is: push + ack commit together; a failing one rolls back and exits 2', async () => {
    const a = uniqueQueue('txa');
    const b = uniqueQueue('txb');
    await cli(['push', a, '--data', '{"n":1}']);
    const [m] = ndjson((await cli(['pop', a, '--no-wait'])).stdout);
    const bundle = { operations: [{ type: 'push', items: [{ queue: b, partition: 'x', payload: { moved: 1 }, transactionId: 'moved-1' }] }, { type: 'ack', transactionId: m.transactionId, partitionId: m.partitionId, status: 'completed', leaseId: m.leaseId }], requiredLeases: [m.leaseId] };
    assert.equal((await cli(['tx', '-f', '-', '--dry-run'], { input: JSON.stringify(bundle) })).stdout, '[dry-run] 2 operations, 1 required leases\n');
    const r = await cli(['tx', '-f', '-'], { input: JSON.stringify(bundle) });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'transaction committed\n');
    assert.deepEqual(await stored(b), { x: [{ moved: 1 }] });
    const again = await cli(['tx', '-f', '-'], { input: JSON.stringify(bundle) });
    assert.equal(again.code, 2);
    assert.match(again.stderr, /^queenctl: transaction failed: PUSH operation failed: /);
  });
  test('empty bundles, pushes without items and unknown types exit 1 before any request', async () => {
    for (const body of ['{}', '{"operations":[]}', '{"operations":[{"type":"push","items":[]}]}', '{"operations":[{"type":"nap"}]}', 'not json']) {
      const r = await cli(['tx', '-f', '-'], { input: body });
      assert.equal(r.code, 1, body);
    }
  });
});
