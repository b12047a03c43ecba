/**
 * Retention, eviction, partition cleanup and the retention history over HTTP (docs/api.md 9.3, 7.10
 * `/analytics/retention`, 9.1 rule 4, 2.2), against a broker whose jobs run every 200 ms. Messages are made
 * old by backdating segment createdAt in the test database (one statement, a prefix of the partition), idle
 * partitions by backdating their timestamps; the tests then wait for the jobs' next cycles
 * (`queen.job_runs`) instead of sleeping.
 *
 * RETENTION_BATCH_SIZE=3 and EVICTION_BATCH_SIZE=4 make chunking and the per-cycle eviction cap visible.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';
import { messaging, MILLIS_Z, QUEUE_MODE } from '../support/messaging.js';
import { scrape, waitFor } from '../support/monitoring.js';
import { sampleValue } from '../support/prometheus.js';

let fx: ReturnType<typeof messaging>;
const setup = useBroker(
  { RETENTION_INTERVAL: '200', EVICTION_INTERVAL: '200', RETENTION_BATCH_SIZE: '3', EVICTION_BATCH_SIZE: '4', STATS_INTERVAL_MS: '500' },
  ({ api, db }) => {
    fx = messaging(api, db);
  },
);

/** Pushes one request (one segment) of the given transactionIds; returns the partition id. */
async function pushSegment(queue: string, partition: string, ids: string[]): Promise<string> {
  const res = await setup.api.push(ids.map((transactionId) => ({ queue, partition, transactionId, payload: { id: transactionId } })));
  assert.equal(res.status, 201, res.text);
  for (const r of res.json) assert.equal(r.status, 'queued');
  return res.json[0].partition_id;
}

/** Pops (batch `n`) for `group` and acks everything delivered as completed; returns the delivered ids. */
async function consume(queue: string, partition: string, group: string, n: number): Promise<string[]> {
  const popped = await fx.popOk(queue, partition, `batch=${n}${group === QUEUE_MODE ? '' : `&consumerGroup=${group}`}`);
  for (const m of popped.messages) {
    const r = await fx.ack({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: popped.leaseId, status: 'completed', ...(group === QUEUE_MODE ? {} : { consumerGroup: group }) });
    assert.equal(r.success, true, JSON.stringify(r));
  }
  return popped.messages.map((m: any) => m.transactionId);
}

/** Makes the segments of a partition up to offset `through` `seconds` old (one statement). */
async function age(partitionId: string, through: number, seconds: number): Promise<void> {
  await setup.db.query(
    `UPDATE queen.segments SET created_at = now() - make_interval(secs => $3) WHERE partition_id = $1 AND last_offset <= $2`,
    [partitionId, through, seconds],
  );
}

/** Resolves after `count` more cycles of `job` have started (any process of the cluster). */
async function cycles(job: 'retention' | 'eviction', count = 2): Promise<void> {
  const started = async (): Promise<string | null> =>
    (await setup.db.query<{ t: string }>('SELECT last_started_at::text AS t FROM queen.job_runs WHERE job = $1', [job])).rows[0]?.t ?? null;
  let last = await started();
  for (let seen = 0; seen < count;) {
    await fx.until(`a ${job} cycle`, async () => (await started()) !== last);
    last = await started();
    seen += 1;
  }
}

/** The retention history of one queue (the whole of it: from a day ago). */
async function historyOf(queue: string, extra = ''): Promise<any> {
  const from = new Date(Date.now() - 24 * 3600_000).toISOString();
  const res = await setup.api.get(`/api/v1/analytics/retention?queue=${encodeURIComponent(queue)}&from=${from}${extra}`);
  assert.equal(res.status, 200, res.text);
  return res.json;
}

/** Sums the history of a queue per kind. */
async function deletedByKind(queue: string): Promise<Record<string, number>> {
  const sums: Record<string, number> = {};
  for (const row of (await historyOf(queue)).history) sums[row.kind] = (sums[row.kind] ?? 0) + row.deleted;
  return sums;
}

