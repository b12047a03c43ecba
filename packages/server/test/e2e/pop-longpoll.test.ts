/**
 * Long polling and visibility (seed document "Long polling", "Visibility delays"; docs/api.md 5.2 timeout,
 * 5.13, 5.15, 5.16, 5.8): wait/timeout, wake-ups, the timeout default chain, minPopWaitTime,
 * delayedProcessing and windowBuffer.
 *
 * Wake-up tests run against a broker whose backoff ticks are 5 s apart, so a message that arrives well
 * within a second can only have been delivered by the wake, not by a re-check tick.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { client, createDatabase, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase, type TestResponse } from '../support/harness.js';

const QUEUE_MODE = '__QUEUE_MODE__';
const SLOW_TICKS = { POP_WAIT_INITIAL_INTERVAL_MS: '5000', POP_WAIT_MAX_INTERVAL_MS: '5000' };

let db: TestDatabase;
let broker: BrokerProcess;
let slow: BrokerProcess;
let api: ReturnType<typeof client>;
let slowApi: ReturnType<typeof client>;

before(async () => {
  db = await createDatabase();
  [broker, slow] = await Promise.all([startBroker(db), startBroker(db, SLOW_TICKS)]);
  api = client(broker.url);
  slowApi = client(slow.url);
});
after(async () => {
  const crashed = [broker, slow].filter((b) => b !== undefined && b.process.exitCode !== null);
  for (const b of crashed) console.log(`[pop-longpoll] broker ${b.url} exited during the tests:\n${b.output()}`);
  await Promise.all([broker?.stop(), slow?.stop()]);
  await db?.close();
  assert.equal(crashed.length, 0, 'no broker may exit during the tests');
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Timed {
  res: TestResponse<any>;
  /** Milliseconds from sending the request to the full response. */
  ms: number;
  /** Date.now() when the response was complete. */
  doneAt: number;
}

async function timed(request: Promise<TestResponse<any>>): Promise<Timed> {
  const start = Date.now();
  const res = await request;
  const doneAt = Date.now();
  return { res, ms: doneAt - start, doneAt };
}

function txIds(res: TestResponse<any>, group = QUEUE_MODE): string[] {
  assert.equal(res.status, 200, `expected 200, got ${res.status} ${res.text}`);
  assert.equal(res.json.consumerGroup, group);
  return res.json.messages.map((m: any) => m.transactionId);
}

function assertEmpty(res: TestResponse<any>, reason: string): void {
  assert.equal(res.status, 204, `expected 204, got ${res.status} ${res.text}`);
  assert.equal(res.text, '');
  assert.equal(res.headers.get('x-queen-empty-reason'), reason);
}

function within(ms: number, min: number, max: number, label: string): void {
  assert.ok(ms >= min && ms < max, `${label}: took ${ms} ms, expected [${min}, ${max})`);
}

async function pushWith(target: ReturnType<typeof client>, queue: string, ids: string[], partition = 'Default'): Promise<number> {
  const res = await target.push(ids.map((id) => ({ queue, partition, transactionId: id })));
  assert.equal(res.status, 201, res.text);
  for (const r of res.json) assert.equal(r.status, 'queued', JSON.stringify(r));
  return Date.now();
}

/** Creates an empty queue (a queue-scoped pop creates the row). */
async function emptyQueue(target: ReturnType<typeof client>, prefix: string): Promise<string> {
  const queue = uniqueQueue(prefix);
  assertEmpty(await target.get(`/api/v1/pop/queue/${queue}`), 'none');
  return queue;
}

