/**
 * Figures of a queue read by several consumer groups at different speeds (docs/api.md 7.2, 7.7, 7.10): each group
 * is counted against its own cursors over every partition of the queue, a partition it has not touched yet from
 * where it will start (the start of the queue, or its subscription's start). So a group reaching a new partition
 * moves no figure, a group's lag counts the messages it has not read on partitions it never touched, and the
 * queue-wide "completed" is what every group has consumed.
 *
 * The queue: partitions P1, P2, P3 with 5 messages each (15). `billing` consumes all 15; `audit` consumes 2 of P1.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';
import { popped, pushIds } from '../support/group-fixtures.js';
import { scrape } from '../support/monitoring.js';
import { sampleValue } from '../support/prometheus.js';

const queue = uniqueQueue('two-groups');
const billing = `billing-${randomUUID().slice(0, 8)}`;
const audit = `audit-${randomUUID().slice(0, 8)}`;
const late = `late-${randomUUID().slice(0, 8)}`;

const ids = (p: string): string[] => [1, 2, 3, 4, 5].map((i) => `${p}-${i}`);

interface GroupFigures { name: string; completed: number; processing: number; pending: number; partitions: number; timeLagSeconds: number }

async function queueStatus(): Promise<{ totals: { messages: Record<string, number> }; consumerGroups: GroupFigures[] }> {
  const res = await setup.api.get(`/api/v1/status/queues/${queue}`);
  assert.equal(res.status, 200, res.text);
  return res.json;
}

async function groupRow(group: string): Promise<{ members: number; totalLag: number; partitionsWithLag: number }> {
  const res = await setup.api.get('/api/v1/consumer-groups');
  assert.equal(res.status, 200, res.text);
  const row = res.json.find((g: { name: string; queueName: string }) => g.name === group && g.queueName === queue);
  assert.ok(row !== undefined, `${group} listed`);
  return row;
}

const figures = (list: GroupFigures[], name: string) => {
  const g = list.find((x) => x.name === name);
  assert.ok(g !== undefined, `${name} in ${JSON.stringify(list)}`);
  return { completed: g.completed, processing: g.processing, pending: g.pending, partitions: g.partitions };
};

const setup = useBroker({}, async ({ api }) => {
  for (const p of ['P1', 'P2', 'P3']) await pushIds(api, queue, p, ids(p));
  const all = await api.get(`/api/v1/pop/queue/${queue}?batch=100&partitions=0&consumerGroup=${billing}&autoAck=true`);
  assert.equal(popped(all).length, 15);
  const two = await api.get(`/api/v1/pop/queue/${queue}/partition/P1?batch=2&consumerGroup=${audit}&autoAck=true`);
  assert.deepEqual(popped(two), ['P1-1', 'P1-2']);
});

describe('two consumer groups at different speeds', () => {
  test('each group is counted against its own cursors; the queue counts what every group has consumed', async () => {
    const status = await queueStatus();
    assert.deepEqual(figures(status.consumerGroups, billing), { completed: 15, processing: 0, pending: 0, partitions: 3 });
    // audit touched only P1: P2 and P3 count from where it will start (the beginning), 13 unread in all.
    assert.deepEqual(figures(status.consumerGroups, audit), { completed: 2, processing: 0, pending: 13, partitions: 1 });
    const m = status.totals.messages;
    assert.deepEqual([m.total, m.completed, m.processing, m.pending], [15, 2, 0, 13]);
    const resource = await setup.api.get(`/api/v1/resources/queues/${queue}`);
    assert.deepEqual([resource.json.totals.completed, resource.json.totals.pending], [2, 13]);
  });

  test('the Prometheus gauges say the same: pending 13 on the queue, audit lagging on partitions it never read', async () => {
    const families = await scrape(setup.broker.url);
    assert.equal(sampleValue(families, 'queen_queue_pending_messages', { queue }), 13);
    assert.equal(sampleValue(families, 'queen_queue_lag_seconds', { queue, consumer_group: billing }), 0);
    assert.ok((sampleValue(families, 'queen_queue_lag_seconds', { queue, consumer_group: audit }) ?? -1) >= 0);
  });

  test("a group's lag covers the partitions it has not touched yet", async () => {
    const row = await groupRow(audit);
    assert.deepEqual([row.members, row.totalLag, row.partitionsWithLag], [1, 13, 3]);
    const done = await groupRow(billing);
    assert.deepEqual([done.members, done.totalLag, done.partitionsWithLag], [3, 0, 0]);
    const detail = await setup.api.get(`/api/v1/consumer-groups/${audit}`);
    const lags = detail.json[queue].partitions.map((p: { partition: string; offsetLag: number }) => [p.partition, p.offsetLag]);
    assert.deepEqual(lags, [['P1', 3], ['P2', 5], ['P3', 5]]);
  });

  test('a group reaching a new partition moves no figure: pending does not jump, the lease shows as processing', async () => {
    const one = await setup.api.get(`/api/v1/pop/queue/${queue}/partition/P2?batch=1&consumerGroup=${audit}`);
    assert.deepEqual(popped(one), ['P2-1']);
    const status = await queueStatus();
    assert.deepEqual(figures(status.consumerGroups, audit), { completed: 2, processing: 1, pending: 12, partitions: 2 });
    const m = status.totals.messages;
    assert.deepEqual([m.total, m.completed, m.processing, m.pending], [15, 2, 1, 12]);
    assert.equal((await groupRow(audit)).totalLag, 13, 'a leased message is still unconsumed');
  });

  test('a group subscribed at the tail counts only what was pushed after its subscription, a new partition included', async () => {
    const none = await setup.api.get(`/api/v1/pop/queue/${queue}?partitions=0&consumerGroup=${late}&subscriptionMode=new`);
    assert.equal(none.status, 204, none.text);
    await pushIds(setup.api, queue, 'P3', ['P3-6']);
    await pushIds(setup.api, queue, 'P4', ['P4-1']); // a partition no group has touched
    const status = await queueStatus();
    assert.deepEqual(figures(status.consumerGroups, late), { completed: 15, processing: 0, pending: 2, partitions: 3 });
    assert.deepEqual(figures(status.consumerGroups, billing), { completed: 15, processing: 0, pending: 2, partitions: 3 });
    assert.deepEqual(figures(status.consumerGroups, audit), { completed: 2, processing: 1, pending: 14, partitions: 2 });
    assert.deepEqual([(await groupRow(late)).totalLag, (await groupRow(audit)).totalLag], [2, 15]);
    const m = status.totals.messages;
    assert.deepEqual([m.total, m.completed, m.processing, m.pending], [17, 2, 1, 14]);
  });
});