describe('retention', () => {
  test('retentionSeconds removes old messages whether consumed or not, nothing newer; pops go on at the next retained message', async () => {
    const queue = uniqueQueue('ret');
    await fx.configure(queue, { retentionSeconds: 60 });
    assert.equal((await setup.api.get(`/api/v1/resources/queues/${queue}`)).json.config.retentionEnabled, true, 'implied by the value');
    const pid = await pushSegment(queue, 'P', ['a1', 'a2']);
    await pushSegment(queue, 'P', ['a3', 'a4']);
    await pushSegment(queue, 'P', ['a5']);
    assert.deepEqual(await consume(queue, 'P', 'g', 1), ['a1']);
    const other = uniqueQueue('ret-none');
    const keep = await pushSegment(other, 'P', ['k1', 'k2']);
    await age(keep, 2, 30 * 24 * 3600);
    await age(pid, 4, 120);

    await fx.until('retention', async () => (await fx.retained(pid)).length === 1);
    await cycles('retention');
    await cycles('eviction');
    assert.deepEqual(await fx.retained(pid), ['a5']);
    assert.deepEqual(await fx.retained(keep), ['k1', 'k2'], 'a queue without retention keeps even month-old messages');
    assert.deepEqual(await deletedByKind(queue), { retention: 4 });
    assert.deepEqual(await consume(queue, 'P', QUEUE_MODE, 10), ['a5'], 'queue mode: no loss of what is retained, nothing twice');
    assert.deepEqual(await consume(queue, 'P', 'g', 10), ['a5'], 'the group that had consumed a1 goes on at a5');
  });

  test('completedRetentionSeconds keeps what the slower of two groups has not passed and everything of a partition nobody contacted', async () => {
    const queue = uniqueQueue('comp');
    await fx.configure(queue, { completedRetentionSeconds: 60 });
    const pid = await pushSegment(queue, 'P', ['b1', 'b2']);
    await pushSegment(queue, 'P', ['b3', 'b4']);
    await pushSegment(queue, 'P', ['b5', 'b6']);
    await pushSegment(queue, 'P', ['b7', 'b8']);
    const untouched = await pushSegment(queue, 'U', ['u1', 'u2']);
    assert.equal((await consume(queue, 'P', 'fast', 8)).length, 8);
    assert.deepEqual(await consume(queue, 'P', 'slow', 4), ['b1', 'b2', 'b3', 'b4']);
    await age(pid, 8, 120);
    await age(untouched, 2, 3600);

    await fx.until('completed retention', async () => (await fx.retained(pid)).length === 4);
    await cycles('retention');
    assert.deepEqual(await fx.retained(pid), ['b5', 'b6', 'b7', 'b8'], 'the slow group has not passed b5..b8');
    assert.deepEqual(await fx.retained(untouched), ['u1', 'u2'], 'no group contacted U');
    assert.deepEqual(await deletedByKind(queue), { completed: 4 });

    assert.deepEqual(await consume(queue, 'P', 'slow', 2), ['b5', 'b6']);
    await fx.until('completed retention of b5..b6', async () => (await fx.retained(pid)).length === 2);
    assert.deepEqual(await fx.retained(pid), ['b7', 'b8']);
    assert.deepEqual(await deletedByKind(queue), { completed: 6 });
  });

  test('completedRetentionSeconds keeps what a group known on the queue has not read on a partition it has not reached', async () => {
    const queue = uniqueQueue('comp-known');
    await fx.configure(queue, { completedRetentionSeconds: 60 });
    const p = await pushSegment(queue, 'P', ['a1', 'a2']);
    const u = await pushSegment(queue, 'U', ['u1', 'u2']);
    assert.equal((await consume(queue, 'P', 'fast', 2)).length, 2);
    assert.equal((await consume(queue, 'U', 'fast', 2)).length, 2);
    assert.deepEqual(await consume(queue, 'P', 'slow', 2), ['a1', 'a2']); // slow has not reached U yet
    await age(p, 2, 120);
    await age(u, 2, 120);

    await fx.until('completed retention of P', async () => (await fx.retained(p)).length === 0);
    await cycles('retention');
    assert.deepEqual(await fx.retained(u), ['u1', 'u2'], 'slow reads U from the beginning when it gets there');
    assert.deepEqual(await consume(queue, 'U', 'slow', 2), ['u1', 'u2']);
    await fx.until('completed retention of U once slow read it', async () => (await fx.retained(u)).length === 0);
  });

  test('removed messages take their DLQ entries and traces along; acks of them answer Message not found; a leased span over them is harmless', async () => {
    const queue = uniqueQueue('ret-dlq');
    await fx.configure(queue, { retentionSeconds: 60, leaseTime: 300 });
    const pid = await pushSegment(queue, 'P', ['d1', 'd2', 'd3']);
    await pushSegment(queue, 'P', ['d4', 'd5', 'd6']);
    const first = await fx.popOk(queue, 'P', 'batch=1');
    assert.equal((await fx.ack({ transactionId: 'd1', partitionId: pid, leaseId: first.leaseId, status: 'dlq' })).dlq, true);
    const trace = await setup.api.post('/api/v1/traces', { transactionId: 'd2', partitionId: pid, data: { step: 1 } });
    assert.equal(trace.status, 201);
    const held = await fx.popOk(queue, 'P', 'batch=5');
    assert.deepEqual(held.messages.map((m: any) => m.transactionId), ['d2', 'd3', 'd4', 'd5', 'd6']);
    assert.equal((await setup.api.get(`/api/v1/dlq?queue=${queue}`)).json.total, 1);
    await age(pid, 3, 120);

    await fx.until('retention', async () => (await fx.retained(pid)).length === 3);
    assert.equal((await setup.api.get(`/api/v1/dlq?queue=${queue}`)).json.total, 0, 'the DLQ entry went with its message');
    assert.deepEqual((await setup.api.get(`/api/v1/traces/${pid}/d2`)).json.traces, []);
    assert.equal((await setup.db.query('SELECT count(*)::int AS n FROM queen.traces WHERE partition_id = $1', [pid])).rows[0]!.n, 0);
    const detail = await setup.api.get(`/api/v1/messages/${pid}/d2`);
    assert.equal(detail.headers.get('x-queen-status'), '404');
    assert.deepEqual(detail.json, { error: 'Message not found' });
    const partition = (await setup.api.get(`/api/v1/resources/queues/${queue}`)).json.partitions.find((p: any) => p.name === 'P');
    assert.deepEqual(partition.stats, { total: 3, pending: 0, processing: 3, completed: 0, failed: 0, deadLetter: 0 });

    const removed = await fx.ack({ transactionId: 'd2', partitionId: pid, leaseId: held.leaseId, status: 'completed' });
    assert.equal(removed.success, false);
    assert.equal(removed.error, 'Message not found');
    const batch = await setup.api.post('/api/v1/ack/batch', {
      acknowledgments: ['d3', 'd4', 'd5', 'd6'].map((transactionId) => ({ transactionId, partitionId: pid, leaseId: held.leaseId, status: 'completed' })),
    });
    assert.deepEqual(batch.json.map((r: any) => [r.success, r.error]), [[false, 'Message not found'], [true, null], [true, null], [true, null]]);
    await fx.popEmpty(queue, 'P');
    await pushSegment(queue, 'P', ['d7']);
    assert.deepEqual(await consume(queue, 'P', QUEUE_MODE, 10), ['d7']);
    assert.deepEqual(await deletedByKind(queue), { retention: 3 });
  });
});

