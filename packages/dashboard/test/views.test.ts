/**
 * The dashboard in a real Chromium against a real broker on PostgreSQL, auth off (docs/dashboard.md): every
 * view shows the figures the API returns, every action's effect is checked through the API, deep links and the
 * history fallback work, and no view logs a console error or a failed request. One browser and one page for
 * the file; screenshots of every view go to packages/dashboard/screenshots/.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as broker from '@queen/client/api';
import { useBroker } from '../../server/test/support/harness.js';
import { brokerApi, expectStatus, found, queenStatus } from '../../server/test/support/sdk-api.js';
import { screenshot, useBrowser } from './support/browser.js';
import { confirm, count, eventually, nav, open, waitCount, waitText } from './support/dashboard.js';

const ORDERS = 'dash.orders';
const EVENTS = 'dash.events';
const ids: { p1: string; p2: string; p1tx: string[]; p2tx: string[] } = { p1: '', p2: '', p1tx: [], p2tx: [] };

/** Pushes `n` messages to a partition; returns the partition id and the transaction ids. */
async function pushMany(queue: string, partition: string, n: number): Promise<{ pid: string; txs: string[] }> {
  const res = await expectStatus(api, (h) => broker.push(h, { items: Array.from({ length: n }, (_, i) => ({ queue, partition, payload: { n: i + 1, partition } })) }), 201);
  const queued = res.filter((r): r is Extract<(typeof res)[number], { status: 'queued' }> => r.status === 'queued');
  assert.equal(queued.length, n, JSON.stringify(res));
  return { pid: queued[0]!.partition_id, txs: queued.map((r) => r.transaction_id) };
}

/** Pops `batch` from a partition for a group and acks each message with the given statuses. */
async function popAck(queue: string, partition: string, group: string | null, statuses: ('completed' | 'dlq')[], error = 'card declined'): Promise<void> {
  const popped = await expectStatus(api, (h) => broker.popPartition(h, queue, partition, { batch: statuses.length, ...(group === null ? {} : { consumerGroup: group }) }));
  assert.ok(popped !== null);
  for (const [i, status] of statuses.entries()) {
    const m = popped.messages[i]!;
    await expectStatus(api, (h) => broker.ackMessage(h, { transactionId: m.transactionId, partitionId: m.partitionId, leaseId: popped.leaseId, status, ...(status === 'dlq' ? { error } : {}), ...(group === null ? {} : { consumerGroup: group }) }));
  }
}

const setup = useBroker({ STATS_INTERVAL_MS: '1000' }, async () => {
  await expectStatus(api, (h) => broker.configure(h, { queue: ORDERS, namespace: 'dash', task: 'orders', options: { leaseTime: 120, retryLimit: 2, deadLetterQueue: true } }));
  await expectStatus(api, (h) => broker.configure(h, { queue: EVENTS, namespace: 'dash', task: 'events' }));
  const p1 = await pushMany(ORDERS, 'p1', 5);
  const p2 = await pushMany(ORDERS, 'p2', 3);
  await pushMany(EVENTS, 'Default', 4);
  Object.assign(ids, { p1: p1.pid, p2: p2.pid, p1tx: p1.txs, p2tx: p2.txs });
  await popAck(ORDERS, 'p1', 'billing', ['completed', 'dlq']);
  await popAck(ORDERS, 'p2', null, ['dlq'], 'timeout');
  await expectStatus(api, (h) => broker.recordTrace(h, { transactionId: p1.txs[0]!, partitionId: p1.pid, data: { text: 'charged' }, eventType: 'step', traceNames: ['order-flow'] }), 201);
  await expectStatus(api, broker.refreshStats);
});
const api = brokerApi(() => setup.broker.url);

const ui = useBrowser();

const url = (): string => setup.broker.url;
/** One read of the API layer, answered with 200. */
const get = <T>(call: (http: broker.ApiRequester) => Promise<T>): Promise<T> => expectStatus(api, call);
/** A queue's detail (it must exist). */
const queueDetail = async (name: string): Promise<broker.QueueDetail> => found(await get((h) => broker.getQueue(h, name)));
/** Every test ends on a page that logged no console error and had no failed request. */
const noProblems = (): void => assert.deepEqual(ui.watched.takeProblems(), []);