describe('wait and timeout', () => {
  test('wait=false (and no wait) answers 204 at once, whatever the timeout', async () => {
    const queue = await emptyQueue(api, 'lp-nowait');
    for (const query of ['', '?wait=false', '?wait=false&timeout=10000', '?timeout=10000', '?wait=0&timeout=10000']) {
      const { res, ms } = await timed(api.get(`/api/v1/pop/queue/${queue}${query}`));
      assertEmpty(res, 'none');
      within(ms, 0, 1000, `pop${query}`);
    }
  });

  test('wait=true&timeout=1000 on an empty queue answers 204 timeout after about a second', async () => {
    const queue = await emptyQueue(api, 'lp-timeout');
    const { res, ms } = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=1000`));
    assertEmpty(res, 'timeout');
    within(ms, 900, 3000, 'wait=true&timeout=1000');
    const one = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=1&timeout=1000`));
    assertEmpty(one.res, 'timeout');
    within(one.ms, 900, 3000, 'wait=1&timeout=1000');
  });

  test('with wait=true the 204 reason is timeout, never an intermediate reason', async () => {
    const queue = uniqueQueue('lp-reason');
    await pushWith(api, queue, ['m1'], 'P');
    assert.deepEqual(txIds(await api.get(`/api/v1/pop/queue/${queue}/partition/P`)), ['m1']);
    const cases = [
      `/api/v1/pop/queue/${queue}/partition/P?wait=true&timeout=500`, // leased
      `/api/v1/pop/queue/${queue}/partition/Missing?wait=true&timeout=500`, // no_partition
      `/api/v1/pop/queue/${queue}?wait=true&timeout=500`,
      `/api/v1/pop?namespace=${queue}&wait=true&timeout=500`,
    ];
    for (const path of cases) {
      const { res, ms } = await timed(api.get(path));
      assertEmpty(res, 'timeout');
      within(ms, 400, 2500, path);
    }
  });

  test('timeout=0 (or negative) with wait=true is a single attempt', async () => {
    const queue = await emptyQueue(api, 'lp-zero');
    for (const timeout of ['0', '-100']) {
      const { res, ms } = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=${timeout}`));
      assertEmpty(res, 'timeout');
      within(ms, 0, 800, `timeout=${timeout}`);
    }
    await pushWith(api, queue, ['z1']);
    const { res, ms } = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=0`));
    assert.deepEqual(txIds(res), ['z1']);
    within(ms, 0, 800, 'timeout=0 with a message');
  });

  test('a parked pop returns as soon as a message is there (lease expiry is caught by the re-check ticks)', async () => {
    const queue = uniqueQueue('lp-expiry');
    await pushWith(api, queue, ['x1']);
    assert.deepEqual(txIds(await api.get(`/api/v1/pop/queue/${queue}?leaseSeconds=1`)), ['x1']);
    const { res, ms } = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=5000`));
    assert.deepEqual(txIds(res), ['x1']);
    within(ms, 600, 3500, 'redelivery after a 1 s lease');
  });

  test('a parked pop whose queue is deleted stays parked until its deadline and does not recreate the queue', async () => {
    const queue = await emptyQueue(api, 'lp-deleted');
    const parked = timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=1500`));
    await sleep(300);
    const del = await api.del(`/api/v1/resources/queues/${queue}`);
    assert.equal(del.status, 200);
    assert.deepEqual(del.json, { deleted: true, queue, existed: true });
    const { res, ms } = await parked;
    assertEmpty(res, 'timeout');
    within(ms, 1400, 4000, 'parked pop on a deleted queue');
    const rows = await db.query('SELECT count(*)::int AS n FROM queen.queues WHERE name = $1', [queue]);
    assert.equal(rows.rows[0]!.n, 0);
  });

  test('a client that disconnects while parked is dropped and takes nothing', async () => {
    const queue = await emptyQueue(api, 'lp-abort');
    const controller = new AbortController();
    const parked = fetch(`${broker.url}/api/v1/pop/queue/${queue}?wait=true&timeout=10000`, { signal: controller.signal });
    await sleep(300);
    controller.abort();
    await assert.rejects(parked, { name: 'AbortError' });
    await pushWith(api, queue, ['kept']);
    assert.deepEqual(txIds(await api.get(`/api/v1/pop/queue/${queue}`)), ['kept']);
  });
});