describe('reads after the oldest segments are gone', () => {
  test('counts, lag, the pending gauge and the minPopWaitTime probe only see retained messages', async () => {
    const queue = uniqueQueue('ret-reads');
    await fx.configure(queue, { retentionSeconds: 60, minPopWaitTime: 600 });
    const pid = await pushSegment(queue, 'P', ['x1', 'x2', 'x3', 'x4', 'x5']);
    await pushSegment(queue, 'P', ['x6', 'x7']);
    assert.deepEqual(await consume(queue, 'P', 'g', 1), ['x1']);
    await age(pid, 5, 120);
    await fx.until('retention', async () => (await fx.retained(pid)).length === 2);

    const partition = (await setup.api.get(`/api/v1/resources/queues/${queue}`)).json.partitions.find((p: any) => p.name === 'P');
    assert.deepEqual(partition.stats, { total: 2, pending: 2, processing: 0, completed: 0, failed: 0, deadLetter: 0 });
    // The group's detail lists every partition of the queue (Default, untouched and empty, too): P is the one read.
    const lag = (await setup.api.get('/api/v1/consumer-groups/g')).json[queue].partitions.find((p: any) => p.partition === 'P');
    assert.equal(lag.offsetLag, 2);
    assert.ok(lag.timeLagSeconds < 60, `time lag from the oldest retained message: ${lag.timeLagSeconds}`);
    await waitFor(() => scrape(setup.broker.url), (f) => sampleValue(f, 'queen_queue_pending_messages', { queue }) === 2, 8000);

    // 2 deliverable < batch 3: the probe holds for minPopWaitTime, then claims them (a probe counting the
    // removed offsets would see 7 and claim at once).
    const started = Date.now();
    const res = await setup.api.get(`/api/v1/pop/queue/${queue}?batch=3&wait=true&timeout=10000`);
    const elapsed = Date.now() - started;
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.messages.map((m: any) => m.transactionId), ['x6', 'x7']);
    assert.ok(elapsed >= 450, `held ${elapsed} ms`);
  });
});

