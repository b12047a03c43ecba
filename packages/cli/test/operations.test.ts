/**
 * Operator commands (docs/cli.md) against a real broker: queue and partition management (configure merge,
 * clear, seek, delete), messages and traces, the DLQ (list, describe, requeue one and in bulk, drain re-reading
 * from offset 0), consumer groups, maintenance, analytics, lease extend, buffers and shared state.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import * as broker from '@queen/client/api';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { brokerApi } from '../../server/test/support/sdk-api.js';
import { cliFor, ndjson } from './support.js';

const setup = useBroker();
const cli = cliFor(() => setup.broker.url);
const api = brokerApi(() => setup.broker.url);

/** A queue with `n` dead letters of group `g` (retryLimit 0: the first failed ack dead-letters). */
async function deadLetters(n: number): Promise<{ q: string; rows: Array<{ transactionId: string; partitionId: string }> }> {
  const q = uniqueQueue('dlq');
  await cli(['queue', 'configure', q, '--retry-limit', '0']);
  await cli(['push', q], { input: Array.from({ length: n }, (_x, i) => `{"n":${i}}`).join('\n') });
  const popped = (await cli(['pop', q, '--cg', 'g', '-n', String(n), '--no-wait'])).stdout;
  assert.equal((await cli(['ack', '--batch', '-', '--failed', '--error', 'poison'], { input: popped })).code, 0);
  return { q, rows: ndjson(popped) };
}

describe('queues and partitions', () => {
  test('configure creates, then merges changed flags into the current options; -o json shows the response', async () => {
    const q = uniqueQueue('cfg');
    assert.equal((await cli(['queue', 'configure', q, '--lease-time', '2m', '--retry-limit', '5', '--namespace', 'billing'])).stdout, `configured "${q}"\n`);
    const r = await cli(['queue', 'configure', q, '--priority', '4', '--retry-delay', '1500', '-o', 'json']);
    const body = JSON.parse(r.stdout);
    assert.equal(body.configured, true);
    assert.deepEqual([body.namespace, body.options.leaseTime, body.options.retryLimit, body.options.priority, body.options.retryDelay], ['billing', 120, 5, 4, 1500]);
    const off = JSON.parse((await cli(['queue', 'configure', q, '--encrypt=false', '--retention', '1h', '-o', 'json'])).stdout).options;
    assert.deepEqual([off.encryptionEnabled, off.retentionSeconds, off.retentionEnabled, off.leaseTime], [false, 3600, true, 120]);
    assert.equal((await cli(['queue', 'configure', q, '--lease-time', 'soon'])).code, 1);
  });
  test('queue stats, partition describe/seek/clear, queue clear and delete', async () => {
    const q = uniqueQueue('part');
    await cli(['push', q, '--partition', 'a'], { input: '1\n2\n' });
    await cli(['push', q, '--partition', 'b'], { input: '3\n' });
    const stats = parseYaml((await cli(['queue', 'stats', '-o', 'table'])).stdout) as { queues: Array<{ name: string }> };
    assert.ok(stats.queues.some((x) => x.name === q));
    const described = parseYaml((await cli(['partition', 'describe', q, 'a', '-o', 'yaml'])).stdout) as { messages: unknown[] };
    assert.equal(described.messages.length, 2);
    assert.equal((await cli(['partition', 'seek', q, 'a', '--cg', 'skip'])).stdout, `seek cg=skip queue=${q} partition=a to=end\n`);
    assert.equal((await cli(['pop', q, '--cg', 'skip', '--partition', 'a', '--no-wait'])).code, 4, 'the group skipped a');
    assert.equal((await cli(['partition', 'seek', q, 'a', '--cg', 'skip', '--to', '1h ago'])).code, 1, 'only end');
    assert.equal((await cli(['partition', 'clear', q, 'a'])).code, 1, '--yes needed');
    assert.equal((await cli(['partition', 'clear', q, 'a', '--yes'])).stdout, `cleared "${q}" partition "a": 2 messages deleted\n`);
    assert.equal((await cli(['queue', 'clear', q, '--yes'])).stdout, `cleared "${q}": 1 messages deleted\n`);
    assert.equal((await cli(['queue', 'rm', q, '--yes'])).stdout, `deleted "${q}"\n`);
    const gone = await cli(['queue', 'delete', q, '--yes']);
    assert.equal(gone.code, 1);
    assert.equal(gone.stderr, `queenctl: queue "${q}" does not exist\n`);
  });
});

