/**
 * Wildcard pops over the backlog index, end to end with two broker processes on one database: a consumer
 * group registered through one broker gets what another broker pushes, into partitions old and new; a
 * queue with many drained partitions serves a late message at once; and index rows deleted behind the
 * brokers' backs delay a message until the next rebuild (every 30 s; the test ages the last one), never lose it.
 *
 * Spec: docs/api.md 5.9 (wildcard candidates), 2.1 rule 9 (several processes on one database).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase, type TestResponse } from '../support/harness.js';

let db: TestDatabase;
let brokerA: BrokerProcess;
let brokerB: BrokerProcess;
let a: ReturnType<typeof client>;
let b: ReturnType<typeof client>;

before(async () => {
  db = await createDatabase();
  brokerA = await startBroker(db);
  brokerB = await startBroker(db);
  a = client(brokerA.url);
  b = client(brokerB.url);
});
after(async () => {
  await Promise.all([brokerA?.stop(), brokerB?.stop()]);
  await db?.close();
});

async function pushVia(target: ReturnType<typeof client>, queue: string, items: [partition: string, id: string][]): Promise<void> {
  const res = await target.push(items.map(([partition, id]) => ({ queue, partition, transactionId: id, payload: { id } })));
  assert.equal(res.status, 201, res.text);
  for (const r of res.json) assert.equal(r.status, 'queued', JSON.stringify(r));
}

function ids(res: TestResponse<any>): string[] {
  if (res.status === 204) return [];
  assert.equal(res.status, 200, res.text);
  return res.json.messages.map((m: { transactionId: string }) => m.transactionId).sort();
}

const popPath = (queue: string, group: string, wait = false, timeout = 0) =>
  `/api/v1/pop/queue/${queue}?consumerGroup=${group}&batch=100&partitions=0&autoAck=true&wait=${wait}&timeout=${timeout}`;

test('a group registered through one broker gets what the other pushes, into old and brand-new partitions', async () => {
  const queue = uniqueQueue('backlog-two');
  await pushVia(b, queue, [['p1', 'x1']]);
  assert.deepEqual(ids(await a.get(popPath(queue, 'G'))), ['x1']);
  await pushVia(b, queue, [['p1', 'x2'], ['fresh', 'y1']]);
  assert.deepEqual(ids(await a.get(popPath(queue, 'G'))), ['x2', 'y1']);
  // A parked pop on A is woken by a push through B into yet another new partition.
  const parked = a.get(popPath(queue, 'G', true, 5000));
  await new Promise((resolve) => setTimeout(resolve, 200));
  await pushVia(b, queue, [['newer', 'z1']]);
  assert.deepEqual(ids(await parked), ['z1']);
});

test('after 300 partitions were drained, a late message in one of them is served by the next pop', async () => {
  const queue = uniqueQueue('backlog-many');
  await pushVia(a, queue, Array.from({ length: 300 }, (_, i): [string, string] => [`p${i}`, `m${i}`]));
  let drained = 0;
  for (let i = 0; i < 10 && drained < 300; i++) drained += ids(await b.get(popPath(queue, 'G'))).length;
  assert.equal(drained, 300);
  assert.deepEqual(ids(await b.get(popPath(queue, 'G'))), []);
  const left = await db.query(`SELECT count(*)::int AS n FROM queen.backlog bl JOIN queen.queues q ON q.id = bl.queue_id WHERE q.name = $1`, [queue]);
  assert.equal(left.rows[0]!.n, 0, 'caught-up partitions left the index');
  await pushVia(a, queue, [['p123', 'late']]);
  assert.deepEqual(ids(await b.get(popPath(queue, 'G'))), ['late']);
});

test('index rows deleted behind the brokers delay a message until the next rebuild, never lose it', async () => {
  const queue = uniqueQueue('backlog-heal');
  await pushVia(a, queue, [['p1', 'x1']]);
  assert.deepEqual(ids(await a.get(popPath(queue, 'G'))), ['x1']);
  await pushVia(a, queue, [['p1', 'x2'], ['p2', 'y1']]);
  await db.query(`DELETE FROM queen.backlog bl USING queen.queues q WHERE q.id = bl.queue_id AND q.name = $1`, [queue]);
  assert.deepEqual(ids(await b.get(popPath(queue, 'G'))), [], 'delayed until the next rebuild');
  // Long polls on both brokers; the rebuild comes due (as if 30 s had passed) while they are parked.
  const parkedA = a.get(popPath(queue, 'G', true, 5000));
  const parkedB = b.get(popPath(queue, 'G', true, 5000));
  await db.query(`UPDATE queen.backlog_groups g SET repaired_at = g.repaired_at - interval '1 minute'
                  FROM queen.queues q WHERE q.id = g.queue_id AND q.name = $1`, [queue]);
  const got = [...ids(await parkedA), ...ids(await parkedB)];
  assert.deepEqual(got.sort(), ['x2', 'y1']);
});