describe('eviction', () => {
  test('drops only old messages a contacted group has not consumed: consumed ones and newer ones stay, no DLQ entry', async () => {
    const queue = uniqueQueue('evict');
    await fx.configure(queue, { maxWaitTimeSeconds: 60 });
    assert.equal((await setup.api.get(`/api/v1/resources/queues/${queue}`)).json.config.retentionEnabled, false);
    const pid = await pushSegment(queue, 'P', ['e1', 'e2']);
    await pushSegment(queue, 'P', ['e3', 'e4']);
    await pushSegment(queue, 'P', ['e5', 'e6']);
    await pushSegment(queue, 'P', ['e7', 'e8']);
    assert.deepEqual(await consume(queue, 'P', 'a', 2), ['e1', 'e2']);
    await age(pid, 6, 120);

    await fx.until('eviction', async () => (await fx.retained(pid)).length === 4);
    await cycles('eviction');
    assert.deepEqual(await fx.retained(pid), ['e1', 'e2', 'e7', 'e8']);
    assert.deepEqual(await fx.deadLetters(pid), []);
    assert.deepEqual(await deletedByKind(queue), { eviction: 4 });
    assert.deepEqual(await consume(queue, 'P', 'a', 10), ['e7', 'e8']);
  });

  test('a partition no group contacted loses every old message, at most EVICTION_BATCH_SIZE per cycle', async () => {
    const queue = uniqueQueue('evict-cap');
    await fx.configure(queue, { maxWaitTimeSeconds: 60 });
    const pid = await pushSegment(queue, 'P', ['c1', 'c2', 'c3']);
    await pushSegment(queue, 'P', ['c4', 'c5', 'c6']);
    await pushSegment(queue, 'P', ['c7', 'c8', 'c9']);
    await age(pid, 9, 120);

    await fx.until('eviction', async () => (await fx.retained(pid)).length === 0);
    const history = (await historyOf(queue)).history;
    assert.deepEqual(history.map((row: any) => [row.kind, row.deleted]), [['eviction', 3], ['eviction', 3], ['eviction', 3]],
      'three cycles: two 3-message segments do not fit in a budget of 4');
  });
});

describe('partition cleanup', () => {
  test('deletes an empty partition idle for PARTITION_CLEANUP_DAYS with its cursors; recent or non-empty ones stay; a push re-creates it', async () => {
    const queue = uniqueQueue('clean');
    const idle = await pushSegment(queue, 'idle', ['i1']);
    assert.deepEqual(await consume(queue, 'idle', 'g', 1), ['i1']);
    const recent = await pushSegment(queue, 'recent', ['r1']);
    const full = await pushSegment(queue, 'full', ['f1']);
    for (const partition of ['idle', 'recent']) {
      assert.equal((await setup.api.del(`/api/v1/queues/${queue}/clear?partition=${partition}`)).json.success, true);
    }
    for (const [pid, days] of [[idle, 31], [recent, 29], [full, 31]] as const) {
      await setup.db.query(`UPDATE queen.partitions SET created_at = now() - make_interval(days => $2), last_push_at = now() - make_interval(days => $2) WHERE id = $1`, [pid, days]);
      await setup.db.query(`UPDATE queen.segments SET created_at = now() - make_interval(days => $2) WHERE partition_id = $1`, [pid, days]);
      await setup.db.query(`UPDATE queen.cursors SET last_activity_at = now() - make_interval(days => $2), last_consumed_at = now() - make_interval(days => $2)
                            WHERE partition_id = $1`, [pid, days]);
    }

    const partitions = async (): Promise<string[]> =>
      (await setup.api.get(`/api/v1/resources/queues/${queue}`)).json.partitions.map((p: any) => p.name).sort();
    await fx.until('partition cleanup', async () => !(await partitions()).includes('idle'));
    await cycles('retention');
    assert.deepEqual(await partitions(), ['full', 'recent']);
    assert.equal(await fx.cursor(idle, 'g'), undefined, 'per-group state goes with the partition');
    assert.deepEqual((await historyOf(queue)).history.map((row: any) => [row.partition, row.kind, row.deleted]), [['idle', 'partition_cleanup', 1]]);

    const again = await pushSegment(queue, 'idle', ['i2']);
    assert.equal(again, idle, 'a re-created partition gets its computed id back (docs/decisions.md), empty: only i2 follows');
    assert.deepEqual(await consume(queue, 'idle', 'g', 10), ['i2']);
  });
});