describe('wake-ups', () => {
  test('a push wakes a parked queue-scoped pop immediately', async () => {
    const queue = await emptyQueue(slowApi, 'lp-wake');
    const parked = timed(slowApi.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=10000`));
    await sleep(300);
    const pushedAt = await pushWith(slowApi, queue, ['w1']);
    const { res, ms, doneAt } = await parked;
    assert.deepEqual(txIds(res), ['w1']);
    within(ms, 250, 2500, 'parked pop total');
    within(doneAt - pushedAt, 0, 1000, 'push-to-delivery latency');
    console.log(`[pop-longpoll] queue-scoped wake latency after push response: ${doneAt - pushedAt} ms`);
  });

  test('a push wakes a parked single-partition pop', async () => {
    const queue = uniqueQueue('lp-wake-part');
    await pushWith(slowApi, queue, ['a0'], 'A');
    assert.deepEqual(txIds(await slowApi.get(`/api/v1/pop/queue/${queue}/partition/A?autoAck=true`)), ['a0']);
    const parked = timed(slowApi.get(`/api/v1/pop/queue/${queue}/partition/A?wait=true&timeout=10000`));
    await sleep(300);
    const pushedAt = await pushWith(slowApi, queue, ['a1'], 'A');
    const { res, doneAt } = await parked;
    assert.deepEqual(txIds(res), ['a1']);
    within(doneAt - pushedAt, 0, 1000, 'push-to-delivery latency');
  });

  test('a push to another queue does not deliver to a parked pop', async () => {
    const queue = await emptyQueue(api, 'lp-other');
    const other = uniqueQueue('lp-other-target');
    const parked = timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=1500`));
    await sleep(300);
    await pushWith(api, other, ['o1']);
    const { res, ms } = await parked;
    assertEmpty(res, 'timeout');
    within(ms, 1400, 4000, 'parked pop on the untouched queue');
    assert.deepEqual(txIds(await api.get(`/api/v1/pop/queue/${other}`)), ['o1']);
  });

  test('a parked discovery pop is woken by a push to a queue in its namespace, not by other namespaces', async () => {
    const ns = `lpns${randomUUID().slice(0, 8)}`;
    const parked = timed(slowApi.get(`/api/v1/pop?namespace=${ns}&wait=true&timeout=10000&batch=10`));
    await sleep(300);
    await pushWith(slowApi, `other${ns}.t.q`, ['elsewhere']);
    await sleep(500);
    const pushedAt = await pushWith(slowApi, `${ns}.t.q`, ['inside']);
    const { res, doneAt } = await parked;
    assert.deepEqual(txIds(res), ['inside']);
    assert.equal(res.json.queue, '');
    within(doneAt - pushedAt, 0, 1000, 'discovery push-to-delivery latency');
    console.log(`[pop-longpoll] discovery wake latency after push response: ${doneAt - pushedAt} ms`);
  });

  test('a parked discovery pop filtering by task is woken by a push to a queue with that task', async () => {
    const task = `lpt${randomUUID().slice(0, 8)}`;
    const parked = timed(slowApi.get(`/api/v1/pop?task=${task}&wait=true&timeout=10000`));
    await sleep(300);
    const pushedAt = await pushWith(slowApi, `somens.${task}.q`, ['t1']);
    const { res, doneAt } = await parked;
    assert.deepEqual(txIds(res), ['t1']);
    within(doneAt - pushedAt, 0, 1000, 'task discovery push-to-delivery latency');
  });

  test('a queue-scoped pop that created the queue parks and is woken by the first push', async () => {
    const queue = `${uniqueQueue('lpcreate')}.task`;
    const parked = timed(slowApi.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=10000&consumerGroup=g`));
    await sleep(300);
    const rows = await db.query('SELECT namespace, task, lease_time FROM queen.queues WHERE name = $1', [queue]);
    assert.deepEqual(rows.rows, [{ namespace: queue.split('.')[0], task: 'task', lease_time: 60 }]);
    const pushedAt = await pushWith(slowApi, queue, ['first']);
    const { res, doneAt } = await parked;
    assert.deepEqual(txIds(res, 'g'), ['first']);
    within(doneAt - pushedAt, 0, 1000, 'push-to-delivery latency on a pop-created queue');
  });

  test('a lease released by a retry ack wakes a parked pop of that group', async () => {
    const queue = uniqueQueue('lp-release');
    await pushWith(slowApi, queue, ['r1']);
    const first = await slowApi.get(`/api/v1/pop/queue/${queue}?consumerGroup=g`);
    assert.deepEqual(txIds(first, 'g'), ['r1']);
    const parked = timed(slowApi.get(`/api/v1/pop/queue/${queue}/partition/Default?consumerGroup=g&wait=true&timeout=10000`));
    await sleep(300);
    const ack = await slowApi.post('/api/v1/ack', { transactionId: 'r1', partitionId: first.json.partitionId, leaseId: first.json.leaseId, consumerGroup: 'g', status: 'retry' });
    assert.equal(ack.json[0].success, true, ack.text);
    const ackedAt = Date.now();
    const { res, doneAt } = await parked;
    assert.deepEqual(txIds(res, 'g'), ['r1']);
    assert.notEqual(res.json.leaseId, first.json.leaseId);
    within(doneAt - ackedAt, 0, 1000, 'release-to-redelivery latency');
  });
});

describe('timeout default chain', { concurrency: true }, () => {
  const brokers: Record<string, BrokerProcess> = {};
  before(async () => {
    const envs: Record<string, Record<string, string>> = {
      defaultTimeout: { DEFAULT_TIMEOUT: '1200' },
      popDefault: { POP_DEFAULT_TIMEOUT_MS: '1500' },
      both: { DEFAULT_TIMEOUT: '1200', POP_DEFAULT_TIMEOUT_MS: '4000' },
      invalidDefault: { DEFAULT_TIMEOUT: 'soon', POP_DEFAULT_TIMEOUT_MS: '1500' },
      emptyDefault: { DEFAULT_TIMEOUT: '', POP_DEFAULT_TIMEOUT_MS: '1500' },
    };
    const started = await Promise.all(Object.entries(envs).map(async ([name, env]) => [name, await startBroker(db, env)] as const));
    for (const [name, b] of started) brokers[name] = b;
  });
  after(async () => {
    await Promise.all(Object.values(brokers).map((b) => b.stop()));
  });

  async function defaultWait(target: BrokerProcess, extra = ''): Promise<number> {
    const c = client(target.url);
    const queue = await emptyQueue(c, 'lp-chain');
    const { res, ms } = await timed(c.get(`/api/v1/pop/queue/${queue}?wait=true${extra}`));
    assertEmpty(res, 'timeout');
    return ms;
  }

  test('DEFAULT_TIMEOUT=1200 sets the default timeout', async () => {
    within(await defaultWait(brokers.defaultTimeout!), 1100, 2400, 'DEFAULT_TIMEOUT=1200');
    within(await defaultWait(brokers.defaultTimeout!, '&timeout='), 1100, 2400, 'DEFAULT_TIMEOUT=1200 with timeout= (empty)');
    within(await defaultWait(brokers.defaultTimeout!, '&timeout=300'), 250, 1100, 'an explicit timeout wins over the default');
  });

  test('POP_DEFAULT_TIMEOUT_MS=1500 sets the default timeout when DEFAULT_TIMEOUT is unset', async () => {
    within(await defaultWait(brokers.popDefault!), 1400, 2900, 'POP_DEFAULT_TIMEOUT_MS=1500');
  });

  test('DEFAULT_TIMEOUT wins when both are set', async () => {
    within(await defaultWait(brokers.both!), 1100, 2900, 'DEFAULT_TIMEOUT=1200, POP_DEFAULT_TIMEOUT_MS=4000');
  });

  test('an empty or non-integer DEFAULT_TIMEOUT counts as unset', async () => {
    within(await defaultWait(brokers.invalidDefault!), 1400, 2900, 'DEFAULT_TIMEOUT=soon, POP_DEFAULT_TIMEOUT_MS=1500');
    within(await defaultWait(brokers.emptyDefault!), 1400, 2900, 'DEFAULT_TIMEOUT="", POP_DEFAULT_TIMEOUT_MS=1500');
  });

  test('with neither variable the default is long (30 s): still parked after 2.5 s', async () => {
    const queue = await emptyQueue(api, 'lp-chain-none');
    const controller = new AbortController();
    const start = Date.now();
    const parked = fetch(`${broker.url}/api/v1/pop/queue/${queue}?wait=true`, { signal: controller.signal });
    const timer = setTimeout(() => controller.abort(), 2500);
    await assert.rejects(parked, { name: 'AbortError' }, 'the pop must still be parked when the client gives up');
    clearTimeout(timer);
    assert.ok(Date.now() - start >= 2400);
  });
});

describe('minPopWaitTime', () => {
  async function holdQueue(target: ReturnType<typeof client>, minPopWaitTime = 1500): Promise<string> {
    const queue = uniqueQueue('lp-hold');
    const conf = await target.post('/api/v1/configure', { queue, options: { minPopWaitTime } });
    assert.equal(conf.status, 200, conf.text);
    assert.equal(conf.json.options.minPopWaitTime, minPopWaitTime);
    return queue;
  }

  test('an under-full batch is held, then what is there is returned', async () => {
    const queue = await holdQueue(api);
    await pushWith(api, queue, ['h1', 'h2']);
    const { res, ms } = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&batch=10&timeout=10000`));
    assert.deepEqual(txIds(res), ['h1', 'h2']);
    within(ms, 1300, 4000, 'held pop');
  });

  test('the hold ends as soon as the batch can be filled', async () => {
    const queue = await holdQueue(slowApi);
    await pushWith(slowApi, queue, ['f1', 'f2']);
    const parked = timed(slowApi.get(`/api/v1/pop/queue/${queue}?wait=true&batch=10&timeout=10000`));
    await sleep(300);
    const pushedAt = await pushWith(slowApi, queue, ['f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9', 'f10']);
    const { res, ms, doneAt } = await parked;
    assert.deepEqual(txIds(res), ['f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9', 'f10']);
    within(ms, 250, 1300, 'filled batch');
    within(doneAt - pushedAt, 0, 1000, 'fill-to-delivery latency');
  });

  test('no hold with wait=false, batch=1, on the single-partition route or on the discovery route', async () => {
    const queue = await holdQueue(api);
    await pushWith(api, queue, ['n1', 'n2']);
    const cases: [string, string, string[]][] = [
      ['gnowait', `/api/v1/pop/queue/${queue}?wait=false&batch=10&consumerGroup=gnowait`, ['n1', 'n2']],
      ['gbatch1', `/api/v1/pop/queue/${queue}?wait=true&batch=1&timeout=10000&consumerGroup=gbatch1`, ['n1']],
      ['gsingle', `/api/v1/pop/queue/${queue}/partition/Default?wait=true&batch=10&timeout=10000&consumerGroup=gsingle`, ['n1', 'n2']],
      ['gdisc', `/api/v1/pop?namespace=${queue}&wait=true&batch=10&timeout=10000&consumerGroup=gdisc`, ['n1', 'n2']],
    ];
    for (const [group, path, expected] of cases) {
      const { res, ms } = await timed(api.get(path));
      assert.deepEqual(txIds(res, group), expected, group);
      within(ms, 0, 900, group);
    }
  });

  test('the hold never outlives the caller timeout', async () => {
    const queue = await holdQueue(api);
    await pushWith(api, queue, ['t1', 't2']);
    const { res, ms } = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&batch=10&timeout=600`));
    assert.deepEqual(txIds(res), ['t1', 't2']);
    within(ms, 500, 1300, 'hold cut by timeout=600');
  });

  test('the hold starts at the first non-empty count, not at the request arrival', async () => {
    const queue = await holdQueue(api);
    const parked = timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&batch=10&timeout=10000`));
    await sleep(600);
    const pushedAt = await pushWith(api, queue, ['late1']);
    const { res, doneAt } = await parked;
    assert.deepEqual(txIds(res), ['late1']);
    within(doneAt - pushedAt, 1300, 4000, 'hold measured from the first message');
  });

  test('nothing is leased during the hold: another consumer may take the messages, the held pop carries on', async () => {
    const queue = await holdQueue(api);
    await pushWith(api, queue, ['s1', 's2']);
    const parked = timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&batch=10&timeout=2500`));
    await sleep(300);
    const taken = await api.get(`/api/v1/pop/queue/${queue}?batch=10`);
    assert.deepEqual(txIds(taken), ['s1', 's2']);
    const { res, ms } = await parked;
    assertEmpty(res, 'timeout');
    within(ms, 2400, 5000, 'held pop after the messages were taken');
  });

  test('the count respects partitions: an under-full count within the partition cap holds, a full one does not', async () => {
    const queue = await holdQueue(api);
    await pushWith(api, queue, ['a1', 'a2'], 'A');
    await pushWith(api, queue, ['b1', 'b2'], 'B');
    const capped = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&batch=4&partitions=1&timeout=10000&consumerGroup=capped`));
    const ids = txIds(capped.res, 'capped');
    assert.ok(JSON.stringify(ids) === '["a1","a2"]' || JSON.stringify(ids) === '["b1","b2"]', `one partition: ${ids}`);
    within(capped.ms, 1300, 4000, 'batch 4 from at most 1 partition holding 2');
    const uncapped = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&batch=4&partitions=0&timeout=10000&consumerGroup=uncapped`));
    assert.deepEqual(txIds(uncapped.res, 'uncapped').sort(), ['a1', 'a2', 'b1', 'b2']);
    within(uncapped.ms, 0, 900, 'batch 4 filled from two partitions');
  });

  test('the count is of deliverable messages: segments hidden by delayedProcessing do not start the hold', async () => {
    const queue = uniqueQueue('lp-hold-delay');
    const conf = await api.post('/api/v1/configure', { queue, options: { minPopWaitTime: 1500, delayedProcessing: 2 } });
    assert.equal(conf.status, 200, conf.text);
    const pushedAt = await pushWith(api, queue, ['hd1', 'hd2']);
    const { res, doneAt } = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&batch=10&timeout=10000`));
    assert.deepEqual(txIds(res), ['hd1', 'hd2']);
    // Deliverable from ~2 s after the push; the hold of 1.5 s starts then.
    within(doneAt - pushedAt, 3200, 6500, 'delay, then hold');
  });

  test('the count is of deliverable messages: a backlog a new subscriber skips does not start the hold', async () => {
    const queue = await holdQueue(api);
    await pushWith(api, queue, ['old1', 'old2']);
    const parked = timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&batch=10&timeout=10000&consumerGroup=fresh&subscriptionMode=new`));
    await sleep(1000);
    const pushedAt = await pushWith(api, queue, ['new1']);
    const { res, doneAt } = await parked;
    assert.deepEqual(txIds(res, 'fresh'), ['new1']);
    within(doneAt - pushedAt, 1300, 4000, 'hold measured from the first deliverable message');
  });

  test('minPopWaitTime above 60000 is stored as 60000', async () => {
    const queue = uniqueQueue('lp-hold-clamp');
    const conf = await api.post('/api/v1/configure', { queue, options: { minPopWaitTime: 90_000 } });
    assert.equal(conf.status, 200, conf.text);
    assert.equal(conf.json.options.minPopWaitTime, 60_000);
    const detail = await api.get(`/api/v1/resources/queues/${queue}`);
    assert.equal(detail.json.config.minPopWaitTime, 60_000);
  });
});

describe('visibility delays', () => {
  test('delayedProcessing: segments younger than the delay are not delivered, then they are', async () => {
    const queue = uniqueQueue('lp-delay');
    const conf = await api.post('/api/v1/configure', { queue, options: { delayedProcessing: 2 } });
    assert.equal(conf.status, 200, conf.text);
    const firstAt = await pushWith(api, queue, ['d1']);
    assertEmpty(await api.get(`/api/v1/pop/queue/${queue}/partition/Default`), 'delayed');
    assertEmpty(await api.get(`/api/v1/pop/queue/${queue}`), 'none');
    assertEmpty(await api.get(`/api/v1/pop?namespace=${queue}`), 'none');
    assertEmpty(await api.get(`/api/v1/pop/queue/${queue}/partition/Default?wait=true&timeout=300`), 'timeout');

    await sleep(Math.max(0, firstAt + 1000 - Date.now()));
    const secondAt = await pushWith(api, queue, ['d2']);
    // d1 becomes visible ~2 s after its push; d2 (younger) stays hidden at the tail.
    const one = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&batch=10&timeout=5000&autoAck=true`));
    assert.deepEqual(txIds(one.res), ['d1']);
    within(one.doneAt - firstAt, 1800, 4500, 'd1 after its delay');
    const two = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&batch=10&timeout=5000&autoAck=true`));
    assert.deepEqual(txIds(two.res), ['d2']);
    within(two.doneAt - secondAt, 1800, 4500, 'd2 after its delay');
  });

  test('windowBuffer: nothing is delivered while the partition received something recently, then all together', async () => {
    const queue = uniqueQueue('lp-window');
    const conf = await api.post('/api/v1/configure', { queue, options: { windowBuffer: 2 } });
    assert.equal(conf.status, 200, conf.text);
    const firstAt = await pushWith(api, queue, ['w1']);
    assertEmpty(await api.get(`/api/v1/pop/queue/${queue}/partition/Default`), 'window_buffer');
    assertEmpty(await api.get(`/api/v1/pop/queue/${queue}`), 'none');
    await sleep(Math.max(0, firstAt + 1000 - Date.now()));
    const secondAt = await pushWith(api, queue, ['w2']);
    await sleep(Math.max(0, firstAt + 2300 - Date.now()));
    // w1 is older than the window now, but the partition received w2 within it.
    assertEmpty(await api.get(`/api/v1/pop/queue/${queue}/partition/Default?batch=10`), 'window_buffer');
    const all = await timed(api.get(`/api/v1/pop/queue/${queue}?wait=true&batch=10&timeout=5000`));
    assert.deepEqual(txIds(all.res), ['w1', 'w2']);
    within(all.doneAt - secondAt, 1800, 4500, 'window closed');
  });
});

describe('backoff and pool use', () => {
  // Re-checks 300 ms apart for the first empty one, then x6 (1800 ms), capped at 5000 ms.
  let paced: BrokerProcess;
  let pacedApi: ReturnType<typeof client>;
  before(async () => {
    paced = await startBroker(db, {
      POP_WAIT_INITIAL_INTERVAL_MS: '300',
      POP_WAIT_BACKOFF_THRESHOLD: '1',
      POP_WAIT_BACKOFF_MULTIPLIER: '6',
      POP_WAIT_MAX_INTERVAL_MS: '5000',
      DB_POOL_SIZE: '2',
      DB_POOL_ACQUIRE_TIMEOUT_MS: '1000',
    });
    pacedApi = client(paced.url);
  });
  after(async () => {
    await paced?.stop();
  });

  test('the re-check interval backs off: a lease expiring after 1 s is noticed at the ~2.1 s re-check', async () => {
    const queue = uniqueQueue('lp-backoff');
    await pushWith(pacedApi, queue, ['b1']);
    assert.deepEqual(txIds(await pacedApi.get(`/api/v1/pop/queue/${queue}?leaseSeconds=1`)), ['b1']);
    const { res, ms } = await timed(pacedApi.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=10000`));
    assert.deepEqual(txIds(res), ['b1']);
    // Re-checks at ~0.3 s and ~2.1 s (then ~7.1 s): not at a fixed 300 ms cadence, not after the 5 s cap.
    within(ms, 1700, 4500, 'redelivery noticed by the backed-off re-check');
  });

  test('a wake resets the backoff', async () => {
    const queue = uniqueQueue('lp-reset');
    await pushWith(pacedApi, queue, ['r1'], 'P');
    assert.deepEqual(txIds(await pacedApi.get(`/api/v1/pop/queue/${queue}/partition/P?leaseSeconds=3`)), ['r1']);
    const start = Date.now();
    const parked = timed(pacedApi.get(`/api/v1/pop/queue/${queue}/partition/P?wait=true&timeout=10000`));
    // Without a wake the re-checks fall at ~0.3, ~2.1 and ~7.1 s. A push to another partition of the queue at
    // ~2.5 s wakes the pop (nothing for it there) and resets the interval: re-checks at ~2.8 and ~4.6 s.
    await sleep(Math.max(0, start + 2500 - Date.now()));
    await pushWith(pacedApi, queue, ['other'], 'Q');
    const { res, ms } = await parked;
    assert.deepEqual(txIds(res), ['r1']);
    within(ms, 2800, 6300, 'lease expiry at ~3 s noticed after the reset backoff');
  });

  test('parked pops hold no database connection', async () => {
    const queues = Array.from({ length: 12 }, () => uniqueQueue('lp-idle'));
    for (const q of queues) assertEmpty(await pacedApi.get(`/api/v1/pop/queue/${q}`), 'none');
    const parked = queues.map((q) => timed(pacedApi.get(`/api/v1/pop/queue/${q}?wait=true&timeout=4000`)));
    await sleep(500);
    // With a pool of 2, any of these would fail with 500 pool if the parked pops held connections.
    const busy = uniqueQueue('lp-busy');
    const pushed = await pacedApi.push([{ queue: busy, transactionId: 'p1' }]);
    assert.equal(pushed.status, 201, pushed.text);
    const popped = await timed(pacedApi.get(`/api/v1/pop/queue/${busy}`));
    assert.deepEqual(txIds(popped.res), ['p1']);
    within(popped.ms, 0, 900, 'pop beside 12 parked pops');
    // And a push to a parked queue is delivered to its pop.
    const pushedAt = await pushWith(pacedApi, queues[0]!, ['w1']);
    const first = await parked[0]!;
    assert.deepEqual(txIds(first.res), ['w1']);
    within(first.doneAt - pushedAt, 0, 1000, 'wake beside 11 parked pops');
    for (const p of parked.slice(1)) assertEmpty((await p).res, 'timeout');
  });
});

describe('shutdown', () => {
  test('a parked pop is answered 204 shutdown when the broker stops', async () => {
    const own = await startBroker(db);
    const c = client(own.url);
    const queue = await emptyQueue(c, 'lp-shutdown');
    const parked = timed(c.get(`/api/v1/pop/queue/${queue}?wait=true&timeout=20000`));
    await sleep(300);
    const stopping = Date.now();
    const stopped = own.stop();
    const { res, ms } = await parked;
    assertEmpty(res, 'shutdown');
    within(ms, 250, 5000, 'parked pop answered at shutdown');
    // Exit timing belongs to the shutdown tests; do not let a lingering exit slow this file down.
    const exited = await Promise.race([stopped.then(() => true), sleep(5000).then(() => false)]);
    if (!exited) {
      console.log(`[pop-longpoll] broker still running ${Date.now() - stopping} ms after SIGTERM (parked pop already answered); killing it`);
      await own.kill();
    }
  });
});
