/**
 * Concurrency acceptance criteria (docs/api.md 2.1, 5.9, 5.10, 6.3): competing consumers and fan-out groups lose
 * nothing and duplicate nothing, keep per-partition order, stale leases are refused, one live lease per
 * (partition, group), and pushes interleaved with pops lose nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';

const setup = useBroker();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const txids = (body: any): string[] => body.messages.map((m: any) => m.transactionId);

interface Delivery {
  partition: string;
  transactionId: string;
}

/** What one consumer group observed: every delivery, in the order pops returned them. */
class GroupLog {
  readonly deliveries: Delivery[] = [];
  readonly seen = new Map<string, number>();
  constructor(readonly name: string, readonly expected: number) {}
  record(body: any): void {
    for (const m of body.messages) {
      this.deliveries.push({ partition: m.partition, transactionId: m.transactionId });
      this.seen.set(m.transactionId, (this.seen.get(m.transactionId) ?? 0) + 1);
    }
  }
  get done(): boolean {
    return this.seen.size >= this.expected;
  }
}

/**
 * One consumer: wildcard long-poll pops, records the batch, then acks it with /ack/batch (leaseId and each
 * message's own partitionId). Runs until its group has every message or the deadline passes.
 */
async function consume(queue: string, log: GroupLog, opts: { batch: number; partitions: number; deadline: number; groupParam: boolean }): Promise<void> {
  const group = opts.groupParam ? `&consumerGroup=${encodeURIComponent(log.name)}` : '';
  while (!log.done && Date.now() < opts.deadline) {
    const res = await setup.api.get(`/api/v1/pop/queue/${encodeURIComponent(queue)}?batch=${opts.batch}&partitions=${opts.partitions}&wait=true&timeout=1000&leaseSeconds=120${group}`);
    if (res.status === 204) continue;
    assert.equal(res.status, 200, res.text);
    // Recorded before the ack: the partition's next batch can only be claimed once this ack released the lease.
    log.record(res.json);
    const acks = await setup.api.post('/api/v1/ack/batch', {
      ...(opts.groupParam ? { consumerGroup: log.name } : {}),
      acknowledgments: res.json.messages.map((m: any) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed' })),
    });
    assert.equal(acks.status, 200, acks.text);
    for (const r of acks.json) assert.equal(r.success, true, `ack failed: ${JSON.stringify(r)}`);
    // The last message of each partition released that partition's lease.
    assert.equal(acks.json.filter((r: any) => r.leaseReleased).length, res.json.partitionsClaimed);
  }
}

/** Asserts that the group got every expected message exactly once and each partition in push order. */
function assertExactlyOnceInOrder(log: GroupLog, pushed: Map<string, string[]>): void {
  const duplicates = [...log.seen].filter(([, n]) => n > 1).map(([tx]) => tx);
  assert.deepEqual(duplicates, [], `${log.name}: duplicated deliveries`);
  const all = [...pushed.values()].flat();
  const missing = all.filter((tx) => !log.seen.has(tx));
  assert.deepEqual(missing.slice(0, 20), [], `${log.name}: ${missing.length} messages never delivered`);
  assert.equal(log.seen.size, all.length, `${log.name}: unexpected extra deliveries`);
  for (const [partition, order] of pushed) {
    const delivered = log.deliveries.filter((d) => d.partition === partition).map((d) => d.transactionId);
    assert.deepEqual(delivered, order, `${log.name}: partition ${partition} delivered out of push order`);
  }
}

test('(a) 4 consumers in each of 2 groups drain 2000 messages over 20 partitions: exactly once, in order per partition', async () => {
  const queue = uniqueQueue('conc-drain');
  const partitions = Array.from({ length: 20 }, (_, i) => `p${String(i).padStart(2, '0')}`);
  const pushed = new Map<string, string[]>(partitions.map((p) => [p, []]));
  // 20 sequential pushes of 100 items, spread round-robin over the partitions: push order per partition is known.
  let seq = 0;
  for (let request = 0; request < 20; request++) {
    const items = [];
    for (let i = 0; i < 100; i++) {
      const partition = partitions[(seq * 7 + request) % partitions.length]!;
      const transactionId = `${partition}-${seq}`;
      pushed.get(partition)!.push(transactionId);
      items.push({ queue, partition, transactionId, payload: { seq } });
      seq++;
    }
    const res = await setup.api.push(items);
    assert.equal(res.status, 201);
    assert.ok(res.json.every((r: any) => r.status === 'queued'));
  }
  assert.equal(seq, 2000);

  const groups = [new GroupLog('g1', 2000), new GroupLog('g2', 2000)];
  const deadline = Date.now() + 90_000;
  const shapes = [{ batch: 10, partitions: 1 }, { batch: 25, partitions: 2 }, { batch: 50, partitions: 0 }, { batch: 33, partitions: 3 }];
  await Promise.all(groups.flatMap((log) => shapes.map((shape) => consume(queue, log, { ...shape, deadline, groupParam: true }))));

  for (const log of groups) {
    assertExactlyOnceInOrder(log, pushed);
    const rest = await setup.api.get(`/api/v1/pop/queue/${queue}?consumerGroup=${log.name}&batch=100&partitions=0`);
    assert.equal(rest.status, 204, `${log.name} still had messages to pop`);
  }
});

test('(b) a stale lease is refused after expiry and re-claim; the new holder\'s ack succeeds', async () => {
  const queue = uniqueQueue('conc-stale');
  const res = await setup.api.push([1, 2, 3].map((n) => ({ queue, partition: 'p', transactionId: `s-${n}` })));
  assert.equal(res.status, 201);
  const pid = res.json[0].partition_id;
  const a = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/p?consumerGroup=g&batch=3&leaseSeconds=1`);
  assert.equal(a.status, 200);
  assert.deepEqual(txids(a.json), ['s-1', 's-2', 's-3']);
  await sleep(1500); // the behaviour under test is lease expiry
  const b = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/p?consumerGroup=g&batch=3`);
  assert.equal(b.status, 200);
  assert.deepEqual(txids(b.json), ['s-1', 's-2', 's-3']);
  assert.notEqual(b.json.leaseId, a.json.leaseId);

  const stale = await setup.api.post('/api/v1/ack', { transactionId: 's-3', partitionId: pid, leaseId: a.json.leaseId, consumerGroup: 'g' });
  assert.equal(stale.status, 200);
  assert.deepEqual(stale.json, [{ index: 0, transactionId: 's-3', success: false, error: 'Invalid or expired lease', queueName: queue, partitionName: 'p', leaseReleased: false, dlq: false }]);
  const staleBatch = await setup.api.post('/api/v1/ack/batch', {
    consumerGroup: 'g',
    acknowledgments: a.json.messages.map((m: any) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: a.json.leaseId, status: 'failed' })),
  });
  assert.deepEqual(staleBatch.json.map((r: any) => [r.success, r.error]), Array(3).fill([false, 'Invalid or expired lease']));

  const fresh = await setup.api.post('/api/v1/ack/batch', {
    consumerGroup: 'g',
    acknowledgments: b.json.messages.map((m: any) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: b.json.leaseId })),
  });
  assert.deepEqual(fresh.json.map((r: any) => [r.success, r.error, r.leaseReleased]), [[true, null, false], [true, null, false], [true, null, true]]);
  const cur = await setup.db.query(`SELECT committed::int AS c, retry_count FROM queen.cursors WHERE partition_id = $1 AND consumer_group = 'g'`, [pid]);
  assert.deepEqual(cur.rows[0], { c: 3, retry_count: 0 });
});