test('Dashboard: the counts strip, metric rows and top lists show what the API returns', async () => {
  const overview = await get(broker.getOverview);
  const queues = (await get(broker.listQueues)).queues as { partitions: number }[];
  await open(ui.page, url(), '/');
  assert.equal(await ui.page.title(), 'Dashboard | Queen Dashboard');
  await waitText(ui.page.getByTestId('count-messages'), count(overview.messages.total));
  assert.equal(overview.messages.total, 12);
  await waitText(ui.page.getByTestId('count-queues'), count(overview.queues));
  await waitText(ui.page.getByTestId('count-pending'), count(overview.messages.pending));
  await waitText(ui.page.getByTestId('count-completed'), count(overview.messages.completed));
  await waitText(ui.page.getByTestId('count-partitions'), count(queues.reduce((a, q) => a + q.partitions, 0)));
  await waitText(ui.page.getByTestId('count-groups'), '1'); // billing (queue mode is not a named group)
  await waitCount(ui.page.locator('[data-testid^=metric-]:not([data-testid=metric-table])'), 10);
  await waitText(ui.page.getByTestId('now-partitions'), count(overview.partitions));
  const status = await get(broker.getStatus);
  const e = status.errors;
  await waitText(ui.page.getByTestId('now-errors'), count(e.dbErrors + e.ackFailed));
  // The top queues list is sorted by pending, with the API's pending figures.
  const byPending = (await get(broker.listQueues)).queues.sort((a: any, b: any) => b.messages.pending - a.messages.pending);
  await waitText(ui.page.getByTestId('top-queue-pending'), count(byPending[0]!.messages.pending));
  await waitCount(ui.page.getByTestId('top-group'), (await get(broker.listConsumerGroups)).length);
  // A metric row expands into a chart (uPlot draws into a canvas).
  await ui.page.getByTestId('metric-throughput').click();
  await ui.page.locator('.chart canvas').first().waitFor();
  await ui.page.getByTestId('metric-throughput').click();
  await screenshot(ui.page, 'dashboard');
  noProblems();
});

test('Queues: every queue with its counts, filters held in the URL, create from the form', async () => {
  await open(ui.page, url(), '/');
  await nav(ui.page, 'Queues');
  const rows = ui.page.locator('[data-testid=queue-table] [data-testid=row]');
  await waitCount(rows, 2);
  const events = (await queueDetail(EVENTS)).totals;
  const row = rows.filter({ hasText: 'events' });
  await waitText(row.locator('[data-col=pending]'), count(events.pending));
  await waitText(row.locator('[data-col=total]'), count(events.total));
  await waitText(row.locator('[data-col=partitions]'), '1');
  await ui.page.getByTestId('queue-search').fill('events');
  await waitCount(rows, 1);
  assert.equal(new URL(ui.page.url()).searchParams.get('search'), 'events');
  await screenshot(ui.page, 'queues');
  // Reloading keeps the filter (it lives in the URL).
  await ui.page.reload();
  await waitCount(rows, 1);
  assert.equal(await ui.page.getByTestId('queue-search').inputValue(), 'events');
  await ui.page.getByTestId('queue-search').fill('');
  await waitCount(rows, 2);

  await ui.page.getByTestId('create-queue').click();
  const form = ui.page.getByTestId('queue-form');
  await form.locator('input[name=queue]').fill('dash.created');
  await form.locator('input[name=namespace]').fill('dash');
  await form.locator('input[name=leaseTime]').fill('45');
  await form.locator('input[name=deadLetterQueue]').check();
  await ui.page.getByTestId('queue-form-submit').click();
  await ui.page.waitForURL(`${url()}/queues/dash.created`);
  await waitText(ui.page.getByTestId('queue-name'), 'dash.created');
  const created = await queueDetail('dash.created');
  assert.equal(created.config.leaseTime, 45);
  assert.equal(created.config.deadLetterQueue, true);
  assert.equal(created.namespace, 'dash');
  // A configure error is shown inline, from the broker's text.
  await ui.page.getByTestId('configure').click();
  await ui.page.getByTestId('queue-form').locator('input[name=leaseTime]').fill('-5');
  await ui.page.getByTestId('queue-form-submit').click();
  await ui.page.getByTestId('action-error').waitFor();
  assert.match((await ui.page.getByTestId('action-error').textContent()) ?? '', /leaseTime/);
  ui.watched.takeProblems((p) => p.startsWith(`HTTP 400: ${broker.routes.configure.method}`) && p.endsWith(broker.pathOf(broker.routes.configure, {})));
  await ui.page.getByRole('button', { name: 'Cancel' }).click();
  noProblems();
});