describe('messages and traces', () => {
  test('list, get, traces, move to the DLQ, retry, delete', async () => {
    const q = uniqueQueue('msg');
    await cli(['push', q, '--partition', 'p', '--transaction-id', 'm-1'], { input: '{"order":1}\n' });
    const rows = JSON.parse((await cli(['msg', 'ls', '--queue', q])).stdout) as Array<{ transactionId: string; partitionId: string; status: string }>;
    assert.deepEqual(rows.map((m) => [m.transactionId, m.status]), [['m-1', 'pending']]);
    const pid = rows[0]!.partitionId;
    const table = (await cli(['messages', 'list', '--queue', q, '-o', 'table'])).stdout;
    assert.match(table, /^TX +QUEUE +PARTITION +STATUS +GROUPS +CREATED\nm-1 +\S+ +p +pending +- +(just now|\ds ago)\n$/);
    const one = parseYaml((await cli(['messages', 'get', pid, 'm-1', '-o', 'table'])).stdout) as { payload: unknown };
    assert.deepEqual(one.payload, { order: 1 });
    await broker.recordTrace(api, { transactionId: 'm-1', partitionId: pid, data: { step: 'seen' }, eventType: 'step', traceNames: ['checkout'] });
    const traces = JSON.parse((await cli(['messages', 'traces', pid, 'm-1'])).stdout) as Array<{ event_type: string; data: unknown }>;
    assert.deepEqual(traces.map((t) => [t.event_type, t.data]), [['step', { step: 'seen' }]]);
    assert.deepEqual(JSON.parse((await cli(['traces', 'by-message', pid, 'm-1'])).stdout), traces);
    const names = JSON.parse((await cli(['traces', 'names'])).stdout) as Array<{ trace_name: string }>;
    assert.ok(names.some((n) => n.trace_name === 'checkout'));
    assert.match((await cli(['traces', 'by-name', 'checkout', '-o', 'table'])).stdout, /^AT +EVENT +TX +PARTITION +DATA\n.*step +m-1 +p +\{"step":"seen"\}/);
    assert.equal((await cli(['messages', 'dlq', pid, 'm-1', '--error', 'by hand'])).stdout, 'moved m-1 to the DLQ\n');
    const dl = JSON.parse((await cli(['dlq', 'list', '--queue', q])).stdout) as Array<{ errorMessage: string; consumerGroup: string }>;
    assert.deepEqual(dl.map((d) => d.errorMessage), ['by hand']);
    const retried = await cli(['messages', 'retry', pid, 'm-1']);
    assert.match(retried.stdout, /^requeued m-1 as \S+\n$/);
    const again = await cli(['messages', 'retry', pid, 'm-1']);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, 'queenctl: Message is not in the DLQ\n');
    assert.equal((await cli(['messages', 'delete', pid, 'm-1'])).code, 1, '--yes needed');
    assert.equal((await cli(['messages', 'rm', pid, 'm-1', '--yes'])).stdout, 'deleted\n');
    assert.equal((await cli(['messages', 'get', pid, 'm-1'])).code, 1);
  });
});