test('(c) 10 concurrent pops of one group on a single partition: exactly one gets the batch', async () => {
  for (const route of ['partition', 'wildcard'] as const) {
    const queue = uniqueQueue(`conc-one-${route}`);
    const res = await setup.api.push(Array.from({ length: 5 }, (_, i) => ({ queue, partition: 'only', transactionId: `o-${i + 1}` })));
    assert.equal(res.status, 201);
    const path = route === 'partition' ? `/api/v1/pop/queue/${queue}/partition/only` : `/api/v1/pop/queue/${queue}`;
    const answers = await Promise.all(Array.from({ length: 10 }, () => setup.api.get(`${path}?consumerGroup=workers&batch=5`)));
    const ok = answers.filter((r) => r.status === 200);
    const empty = answers.filter((r) => r.status === 204);
    assert.equal(ok.length, 1, `${route}: ${ok.length} pops delivered`);
    assert.equal(empty.length, 9, `${route}: statuses ${answers.map((r) => r.status).join(',')}`);
    assert.deepEqual(txids(ok[0]!.json), ['o-1', 'o-2', 'o-3', 'o-4', 'o-5']);
    for (const r of empty) assert.equal(r.text, '');
  }
});

test('(d) producers pushing while consumers consume: nothing lost, nothing duplicated, per-partition order kept', async () => {
  const queue = uniqueQueue('conc-live');
  const producers = ['a', 'b', 'c'];
  const perProducer = 400;
  // Each producer owns 3 partitions and pushes sequentially (10 items per request), so push order per partition is known.
  const pushed = new Map<string, string[]>();
  for (const p of producers) for (let i = 0; i < 3; i++) pushed.set(`${p}${i}`, []);
  const total = producers.length * perProducer;

  const groups = [new GroupLog('__QUEUE_MODE__', total), new GroupLog('fanout', total)];
  const deadline = Date.now() + 60_000;
  const consumers = [
    consume(queue, groups[0]!, { batch: 7, partitions: 1, deadline, groupParam: false }),
    consume(queue, groups[0]!, { batch: 20, partitions: 2, deadline, groupParam: false }),
    consume(queue, groups[0]!, { batch: 15, partitions: 0, deadline, groupParam: false }),
    consume(queue, groups[1]!, { batch: 10, partitions: 1, deadline, groupParam: true }),
    consume(queue, groups[1]!, { batch: 30, partitions: 0, deadline, groupParam: true }),
  ];
  const produce = async (producer: string) => {
    for (let n = 0; n < perProducer; n += 10) {
      const items = [];
      for (let i = n; i < n + 10; i++) {
        const partition = `${producer}${i % 3}`;
        const transactionId = `${producer}-${i}`;
        pushed.get(partition)!.push(transactionId);
        items.push({ queue, partition, transactionId, payload: i });
      }
      const res = await setup.api.push(items);
      assert.equal(res.status, 201, res.text);
      assert.ok(res.json.every((r: any) => r.status === 'queued'), res.text);
    }
  };
  await Promise.all([...producers.map(produce), ...consumers]);

  for (const log of groups) assertExactlyOnceInOrder(log, pushed);
  const counts = await setup.db.query(`SELECT count(*)::int AS n FROM queen.message_keys k JOIN queen.partitions p ON p.id = k.partition_id
                                   JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1`, [queue]);
  assert.equal(counts.rows[0]?.n, total);
});