test('Queue detail: counts, configuration and partitions; configure, publish, clear a partition, clear, delete', async () => {
  const detail = await queueDetail(ORDERS);
  await open(ui.page, url(), `/queues/${ORDERS}`);
  await waitText(ui.page.getByTestId('q-total'), count(detail.totals.total));
  await waitText(ui.page.getByTestId('q-pending'), count(detail.totals.pending));
  await waitText(ui.page.getByTestId('q-dlq'), count(detail.totals.deadLetter));
  await waitText(ui.page.getByTestId('q-partitions'), count(detail.partitions.length));
  const dlq = await get((h) => broker.listDlq(h, { queue: ORDERS }));
  await waitText(ui.page.getByTestId('dlq-badge'), count(dlq.total));
  const partitions = await get((h) => broker.listPartitions(h, { queue: ORDERS }));
  await waitCount(ui.page.getByTestId('partition-row'), partitions.total);
  const config = ui.page.getByTestId('queue-config');
  assert.match((await config.textContent()) ?? '', /Lease time120 s/);
  assert.match((await config.textContent()) ?? '', /Dead-letter queueenabled/);
  await screenshot(ui.page, 'queue-detail');

  // Configure: the form is prefilled with the current options (a full replace) and saves the change.
  await ui.page.getByTestId('configure').click();
  const form = ui.page.getByTestId('queue-form');
  assert.equal(await form.locator('input[name=retryLimit]').inputValue(), '2');
  await form.locator('input[name=leaseTime]').fill('200');
  await ui.page.getByTestId('queue-form-submit').click();
  await ui.page.getByTestId('queue-form').waitFor({ state: 'detached' });
  const reconfigured = (await queueDetail(ORDERS)).config;
  assert.equal(reconfigured.leaseTime, 200);
  assert.equal(reconfigured.retryLimit, 2);
  assert.equal(reconfigured.deadLetterQueue, true);

  // Publish a test message to a new partition.
  await ui.page.getByTestId('publish').click();
  const modal = ui.page.getByTestId('modal');
  await modal.locator('input[name=partition]').fill('p3');
  await modal.locator('textarea[name=payload]').fill('{"hello":"dashboard"}');
  await modal.locator('input[name=transactionId]').fill('dash-tx-1');
  await ui.page.getByTestId('publish-submit').click();
  await waitText(ui.page.getByTestId('publish-result'), 'queued · dash-tx-1');
  await ui.page.getByTestId('publish-submit').click(); // the same transactionId again
  await waitText(ui.page.getByTestId('publish-result'), 'duplicate · dash-tx-1');
  await modal.locator('.modal-foot').getByRole('button', { name: 'Close' }).click();
  const afterPush = await queueDetail(ORDERS);
  assert.equal(afterPush.totals.total, detail.totals.total + 1);
  const p3 = afterPush.partitions.find((p: any) => p.name === 'p3');
  assert.equal(p3!.stats.total, 1);
  await waitText(ui.page.getByTestId('q-total'), count(afterPush.totals.total));

  // Clear one partition (typed-name confirmation).
  await waitCount(ui.page.getByTestId('partition-row'), partitions.total + 1);
  await ui.page.getByTestId('partition-row').filter({ hasText: 'p3' }).getByTestId('clear-partition').click();
  assert.equal(await ui.page.getByTestId('confirm').isDisabled(), true);
  await confirm(ui.page, 'p3');
  await eventually(async () => (await queueDetail(ORDERS)).partitions.find((p: any) => p.name === 'p3')!.stats.total === 0, 'p3 cleared');

  // Clear a whole queue, then delete a queue; both need the typed name.
  await open(ui.page, url(), `/queues/${EVENTS}`);
  await ui.page.getByTestId('clear-queue').click();
  await ui.page.getByTestId('type-to-confirm').fill('dash.event');
  assert.equal(await ui.page.getByTestId('confirm').isDisabled(), true);
  await confirm(ui.page, EVENTS);
  await eventually(async () => (await queueDetail(EVENTS)).totals.total === 0, 'events cleared');
  await waitText(ui.page.getByTestId('q-total'), '0');
  await open(ui.page, url(), '/queues/dash.created');
  await ui.page.getByTestId('delete-queue').click();
  assert.equal((await ui.page.getByTestId('planned-call').textContent()) ?? '', `${broker.routes.deleteQueue.method} ${broker.pathOf(broker.routes.deleteQueue, { queue: 'dash.created' })}`);
  await confirm(ui.page, 'dash.created');
  await ui.page.waitForURL(`${url()}/queues`);
  assert.equal(await queenStatus(api, (h) => broker.getQueue(h, 'dash.created')), '404');
  // A deep link to a missing queue says so.
  await open(ui.page, url(), '/queues/no-such-queue');
  await ui.page.getByText('Queue not found').waitFor();
  noProblems();
});

