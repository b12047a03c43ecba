/**
 * Names created before the name rule (docs/api.md 1.10, docs/operations.md "Names a URL cannot carry"):
 * a broker starting on a database that holds `.`/`..` names reports each with how to rename or delete it,
 * changes nothing, and stops reporting once they are gone; a failover-buffer record under such a name is
 * not replayed into the log (no queue `..` appears) and stays on disk, while the file's other records are.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { FILE_HEADER, encodeRecord, type BufferRecord } from '../../src/buffer/format.js';
import { directoryName } from '../../src/buffer/ownership.js';
import { bufferDir, bufferFiles } from '../support/buffering.js';
import { client, createDatabase, startBroker, uniqueQueue, type TestDatabase } from '../support/harness.js';

let db: TestDatabase;

before(async () => {
  db = await createDatabase();
});

after(async () => {
  await db.close();
});

/** The warning lines a broker wrote (one per JSON record), by their message. */
function warnings(output: string): string[] {
  return output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((record) => record.level === 40).map((record) => record.msg);
}

test('start-up reports every stored "." or ".." name with how to rename or delete it, and changes nothing', async () => {
  const queue = uniqueQueue('legacy');
  const first = await startBroker(db, { LOG_FORMAT: 'json' });
  const api = client(first.url);
  assert.equal((await api.push([{ queue, partition: 'old', payload: 1 }])).status, 201);
  assert.equal((await api.get(`/api/v1/pop/queue/${queue}?consumerGroup=legacy&wait=false`)).status, 200);
  await first.stop();
  // What an earlier release could store: written here by hand.
  await db.query(`SELECT queen.queue_ensure('..')`);
  await db.query(`UPDATE queen.partitions SET name = '.' WHERE name = 'old'`);
  await db.query(`UPDATE queen.cursors SET consumer_group = '..' WHERE consumer_group = 'legacy'`);
  await db.query(`UPDATE queen.queues SET task = '..' WHERE name = $1`, [queue]);
  await db.query(`INSERT INTO queen_streams.queries (id, name, source_queue, config_hash) VALUES (gen_random_uuid(), '.', $1, 'h')`, [queue]);
  const partitionId = (await db.query(`SELECT id FROM queen.partitions WHERE name = '.'`)).rows[0]!.id as string;

  const second = await startBroker(db, { LOG_FORMAT: 'json' });
  await second.stop();
  const lines = warnings(second.output());
  assert.match(lines[0]!, /^stored names the name rule refuses \("\." and "\.\.", docs\/api\.md 1\.10\) were created before it: nothing was changed/);
  assert.deepEqual(lines.slice(1).sort(), [
    `consumer group ".." on queue "${queue}": delete it (curl --path-as-is -X DELETE 'http://<broker>/api/v1/consumer-groups/../queues/${queue}') and consume under another name`,
    `partition "." of queue "${queue}": rename it with SQL (UPDATE queen.partitions SET name = '<new name>' WHERE id = '${partitionId}') or empty it ` +
      `(curl --path-as-is -X DELETE 'http://<broker>/api/v1/queues/${queue}/clear?partition=.'; partition cleanup then removes it after PARTITION_CLEANUP_DAYS)`,
    `queue "..": rename it with SQL (UPDATE queen.queues SET name = '<new name>' WHERE name = '..') or delete it (curl --path-as-is -X DELETE 'http://<broker>/api/v1/resources/queues/..')`,
    `stream query ".": rename it with SQL (UPDATE queen_streams.queries SET name = '<new name>' WHERE name = '.') and register it under that name`,
    `task ".." of queue "${queue}": rename it with SQL (UPDATE queen.queues SET task = '<new name>' WHERE name = '${queue}')`,
  ]);
  const kept = await db.query(`SELECT
    (SELECT count(*)::int FROM queen.queues WHERE name = '..' OR task = '..') AS queues,
    (SELECT count(*)::int FROM queen.partitions WHERE name = '.') AS partitions,
    (SELECT count(*)::int FROM queen.cursors WHERE consumer_group = '..') AS cursors`);
  assert.deepEqual(kept.rows[0], { queues: 2, partitions: 1, cursors: 1 }, 'nothing was renamed or deleted');

  // The remedies the lines give, then a quiet start-up.
  await db.query(`UPDATE queen.queues SET name = 'renamed-queue' WHERE name = '..'`);
  await db.query(`UPDATE queen.partitions SET name = 'renamed' WHERE id = $1`, [partitionId]);
  await db.query(`UPDATE queen.queues SET task = 'renamed' WHERE name = $1`, [queue]);
  await db.query(`UPDATE queen_streams.queries SET name = 'renamed' WHERE name = '.'`);
  const third = await startBroker(db, { LOG_FORMAT: 'json' });
  // The group's line: DELETE with the path as it is (what curl --path-as-is sends; fetch would resolve "..").
  const { hostname, port } = new URL(third.url);
  const status = await new Promise<number | undefined>((resolve, reject) => {
    http.request({ hostname, port, method: 'DELETE', path: `/api/v1/consumer-groups/../queues/${queue}` }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject).end();
  });
  assert.equal(status, 200);
  await third.stop();
  assert.equal(warnings(third.output()).length, 2, 'only the group was left: the heading and its line');
  const fourth = await startBroker(db, { LOG_FORMAT: 'json' });
  await fourth.stop();
  assert.deepEqual(warnings(fourth.output()), []);
});

test('replay writes a buffer file\'s valid records and keeps those under "." or ".." on disk, refused', async () => {
  const queue = uniqueQueue('replaydots');
  const dir = bufferDir();
  const serverId = 'names-replay';
  const own = path.join(dir, directoryName(serverId));
  fs.mkdirSync(own, { recursive: true });
  const record = (queueName: string, transactionId: string): BufferRecord =>
    ({ queue: queueName, partition: 'Default', transactionId, traceId: null, traceContext: null, payload: '{"n":1}', producerSub: null });
  fs.writeFileSync(path.join(own, '000000000000001-000001.qbuf'),
    Buffer.concat([FILE_HEADER, encodeRecord(record(queue, 'kept')), encodeRecord(record('..', 'refused'))]));
  const broker = await startBroker(db, { FILE_BUFFER_DIR: dir, SERVER_ID: serverId, FILE_BUFFER_FLUSH_MS: '20', LOG_FORMAT: 'json' });
  try {
    const api = client(broker.url);
    const deadline = Date.now() + 10_000;
    let pop = await api.get(`/api/v1/pop/queue/${queue}?wait=false`);
    while (pop.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      pop = await api.get(`/api/v1/pop/queue/${queue}?wait=false`);
    }
    assert.equal(pop.status, 200, 'the valid record was replayed');
    assert.equal(pop.json.messages[0].transactionId, 'kept');
    await broker.outputMatching(/replay refused 1 item\(s\): Invalid queue name: \\"\.\\" and \\"\.\.\\" are not allowed/);
    assert.equal((await db.query(`SELECT count(*)::int AS n FROM queen.queues WHERE name = '..'`)).rows[0]!.n, 0);
    assert.equal(bufferFiles(dir).length, 1, 'the file holding the refused record stays on disk');
  } finally {
    await broker.stop();
  }
});