test('(e) racing acks: 10 concurrent failed acks with one lease spend the budget once; 10 concurrent completes release once', async () => {
  const queue = uniqueQueue('conc-acks');
  const res = await setup.api.push([1, 2].map((n) => ({ queue, partition: 'p', transactionId: `r-${n}` })));
  assert.equal(res.status, 201);
  const pid = res.json[0].partition_id;
  const first = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/p?batch=2`);
  assert.equal(first.status, 200);
  const failed = await Promise.all(Array.from({ length: 10 }, () =>
    setup.api.post('/api/v1/ack', { transactionId: 'r-1', partitionId: pid, leaseId: first.json.leaseId, status: 'failed' })));
  const outcomes = failed.map((r) => r.json[0]);
  assert.equal(outcomes.filter((o) => o.success).length, 1, JSON.stringify(outcomes));
  assert.equal(outcomes.filter((o) => o.leaseReleased).length, 1);
  assert.deepEqual(outcomes.filter((o) => !o.success).map((o) => o.error), Array(9).fill('Invalid or expired lease'));
  const cur = await setup.db.query(`SELECT committed::int AS c, retry_count FROM queen.cursors WHERE partition_id = $1 AND consumer_group = '__QUEUE_MODE__'`, [pid]);
  assert.deepEqual(cur.rows[0], { c: 0, retry_count: 1 });

  const second = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/p?batch=2`);
  assert.equal(second.status, 200);
  assert.deepEqual(txids(second.json), ['r-1', 'r-2']);
  const completes = await Promise.all(Array.from({ length: 10 }, () =>
    setup.api.post('/api/v1/ack', { transactionId: 'r-2', partitionId: pid, leaseId: second.json.leaseId })));
  const done = completes.map((r) => r.json[0]);
  // The first to get the pair's lock settles and releases; the others find r-2 at or below the cursor (C3).
  assert.deepEqual(done.map((o) => [o.success, o.error]), Array(10).fill([true, null]));
  assert.equal(done.filter((o) => o.leaseReleased).length, 1);
  const after = await setup.db.query(`SELECT committed::int AS c, retry_count, total_consumed::int AS t FROM queen.cursors WHERE partition_id = $1 AND consumer_group = '__QUEUE_MODE__'`, [pid]);
  assert.deepEqual(after.rows[0], { c: 2, retry_count: 0, t: 2 });
});