test('Messages: the list, the panel with payload and groups, move to DLQ, delete; deep link by ids', async () => {
  const list = await get((h) => broker.listMessages(h, { queue: ORDERS, limit: 100 }));
  await open(ui.page, url(), `/messages?queue=${ORDERS}`);
  await waitCount(ui.page.getByTestId('message-row'), list.messages.length);
  await waitText(ui.page.getByTestId('message-row').first().locator('td').nth(2), list.messages[0]!.transactionId);
  await ui.page.getByTestId('message-row').first().click();
  await waitText(ui.page.getByTestId('panel-tx'), list.messages[0]!.transactionId);
  const one = await get((h) => broker.getMessage(h, list.messages[0]!.partitionId, list.messages[0]!.transactionId)).then(found);
  assert.deepEqual(JSON.parse((await ui.page.getByTestId('panel-payload').textContent()) ?? ''), one.payload);
  await screenshot(ui.page, 'messages');
  // Times in UTC on request (remembered), then back to local time.
  const utcCreated = `${one.createdAt.slice(0, 19).replace('T', ' ')}Z`;
  await ui.page.getByTestId('toggle-utc').click();
  await ui.page.getByTestId('panel-facts').getByText(utcCreated).waitFor();
  await ui.page.getByTestId('toggle-utc').click();
  await ui.page.getByTestId('panel-facts').getByText(utcCreated).waitFor({ state: 'detached' });

  // Deep link straight to a message (what the trace link sends): the head of p2 in queue mode moves to the DLQ.
  const head = ids.p2tx[1]!;
  await open(ui.page, url(), `/messages?partitionId=${ids.p2}&transactionId=${head}`);
  await waitText(ui.page.getByTestId('panel-status'), 'pending');
  await ui.page.getByTestId('panel-dlq').click();
  await confirm(ui.page);
  await eventually(async () => (await get((h) => broker.getMessage(h, ids.p2, head)).then(found)).status === 'dead_letter', 'moved to the DLQ');
  const entries = await get((h) => broker.listDlq(h, { queue: ORDERS, partition: 'p2' }));
  assert.equal(entries.messages.find((m: any) => m.transactionId === head)!.errorMessage, 'Moved to DLQ by operator');

  // A message pushed with W3C trace context shows it.
  const traced = 'dash.traced';
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const pushedTraced = await expectStatus(api, (h) => broker.push(h, { items: [{ queue: traced, payload: 1, transactionId: 'traced-1', traceparent, tracestate: 'congo=t61rcWkgMzE' }] }), 201);
  await open(ui.page, url(), `/messages?partitionId=${(pushedTraced[0] as { partition_id: string }).partition_id}&transactionId=traced-1`);
  await waitText(ui.page.getByTestId('panel-traceparent'), traceparent);
  await waitText(ui.page.getByTestId('panel-tracestate'), 'congo=t61rcWkgMzE');
  await expectStatus(api, (h) => broker.deleteQueue(h, traced), 200);

  // Delete a message.
  const victim = ids.p1tx[4]!;
  await open(ui.page, url(), `/messages?partitionId=${ids.p1}&transactionId=${victim}`);
  await waitText(ui.page.getByTestId('panel-tx'), victim);
  await ui.page.getByTestId('panel-delete').click();
  await confirm(ui.page);
  await eventually(async () => (await queenStatus(api, (h) => broker.getMessage(h, ids.p1, victim))) === '404', 'message deleted');
  noProblems();
});

