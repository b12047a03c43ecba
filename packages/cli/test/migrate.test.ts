/**
 * `queenctl migrate` against a real broker on a PostgreSQL with wal_level=logical, moving to a second server:
 * `--wait` prints progress and exits 0 once complete; status, validate and reset; a bad URL is a user error.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startBroker, type BrokerProcess } from '../../server/test/support/harness.js';
import { bufferDir } from '../../server/test/support/buffering.js';
import { startSystemPostgres, type SystemPostgres } from '../../server/test/support/system-postgres.js';
import { cliFor } from './support.js';

let source: SystemPostgres;
let target: SystemPostgres;
let broker: BrokerProcess;
const cli = cliFor(() => broker.url);

before(async () => {
  [source, target] = await Promise.all([startSystemPostgres({ wal_level: 'logical' }), startSystemPostgres()]);
  broker = await startBroker({
    name: 'postgres', env: { PG_HOST: '127.0.0.1', PG_PORT: String(source.port), PG_USER: 'postgres', PG_PASSWORD: 'postgres', PG_DB: 'postgres' },
    query: (text, values) => source.sql(text, values), close: async () => undefined,
  }, { FILE_BUFFER_DIR: bufferDir() });
});

after(async () => {
  await broker?.stop();
  await source?.stop();
  await target?.stop();
});

test('migrate --to ... --wait moves the broker to the target; status, validate, reset', async () => {
  const bad = await cli(['migrate', '--to', 'mysql://x@h/d']);
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(bad.stderr, /the URL must start with postgres:\/\//);
  const pushed = await cli(['push', 'cli-move', '--data', '{"n":1}']);
  assert.equal(pushed.code, 0, pushed.stderr);
  const run = await cli(['migrate', '--to', `postgres://postgres:postgres@127.0.0.1:${target.port}/postgres`, '--wait']);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /^migration preparing/m);
  assert.match(run.stdout, /^migration complete, .*pause \d+ ms/m);
  const status = await cli(['migrate', 'status']);
  assert.match(status.stdout, /"status": "complete"/);
  const validate = await cli(['migrate', 'validate', '-o', 'table']);
  assert.equal(validate.code, 0, validate.stderr);
  assert.match(validate.stdout, /TABLE\s+SOURCE\s+TARGET\s+MATCH/);
  assert.match(validate.stdout, /queen\.queues\s+1\s+1\s+yes/);
  const reset = await cli(['migrate', 'reset']);
  assert.deepEqual([reset.code, reset.stdout.trim()], [0, 'migration reset']);
  const onTarget = await target.sql(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'queen:%'`);
  assert.ok(onTarget.rows[0].n > 0, 'the broker works on the target');
});
