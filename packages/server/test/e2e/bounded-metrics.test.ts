/**
 * Per-queue series of /metrics/prometheus are bounded (METRICS_MAX_QUEUES): a pop on a random queue name
 * creates the queue, so without a bound 20 000 such pops added 40 000 series (0.27 -> 2.46 MB). Past the
 * bound, queues share `queue="__other__"`, whose values are the sums of theirs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';
import { scrape } from '../support/monitoring.js';

const MAX = 3;
const setup = useBroker({ METRICS_MAX_QUEUES: String(MAX), STATS_INTERVAL_MS: '100' });

test(`12 queues (pops on new names, pushes): at most ${MAX} named queues per family plus __other__, nothing lost`, async () => {
  for (let i = 0; i < 6; i++) {
    const res = await setup.api.get(`/api/v1/pop/queue/${uniqueQueue('rnd')}?wait=false`);
    assert.ok(res.status === 204 || res.status === 200, String(res.status));
  }
  const pushed = Array.from({ length: 6 }, (_, i) => ({ queue: uniqueQueue('busy'), transactionId: `m-${i}`, payload: {} }));
  assert.equal((await setup.api.push(pushed)).status, 201);
  await new Promise((r) => setTimeout(r, 300)); // past the gauges' cache
  const families = await scrape(setup.broker.url);
  for (const name of ['queen_queue_pending_messages', 'queen_dlq_depth', 'queen_messages_pushed_total']) {
    const family = families.get(name);
    assert.ok(family, name);
    const queues = new Set(family.samples.map((s) => s.labels.queue));
    const named = [...queues].filter((q) => q !== '__other__');
    assert.ok(named.length <= MAX, `${name}: ${named.length} named queues`);
    assert.ok(queues.has('__other__'), `${name} has the shared series`);
  }
  const pending = families.get('queen_queue_pending_messages')!.samples.reduce((sum, s) => sum + s.value, 0);
  const pushedTotal = families.get('queen_messages_pushed_total')!.samples.reduce((sum, s) => sum + s.value, 0);
  assert.equal(pending, 6, 'the pending messages of every queue are counted, named or not');
  assert.equal(pushedTotal, 6);
});