test('Dead letter: totals, filters, requeue, purge, bulk requeue', async () => {
  const status = await get(broker.getStatus);
  const all = await get(broker.listDlq);
  await open(ui.page, url(), '/dlq');
  await waitText(ui.page.getByTestId('dlq-total'), count(status.deadLetterQueue.totalMessages));
  await waitText(ui.page.getByTestId('dlq-matching'), count(all.total));
  await waitCount(ui.page.getByTestId('dlq-row'), all.messages.length);
  await screenshot(ui.page, 'dlq');

  // Requeue the "timeout" entry: its DLQ entry goes, a new message arrives in the same partition.
  const timeout = all.messages.find((m: any) => m.errorMessage === 'timeout');
  await ui.page.getByTestId('dlq-row').filter({ hasText: 'timeout' }).getByTestId('dlq-retry').click();
  await confirm(ui.page);
  await eventually(async () => !(await get(broker.listDlq)).messages.some((m: any) => m.transactionId === timeout!.transactionId), 'requeued');
  await waitCount(ui.page.getByTestId('dlq-row'), all.messages.length - 1);
  // Purge the "card declined" entry: the message is deleted.
  const declined = all.messages.find((m: any) => m.errorMessage === 'card declined');
  await ui.page.getByTestId('dlq-row').filter({ hasText: 'card declined' }).getByTestId('dlq-purge').click();
  await confirm(ui.page);
  await eventually(async () => (await queenStatus(api, (h) => broker.getMessage(h, declined!.partitionId, declined!.transactionId))) === '404', 'purged');
  // The queue filter goes to the server (and the URL); bulk requeue empties it.
  await open(ui.page, url(), `/dlq?queue=${ORDERS}`);
  const filtered = await get((h) => broker.listDlq(h, { queue: ORDERS }));
  assert.ok(filtered.total > 0);
  await waitText(ui.page.getByTestId('dlq-matching'), count(filtered.total));
  await ui.page.getByTestId('dlq-bulk-retry').click();
  await confirm(ui.page);
  await eventually(async () => (await get((h) => broker.listDlq(h, { queue: ORDERS }))).total === 0, 'bulk requeue');
  await ui.page.getByText('Dead letter queue is empty').waitFor();
  noProblems();
});

test('Consumers: groups with lag, lagging partitions, drill-down, move to now, seek, delete', async () => {
  const groups = await get(broker.listConsumerGroups);
  await open(ui.page, url(), '/consumers?minLag=0');
  const rows = ui.page.locator('[data-testid=group-table] [data-testid=row]');
  await waitCount(rows, groups.length);
  const billing = groups.find((g: any) => g.name === 'billing');
  const row = rows.filter({ hasText: 'billing' });
  await waitText(row.locator('[data-col=partitions]'), count(billing!.members));
  await waitText(row.locator('[data-col=offset]'), count(billing!.totalLag));
  const lagging = await get((h) => broker.listLaggingConsumerGroups(h, { minLagSeconds: 0 }));
  await waitText(ui.page.getByTestId('lagging-count'), count(lagging.length));
  await ui.page.getByTestId('toggle-lagging').click();
  await waitCount(ui.page.getByTestId('lagging-row'), lagging.length);
  await screenshot(ui.page, 'consumers');

  // Drill-down: one line per partition the group touched.
  await row.getByTestId('view-group').click();
  const detail = await get((h) => broker.getConsumerGroup(h, 'billing'));
  await waitCount(ui.page.getByTestId('group-partition'), detail[ORDERS]!.partitions.length);
  await ui.page.getByRole('button', { name: 'Close' }).click();

  // Move to now: the group's lag on the queue drops to zero.
  await row.getByTestId('group-actions').click(); // the row's actions are collapsed behind one button
  await ui.page.getByRole('menu').getByTestId('move-to-now').click();
  await confirm(ui.page);
  await eventually(async () => (await get((h) => broker.getConsumerGroup(h, 'billing')))[ORDERS]!.partitions.every((p: any) => p.offsetLag === 0), 'billing at the end');
  // Seek to an hour ago: everything pushed since is delivered again.
  await row.getByTestId('group-actions').click();
  await ui.page.getByRole('menu').getByTestId('seek-group').click();
  await confirm(ui.page);
  await eventually(async () => (await get((h) => broker.getConsumerGroup(h, 'billing')))[ORDERS]!.partitions.some((p: any) => p.offsetLag > 0), 'billing replays');
  // Skip one partition to the end from the lagging panel.
  await ui.page.getByTestId('lag-threshold').selectOption('0');
  const billingP1 = ui.page.getByTestId('lagging-row').filter({ hasText: 'billing' }).filter({ hasText: 'p1' });
  await billingP1.getByTestId('skip-to-end').click();
  await confirm(ui.page);
  await eventually(async () => (await get((h) => broker.getConsumerGroup(h, 'billing')))[ORDERS]!.partitions.find((p: any) => p.partition === 'p1')!.offsetLag === 0, 'p1 skipped');
  // Re-time the group's subscription record (one written two days ago, as `subscriptionFrom` would) to now.
  await setup.db.query(`INSERT INTO queen.subscriptions (queue_id, consumer_group, partition_name, mode, subscribed_from)
    SELECT id, 'billing', '', 'timestamp', now() - interval '2 days' FROM queen.queues WHERE name = $1`, [ORDERS]);
  const billingNow = async (): Promise<any> => (await get(broker.listConsumerGroups)).find((g: any) => g.name === 'billing');
  assert.ok(Date.now() - new Date((await billingNow()).subscriptionTimestamp).getTime() > 86_400_000);
  await row.getByTestId('group-actions').click();
  await ui.page.getByRole('menu').getByTestId('subscription').click();
  await confirm(ui.page);
  await ui.page.getByTestId('toast').filter({ hasText: 'Subscription re-timed (1 record(s))' }).waitFor();
  await eventually(async () => Date.now() - new Date((await billingNow()).subscriptionTimestamp).getTime() < 60_000, 'subscription re-timed');
  // Delete the group on the queue.
  await row.getByTestId('group-actions').click();
  await ui.page.getByRole('menu').getByTestId('delete-group').click();
  await confirm(ui.page);
  await eventually(async () => !(await get(broker.listConsumerGroups)).some((g: any) => g.name === 'billing'), 'billing deleted');
  await waitCount(rows, groups.length - 1);
  noProblems();
});