describe('GET /api/v1/analytics/retention', () => {
  test('history rows newest first with exact keys, filtered by queue and time, paginated with the total', async () => {
    const queue = uniqueQueue('hist');
    await fx.configure(queue, { retentionSeconds: 60 });
    const pid = await pushSegment(queue, 'P', ['h1']);
    await age(pid, 1, 120);
    await fx.until('retention', async () => (await fx.retained(pid)).length === 0);
    const p2 = await pushSegment(queue, 'Q', ['h2', 'h3']);
    await age(p2, 2, 120);
    await fx.until('retention', async () => (await fx.retained(p2)).length === 0);

    const all = await historyOf(queue);
    assert.equal(all.total, 2);
    assert.deepEqual(all.pagination, { limit: 100, offset: 0 });
    assert.deepEqual(all.history.map((row: any) => Object.keys(row)), [['timestamp', 'queue', 'partition', 'kind', 'deleted'], ['timestamp', 'queue', 'partition', 'kind', 'deleted']]);
    assert.deepEqual(all.history.map((row: any) => [row.queue, row.partition, row.kind, row.deleted]), [[queue, 'Q', 'retention', 2], [queue, 'P', 'retention', 1]]);
    for (const row of all.history) assert.match(row.timestamp, MILLIS_Z);

    const second = await historyOf(queue, '&limit=1&offset=1');
    assert.deepEqual(second.history.map((row: any) => row.partition), ['P']);
    assert.equal(second.total, 2);
    assert.deepEqual(second.pagination, { limit: 1, offset: 1 });

    const past = await setup.api.get(`/api/v1/analytics/retention?queue=${queue}&from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z`);
    assert.deepEqual(past.json, { history: [], total: 0, pagination: { limit: 100, offset: 0 } });
    const unknown = await setup.api.get('/api/v1/analytics/retention?queue=no-such-queue');
    assert.deepEqual(unknown.json, { history: [], total: 0, pagination: { limit: 100, offset: 0 } });
    const defaultRange = await setup.api.get(`/api/v1/analytics/retention?queue=${queue}`);
    assert.equal(defaultRange.json.total, 2, 'the last hour by default');
  });

  test('history older than METRICS_RETENTION_DAYS is purged by the metrics cleanup', async () => {
    const queue = uniqueQueue('hist-old');
    await fx.configure(queue, { retentionSeconds: 60 });
    const pid = await pushSegment(queue, 'P', ['o1']);
    await age(pid, 1, 120);
    await fx.until('retention', async () => (await fx.retained(pid)).length === 0);
    await setup.db.query(`UPDATE queen.retention_history SET recorded_at = now() - interval '91 days' WHERE queue_name = $1`, [queue]);
    const stored = async (): Promise<number> =>
      (await setup.db.query('SELECT count(*)::int AS n FROM queen.retention_history WHERE queue_name = $1', [queue])).rows[0]!.n;
    assert.equal(await stored(), 1);
    const refresh = await setup.api.post('/api/v1/stats/refresh');
    assert.equal(refresh.json.cleanup.ok, true, refresh.text);
    assert.equal(await stored(), 0);
  });
});
