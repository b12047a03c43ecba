/**
 * Retention and eviction with two broker processes on one database (docs/api.md 9.2 rule 3): each cycle runs once
 * per interval for the whole cluster (advisory lock, then the job_runs gate), so deletions are recorded once
 * (the history is not doubled) and the number of cycles over a period is that of one process, not two.
 *
 * Cycles are counted from the brokers' debug logs ("retention cycle started"). The bound is one-sided and
 * generous: a loaded machine only makes timers late (fewer cycles), never more.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type Client, type TestDatabase } from '../support/harness.js';
import { waitFor } from '../support/monitoring.js';

const INTERVAL_MS = 300;
const SETTINGS = { RETENTION_INTERVAL: String(INTERVAL_MS), EVICTION_INTERVAL: String(INTERVAL_MS), LOG_LEVEL: 'debug' };

let db: TestDatabase;
let brokers: BrokerProcess[] = [];
let a: Client;
let b: Client;

before(async () => {
  db = await createDatabase();
  brokers = [await startBroker(db, { ...SETTINGS, SERVER_ID: 'ret-a' }), await startBroker(db, { ...SETTINGS, SERVER_ID: 'ret-b' })];
  a = client(brokers[0]!.url);
  b = client(brokers[1]!.url);
});

after(async () => {
  await Promise.all(brokers.map((broker) => broker.stop()));
  await db?.close();
});

/** Cycles of `job` started so far by both brokers, from their logs. */
function cyclesStarted(job: string): number {
  let count = 0;
  for (const broker of brokers) {
    for (const line of broker.output().split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        if ((JSON.parse(line) as { msg?: string }).msg === `${job} cycle started`) count += 1;
      } catch {
        // a line cut by the read: not a whole record yet
      }
    }
  }
  return count;
}

async function retainedCount(queue: string): Promise<number> {
  const res = await db.query<{ n: number }>(
    `SELECT coalesce(sum(s.last_offset - s.first_offset + 1), 0)::int AS n
     FROM queen.segments s JOIN queen.partitions p ON p.id = s.partition_id JOIN queen.queues q ON q.id = p.queue_id
     WHERE q.name = $1`,
    [queue],
  );
  return res.rows[0]!.n;
}

test('two brokers: every deletion is recorded once, by one cycle', async () => {
  const retained = uniqueQueue('cl-ret');
  const evicted = uniqueQueue('cl-evict');
  assert.equal((await a.post('/api/v1/configure', { queue: retained, options: { retentionSeconds: 60 } })).status, 200);
  assert.equal((await b.post('/api/v1/configure', { queue: evicted, options: { maxWaitTimeSeconds: 60 } })).status, 200);
  for (const [api, queue] of [[a, retained], [b, retained], [a, evicted], [b, evicted]] as const) {
    const items = Array.from({ length: 5 }, (_, i) => ({ queue, partition: 'P', transactionId: `${api === a ? 'a' : 'b'}-${i}`, payload: { i } }));
    assert.equal((await api.push(items)).status, 201);
  }
  await db.query(
    `UPDATE queen.segments s SET created_at = now() - interval '2 minutes'
     FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
     WHERE p.id = s.partition_id AND q.name = ANY ($1)`,
    [[retained, evicted]],
  );

  for (const queue of [retained, evicted]) await waitFor(() => retainedCount(queue), (n) => n === 0);
  // Let both brokers' timers fire a few more times: nothing is left, nothing more may be recorded.
  const seen = cyclesStarted('retention');
  await waitFor(async () => cyclesStarted('retention'), (n) => n >= seen + 3);

  for (const [api, queue, kind] of [[a, retained, 'retention'], [b, evicted, 'eviction']] as const) {
    const res = await api.get(`/api/v1/analytics/retention?queue=${queue}`);
    assert.deepEqual(res.json.history.map((row: any) => [row.partition, row.kind, row.deleted]), [['P', kind, 10]], JSON.stringify(res.json));
    assert.equal(res.json.total, 1);
  }
});

test('two brokers run one cycle per interval between them, not one each', async () => {
  const before = { retention: cyclesStarted('retention'), eviction: cyclesStarted('eviction') };
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 10 * INTERVAL_MS)); // the behaviour under test is a rate
  const elapsed = Date.now() - started;
  // One process: at most one start per 90% of the interval (job_start), plus the one in progress.
  const ceiling = Math.floor(elapsed / (0.9 * INTERVAL_MS)) + 1;
  for (const job of ['retention', 'eviction'] as const) {
    const ran = cyclesStarted(job) - before[job];
    assert.ok(ran >= 1, `${job}: no cycle in ${elapsed} ms`);
    assert.ok(ran <= ceiling, `${job}: ${ran} cycles in ${elapsed} ms, more than one process's ${ceiling}: both brokers ran the job`);
  }
});
