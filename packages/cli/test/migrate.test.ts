/**
 * `queenctl migrate` moves a live two-broker deployment under push/pop/ack load from a PostgreSQL with
 * wal_level=logical to a second server: `--wait` prints progress and exits 0 once complete with the pause,
 * nothing acknowledged is lost, order holds per partition, both brokers follow; then status, validate and reset;
 * a bad URL is a user error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueQueue, type BrokerProcess } from '../../server/test/support/harness.js';
import { MovePair } from '../../server/test/support/move-pair.js';
import { assertNothingLost, startLoad } from '../../server/test/support/move-load.js';
import { cliFor, until } from './support.js';

const move = new MovePair({ brokers: 2 });
const cli = cliFor(() => move.broker.url);

test('migrate --to ... --wait moves two brokers under load; status, validate, reset', async () => {
  const bad = await cli(['migrate', '--to', 'mysql://x@h/d']);
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(bad.stderr, /the URL must start with postgres:\/\//);
  const queue = uniqueQueue('cli-move');
  const [a, b] = move.brokers as [BrokerProcess, BrokerProcess];
  const load = startLoad({ queue, partitions: [{ name: 'p1', broker: a.url }, { name: 'p2', broker: b.url }], consumers: [a.url, b.url] });
  await until(() => load.pushStatuses.length >= 50, 30_000, 'the load runs');
  const run = await cli(['migrate', '--to', move.targetUrl(), '--wait'], { timeoutMillis: 120_000 });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /^migration preparing/m);
  assert.match(run.stdout, /^migration complete, .*pause \d+ ms/m);
  await move.everyBrokerOnTarget();
  await until(() => load.pushStatuses.filter((s) => s.at > Date.now() - 1000 && s.status === 'queued').length > 5, 30_000, 'pushes are committed on the target');
  await load.finish(60_000);
  assertNothingLost(load);
  const status = await cli(['migrate', 'status']);
  assert.match(status.stdout, /"status": "complete"/);
  const validate = await cli(['migrate', 'validate', '-o', 'table']);
  assert.equal(validate.code, 0, validate.stderr);
  assert.match(validate.stdout, /TABLE\s+SOURCE\s+TARGET\s+MATCH/);
  assert.match(validate.stdout, /queen\.queues\s+\d+\s+\d+\s+yes/);
  const reset = await cli(['migrate', 'reset']);
  assert.deepEqual([reset.code, reset.stdout.trim()], [0, 'migration reset']);
  assert.deepEqual(await MovePair.sessions(move.source), [], 'no broker session on the source');
  const onTarget = await MovePair.sessions(move.target);
  for (const broker of move.brokers) assert.ok(onTarget.some((name) => name.endsWith(`:${broker.process.pid}`)), `broker ${broker.process.pid} works on the target`);
});