describe('dead-letter queue', () => {
  test('list with filters and total; describe; requeue one', async () => {
    const { q, rows } = await deadLetters(3);
    const table = (await cli(['dlq', 'list', '--queue', q, '--cg', 'g', '-o', 'table'])).stdout.split('\n');
    assert.match(table[0]!, /^TX +QUEUE +PARTITION +CG +RETRIES +ERROR$/);
    assert.equal(table.filter((l) => l.includes('poison')).length, 3);
    assert.equal(table.at(-2), 'total 3');
    assert.equal(JSON.parse((await cli(['dlq', 'ls', '--queue', q, '--from', '1h ago', '--to', 'now', '--limit', '2'])).stdout).length, 2);
    assert.equal(JSON.parse((await cli(['dlq', 'list', '--queue', q, '--to', '1h ago'])).stdout).length, 0);
    const d = parseYaml((await cli(['dlq', 'get', rows[0]!.partitionId, rows[0]!.transactionId, '-o', 'yaml'])).stdout) as { errorMessage: string };
    assert.equal(d.errorMessage, 'poison');
    assert.match((await cli(['dlq', 'requeue', rows[0]!.partitionId, rows[0]!.transactionId])).stdout, /^requeued /);
    assert.equal(JSON.parse((await cli(['dlq', 'list', '--queue', q])).stdout).length, 2);
  });
  test('bulk requeue needs --yes and handles every row', async () => {
    const { q } = await deadLetters(3);
    assert.equal((await cli(['dlq', 'requeue', '--queue', q])).code, 1);
    const r = await cli(['dlq', 'requeue', '--queue', q, '--yes', '--limit', '2']);
    assert.equal(r.stdout, 'processed=3 errors=0\n');
    assert.equal(JSON.parse((await cli(['dlq', 'list', '--queue', q])).stdout).length, 0);
    assert.equal((await cli(['dlq', 'requeue', '--queue', q, '--yes'])).code, 4, 'nothing left');
  });
  test('drain: --dry-run counts; --yes deletes every row though pages are smaller than the total (re-reads offset 0)', async () => {
    const { q } = await deadLetters(5);
    assert.equal((await cli(['dlq', 'drain', '--queue', q])).code, 1, '--dry-run or --yes required');
    assert.equal((await cli(['dlq', 'drain', '--queue', q, '--dry-run'])).stdout, '[dry-run] would delete 5 DLQ entries\n');
    const r = await cli(['dlq', 'drain', '--queue', q, '--yes', '--limit', '2']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'processed=5 errors=0\n');
    assert.equal(JSON.parse((await cli(['dlq', 'list', '--queue', q])).stdout).length, 0);
    assert.equal((await cli(['dlq', 'drain', '--queue', q, '--yes'])).code, 4);
    assert.equal((await cli(['dlq', 'drain', '--queue', q, '--dry-run'])).code, 4);
  });
});

describe('consumer groups', () => {
  test('list, lag, describe, seek, subscription, delete, refresh-stats', async () => {
    const q = uniqueQueue('cg');
    await cli(['push', q], { input: '1\n2\n' });
    await cli(['tail', q, '--consume', '--cg', 'cgx', '-n', '1', '--auto-ack']);
    const rows = JSON.parse((await cli(['cg', 'list'])).stdout) as Array<{ name: string; queueName: string; totalLag: number }>;
    assert.equal(rows.find((g) => g.name === 'cgx' && g.queueName === q)?.totalLag, 1);
    const key = (r: { name: string; queueName: string }) => `${r.name}/${r.queueName}`;
    assert.deepEqual((JSON.parse((await cli(['consumer-groups', 'ls'])).stdout) as typeof rows).map(key), rows.map(key));
    assert.deepEqual(JSON.parse((await cli(['lag'])).stdout).length, rows.length);
    assert.match((await cli(['cg', 'lag', '-o', 'table'])).stdout, /^CG +QUEUE +MESSAGES +LAG +STATE\n/);
    assert.deepEqual(JSON.parse((await cli(['cg', 'lag', '--min-seconds', '3600'])).stdout), []);
    const wide = (await cli(['cg', 'ls', '-o', 'wide'])).stdout;
    assert.match(wide, /^CG +QUEUE +MESSAGES +LAG +STATE +PARTITIONS +SUBSCRIBED\n/);
    const described = parseYaml((await cli(['cg', 'describe', 'cgx', '-o', 'table'])).stdout) as Record<string, { partitions: Array<{ totalConsumed: number }> }>;
    assert.equal(described[q]!.partitions[0]!.totalConsumed, 1);
    assert.equal((await cli(['cg', 'get', 'no-such-group'])).code, 1);
    assert.equal((await cli(['cg', 'seek', 'cgx', q, '--to', 'end', '--dry-run'])).stdout, `[dry-run] seek cg=cgx queue=${q} to=end\n`);
    assert.equal((await cli(['cg', 'seek', 'cgx', q, '--to', 'end'])).stdout, `seek cg=cgx queue=${q} to=end\n`);
    assert.equal((await cli(['pop', q, '--cg', 'cgx', '--no-wait'])).code, 4);
    assert.match((await cli(['cg', 'subscription', 'cgx', '--from', 'now'])).stdout, /^subscription cg=cgx from=\S+ \(\d+ records\)\n$/);
    assert.equal((await cli(['cg', 'delete', 'cgx'])).code, 1, '--yes needed');
    assert.equal((await cli(['cg', 'rm', 'cgx', '--queue', q, '--yes'])).stdout, `deleted cg=cgx queue=${q}\n`);
    assert.ok(!(JSON.parse((await cli(['cg', 'list'])).stdout) as Array<{ name: string; queueName: string }>).some((g) => g.name === 'cgx' && g.queueName === q));
    const refreshed = await cli(['cg', 'refresh-stats']);
    assert.equal(refreshed.stdout, 'refreshed\n');
  });
});