test('Traces: names from the API, events of a name, the link to the message', async () => {
  const names = await get(broker.listTraceNames);
  const events = await get((h) => broker.listTracesByName(h, 'order-flow'));
  await open(ui.page, url(), '/traces');
  await waitCount(ui.page.getByTestId('trace-names').locator('button'), names.trace_names.length);
  await ui.page.getByTestId('trace-names').getByRole('button', { name: /order-flow/ }).click();
  await waitText(ui.page.getByTestId('trace-total'), count(events.total));
  await waitCount(ui.page.getByTestId('trace-row'), events.traces.length);
  await screenshot(ui.page, 'traces');
  await ui.page.getByTestId('trace-row').first().click();
  await ui.page.getByTestId('view-message').click();
  await ui.page.waitForURL(/\/messages\?/);
  await waitText(ui.page.getByTestId('panel-tx'), events.traces[0]!.transaction_id);
  await ui.page.getByTestId('panel-traces').getByText('charged').waitFor();
  noProblems();
});

test('Analytics, Queue Operations and System show the API figures', async () => {
  const status = await get(broker.getStatus);
  await open(ui.page, url(), '/analytics');
  await waitText(ui.page.getByTestId('an-counts').locator('dd').first(), count(status.messages.total));
  await waitText(ui.page.getByTestId('an-leases').locator('dd').first(), count(status.leases.active));
  await waitText(ui.page.getByTestId('an-dlq').locator('dd').first(), count(status.deadLetterQueue.totalMessages));
  const queues = (await get((h) => broker.listQueueStatus(h, { limit: 500 }))).queues;
  await waitCount(ui.page.getByTestId('volume-row'), Math.min(8, queues.length));
  await ui.page.locator('[data-testid=flow-chart] canvas').waitFor();
  await screenshot(ui.page, 'analytics');

  await nav(ui.page, 'Queue Operations');
  const system = await get(broker.getSystemMetrics);
  await waitCount(ui.page.getByTestId('worker-row'), system.replicas.length);
  await ui.page.locator('[data-testid=ops-throughput] canvas').waitFor();
  await screenshot(ui.page, 'operations');

  await nav(ui.page, 'System');
  await waitText(ui.page.getByTestId('sys-replicas'), `${system.aliveCount} running`);
  const shared = await get(broker.getSharedState);
  await waitCount(ui.page.getByTestId('process-row'), shared.processes.length);
  await ui.page.getByTestId('stats-refresh').click();
  await ui.page.getByTestId('toast').filter({ hasText: 'Statistics refreshed' }).waitFor();
  await screenshot(ui.page, 'system');
  await ui.page.getByTestId('tab-postgres').click();
  const pg = await get(broker.getPostgresStats);
  await ui.page.getByTestId('pg-cache').getByText(`${pg.database.name} · PostgreSQL ${pg.database.serverVersion}`, { exact: false }).waitFor();
  assert.match((await ui.page.getByTestId('pg-hit-ratio').textContent()) ?? '', /^\d{1,3}\.\d%$/);
  await screenshot(ui.page, 'system-postgres');
  noProblems();
});

