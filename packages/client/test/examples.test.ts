/**
 * Every example under packages/client/examples runs against a real broker, with assertions on its outcome;
 * one of them is also started as a module from the command line, the way the docs say to run them.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import * as bufferedProducer from '../examples/buffered-producer.js';
import * as consumeLoop from '../examples/consume-loop.js';
import * as consumerGroups from '../examples/consumer-groups.js';
import * as popWait from '../examples/pop-wait.js';
import * as pipeline from '../examples/transactional-pipeline.js';
import { testClient } from './support.js';

const setup = useBroker();
const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../examples');

describe('examples', () => {
  test('pop-wait: the pushed greeting comes back', async () => {
    assert.deepEqual(await popWait.run(setup.broker.url, uniqueQueue()), [{ text: 'hello queen' }]);
  });

  test('consume-loop: limit(1) gets the first job, the idle loop the other nine, in order', async () => {
    const result = await consumeLoop.run(setup.broker.url, uniqueQueue(), 10);
    assert.deepEqual(result, { first: { id: 1 }, rest: [2, 3, 4, 5, 6, 7, 8, 9, 10] });
  });

  test('consumer-groups: each group sees every order exactly once, in partition order', async () => {
    const seen = await consumerGroups.run(setup.broker.url, uniqueQueue(), 40);
    const all = Array.from({ length: 40 }, (_, i) => `order-${i}`).sort();
    for (const group of ['billing', 'shipping']) {
      assert.deepEqual([...seen[group]!].sort(), all, group);
      for (let p = 0; p < 4; p++) {
        const inPartition = seen[group]!.map((id) => Number(id.slice(6))).filter((n) => n % 4 === p);
        assert.deepEqual(inPartition, [...inPartition].sort((a, b) => a - b), `${group} keeps partition ${p} in order`);
      }
    }
  });

  test('transactional-pipeline: everything moves, nothing is left behind or duplicated', async () => {
    const prefix = uniqueQueue('sensors');
    const result = await pipeline.run(setup.broker.url, prefix, 25);
    assert.deepEqual(result, { moved: 25, transactions: 3 });
    const q = testClient(setup.broker.url);
    assert.deepEqual(await q.queue(`${prefix}.raw`).wait(false).pop(), [], 'every input acked');
    const out = await q.queue<{ sensor: string; fahrenheit: number }>(`${prefix}.enriched`).batch(100).wait(false).pop();
    assert.equal(out.length, 25);
    assert.equal(new Set(out.map((m) => m.data.sensor)).size, 25);
    assert.equal(out.find((m) => m.data.sensor === 's10')!.data.fahrenheit, 50);
  });

  test('buffered-producer: every click arrives exactly once, in few pushes', async () => {
    const queue = uniqueQueue('clicks');
    const result = await bufferedProducer.run(setup.broker.url, queue, 3000);
    assert.equal(result.pushed, 3000);
    assert.ok(result.flushes <= 40, `${result.flushes} pushes for 3000 messages`);
    const rows = await setup.db.query<{ n: string; distinct_n: string }>(
      `SELECT count(*) AS n, count(DISTINCT m.txn) AS distinct_n FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id
         JOIN queen.segments s ON s.partition_id = p.id CROSS JOIN LATERAL unnest(s.transaction_ids) AS m (txn) WHERE q.name = $1`,
      [queue],
    );
    assert.deepEqual(rows.rows[0], { n: '3000', distinct_n: '3000' });
  });

  test('the README example runs as written against a local broker: it charges the order and ends (issue 13 item 13)', async () => {
    const readme = fs.readFileSync(path.resolve(examples, '../../../README.md'), 'utf8');
    const start = readme.indexOf('```ts\n', readme.indexOf('## The TypeScript client SDK'));
    const code = readme.slice(start + 6, readme.indexOf('```\n', start + 6));
    assert.match(code, /from '@queen\/client'/);
    // Only the package name and the port differ from what a reader pastes.
    const script = code
      .replace("from '@queen/client'", `from ${JSON.stringify(pathToFileURL(path.resolve(examples, '../src/index.ts')).href)}`)
      .replace('http://localhost:6632', setup.broker.url);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-readme-'));
    try {
      fs.writeFileSync(path.join(dir, 'readme.mts'), script);
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(dir, 'readme.mts')], { timeout: 30_000, cwd: path.resolve(examples, '..') });
      assert.equal(stdout, 'charging o-1 990\nprocessed 1\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('examples run as modules from the command line with the broker URL as argument', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(examples, 'pop-wait.ts'), setup.broker.url]);
    assert.match(stdout, /hello queen/);
  });
});