describe('maintenance, analytics, leases and the rest', () => {
  test('maintenance get/on/off for pushes and pops; on needs --yes', async () => {
    assert.equal((await cli(['maint', 'on'])).code, 1);
    assert.equal((await cli(['maintenance', 'on', '--pop', '--yes'])).stdout, 'pop-maintenance on\n');
    assert.equal(JSON.parse((await cli(['maintenance', 'get', '--pop'])).stdout).popMaintenanceMode, true);
    assert.equal((await cli(['maintenance', 'off', '--pop'])).stdout, 'pop-maintenance off\n');
    assert.equal((await cli(['maintenance', 'on', '--yes'])).stdout, 'maintenance on\n');
    assert.equal(JSON.parse((await cli(['maintenance', 'get'])).stdout).maintenanceMode, true);
    assert.equal((await cli(['maintenance', 'off'])).stdout, 'maintenance off\n');
    assert.equal(JSON.parse((await cli(['maintenance', 'get'])).stdout).maintenanceMode, false);
  });
  test('every analytics view answers YAML; ranges parse time expressions', async () => {
    for (const view of ['overview', 'queue-lag', 'queue-ops', 'queue-parked', 'retention', 'system', 'worker', 'postgres']) {
      const r = await cli(['analytics', view, '-o', 'table']);
      assert.equal(r.code, 0, `${view}: ${r.stderr}`);
      assert.notEqual(parseYaml(r.stdout), undefined, view);
    }
    const ranged = JSON.parse((await cli(['an', 'overview', '--from', '2h ago', '--to', 'now', '-o', 'json'])).stdout);
    assert.ok(Array.isArray(ranged.dataPoints));
    assert.equal((await cli(['a', 'queue-ops', '--from', 'whenever'])).code, 1);
  });
  test('lease extend renews a live lease and reports a missing one (exit 2)', async () => {
    const q = uniqueQueue('lease');
    await cli(['push', q, '--data', '1']);
    const [m] = ndjson((await cli(['pop', q, '--no-wait'])).stdout);
    assert.match((await cli(['lease', 'extend', m.leaseId, '--seconds', '120'])).stdout, new RegExp(`^renewed ${m.leaseId} -> \\d{4}-\\d{2}-\\d{2}T`));
    const bad = await cli(['lease', 'extend', '0198f2d3-1b2c-7a00-8c11-5e6f708192a3']);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'queenctl: lease extend failed: Lease not found\n');
  });
  test('buffers and shared-state', async () => {
    assert.equal(typeof JSON.parse((await cli(['buffers'])).stdout).pending, 'number');
    const procs = JSON.parse((await cli(['shared-state'])).stdout) as Array<{ pid: number }>;
    assert.ok(procs.length >= 1);
    assert.match((await cli(['shared-state', '-o', 'table'])).stdout, /^SERVER +HOST +PID +STARTED +HEARTBEAT\n/);
  });
});