test('Maintenance toggles switch push and pop maintenance, with banners', async () => {
  await open(ui.page, url(), '/');
  await waitText(ui.page.getByTestId('toggle-push-maintenance'), 'Push maintenance off');
  await ui.page.getByTestId('toggle-push-maintenance').click();
  await confirm(ui.page);
  await eventually(async () => (await get(broker.getMaintenance)).maintenanceMode === true, 'push maintenance on');
  await ui.page.getByTestId('banner-push-maintenance').waitFor();
  await ui.page.getByTestId('toggle-pop-maintenance').click();
  await confirm(ui.page);
  await eventually(async () => (await get(broker.getPopMaintenance)).popMaintenanceMode === true, 'pop maintenance on');
  await ui.page.getByTestId('banner-pop-maintenance').waitFor();
  await screenshot(ui.page, 'maintenance');
  await ui.page.getByTestId('toggle-push-maintenance').click();
  await confirm(ui.page);
  await ui.page.getByTestId('toggle-pop-maintenance').click();
  await confirm(ui.page);
  await eventually(async () => {
    const m = await get(broker.getMaintenance);
    return m.maintenanceMode === false && m.popMaintenanceMode === false;
  }, 'maintenance off');
  await ui.page.getByTestId('banner-push-maintenance').waitFor({ state: 'detached' });
  noProblems();
});

test('Deep links, history fallback, back/forward, jump search; the API keeps its JSON 404', async () => {
  const res = await ui.page.goto(`${url()}/queues/${ORDERS}?range=6h`);
  assert.equal(res?.status(), 200);
  assert.match(res?.headers()['content-type'] ?? '', /^text\/html/);
  await waitText(ui.page.getByTestId('queue-name'), ORDERS);
  assert.equal(await ui.page.getByRole('button', { name: '6h' }).getAttribute('aria-pressed'), 'true');
  await nav(ui.page, 'Consumers');
  await nav(ui.page, 'Dead letter');
  await ui.page.goBack();
  await waitText(ui.page.getByTestId('page-title'), 'Consumers');
  await ui.page.goBack();
  await waitText(ui.page.getByTestId('queue-name'), ORDERS);
  await ui.page.goForward();
  await waitText(ui.page.getByTestId('page-title'), 'Consumers');
  // Jump search: Ctrl+K, type, Enter.
  await ui.page.keyboard.press('Control+k');
  await ui.page.getByTestId('jump-search').fill('events');
  await ui.page.locator('.jump-list li').first().waitFor();
  await ui.page.keyboard.press('Enter');
  await ui.page.waitForURL(`${url()}/queues/${EVENTS}`);
  await waitText(ui.page.getByTestId('queue-name'), EVENTS);
  // An unknown app path is the app's not-found page; an unknown API path stays JSON.
  await open(ui.page, url(), '/no/such/page');
  await ui.page.getByText('No page at /no/such/page').waitFor();
  // A path under the API's prefix (beside the status route) that no route of the table matches.
  const unknown = new URL('no-such-route', `http://broker${broker.routes.getStatus.path}`).pathname;
  assert.equal(broker.routeFor('GET', unknown), undefined);
  const missing = await fetch(`${url()}${unknown}`);
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { error: `Not Found: no route for GET ${unknown}` });
  noProblems();
});

test('Queue detail opens queues whose names hold : = / ? # & + , ; @ $', async () => {
  const name = 'dash.odd:a=b/c?d#e&f+g,h;i@j$k';
  await expectStatus(api, (h) => broker.configure(h, { queue: name }));
  await open(ui.page, url(), `/queues/${encodeURIComponent(name)}`);
  await waitText(ui.page.getByTestId('queue-name'), name);
  await ui.page.getByText('No page at').waitFor({ state: 'detached', timeout: 1000 }).catch(() => undefined);
  assert.equal(await ui.page.getByText('No page at').count(), 0);
  noProblems();
});
