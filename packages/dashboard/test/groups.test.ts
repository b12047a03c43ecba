/**
 * Two consumer groups at different speeds, walked through the views at 1280x800 and 1440x900 (docs/dashboard.md
 * "Several consumer groups"): a ledger queue with 15 messages over three partitions, `billing` has consumed all of
 * them, `audit` 2 of partition P1. No figure may contradict that: the queue page shows each group against its own
 * position (billing 15 done, audit 13 to go) and the queue's Pending 13 / Completed-by-every-group 2; the
 * consumers page counts audit's 13 unread messages, the two partitions it never touched included; the home page's
 * Net flow is the change of pending (+13, "filling"), although pushes minus acks (15 − 17) would say "draining".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as broker from '@queen/client/api';
import { useBroker } from '../../server/test/support/harness.js';
import { brokerApi, expectStatus, found } from '../../server/test/support/sdk-api.js';
import { useBrowser } from './support/browser.js';
import { count, waitText } from './support/dashboard.js';

const QUEUE = 'finance.ledger';
const PARTITIONS = ['P1', 'P2', 'P3'];

let startedAt = 0;
const setup = useBroker({ STATS_INTERVAL_MS: '3600000' }, async ({ db }) => {
  startedAt = Date.now();
  const http = brokerApi(() => setup.broker.url);
  // Before the queue existed, nothing was pending: the sample a broker would have taken ten minutes ago.
  await db.query("INSERT INTO queen.pending_history (minute, pending, total) VALUES (date_trunc('minute', now()) - interval '10 minutes', 0, 0)");
  for (const p of PARTITIONS) {
    await expectStatus(http, (h) => broker.push(h, { items: [1, 2, 3, 4, 5].map((i) => ({ queue: QUEUE, partition: p, payload: { entry: `${p}-${i}` } })) }), 201);
  }
  for (const p of PARTITIONS) await consume(http, p, 'billing', 5);
  await consume(http, 'P1', 'audit', 2);
  await expectStatus(http, broker.refreshStats); // flushes the counters and samples pending for this minute
});

async function consume(http: broker.ApiRequester, partition: string, group: string, batch: number): Promise<void> {
  const popped = await broker.popPartition(http, QUEUE, partition, { batch, consumerGroup: group, autoAck: true });
  assert.equal(popped?.messages.length, batch);
}

const ui = useBrowser();

for (const size of [{ width: 1280, height: 800 }, { width: 1440, height: 900 }]) {
  test(`two groups at different speeds, at ${size.width}x${size.height}: every figure agrees with what was pushed and consumed`, async () => {
    const http = brokerApi(setup.broker.url);
    const status = found(await expectStatus(http, (h) => broker.getQueueStatus(h, QUEUE)));
    assert.deepEqual(status.consumerGroups.map((g) => [g.name, g.completed, g.pending]), [['audit', 2, 13], ['billing', 15, 0]]);
    const context = await ui.browser.newContext({ viewport: size });
    const page = await context.newPage();
    const text = async (testid: string): Promise<string> => ((await page.getByTestId(testid).first().textContent()) ?? '').trim();
    try {
      await page.goto(`${setup.broker.url}/queues/${QUEUE}`);
      await waitText(page.getByTestId('q-pending'), '13');
      assert.equal(await text('q-completed'), '2');
      assert.match((await page.locator('.stat', { has: page.getByTestId('q-completed') }).textContent()) ?? '', /Completed by every group/);
      const row = (group: string) => page.locator(`[data-testid=queue-group][data-group=${group}]`);
      await row('audit').waitFor();
      const cells = async (group: string) => Promise.all(['group-completed', 'group-processing', 'group-pending'].map(async (id) => ((await row(group).getByTestId(id).textContent()) ?? '').trim()));
      assert.deepEqual(await cells('billing'), ['15', '0', '0']);
      assert.deepEqual(await cells('audit'), ['2', '0', '13']);
      assert.match((await row('audit').textContent()) ?? '', /1 of 3/, 'audit has read one of the three partitions');
      // Pushes and pops in the range count the minute still open: 15 pushed, 17 popped (billing 15 + audit 2).
      await waitText(page.getByTestId('qnow-pushed-popped'), '15 / 17');
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), true, 'no sideways scroll');

      await page.goto(`${setup.broker.url}/consumers?search=audit`);
      const audit = page.locator('[data-testid=group-table] [data-testid=row]', { hasText: 'audit' });
      await audit.waitFor();
      assert.equal(((await audit.locator('[data-col=offset]').textContent()) ?? '').trim(), '13', 'the unread messages of the partitions audit never touched count');
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), true, 'no sideways scroll');

      const st = await expectStatus(http, broker.getStatus);
      const pushed = st.throughput.reduce((a, p) => a + p.ingested, 0);
      const acked = st.throughput.reduce((a, p) => a + p.processed, 0);
      assert.ok(pushed - acked < 0, `acks count once per group: pushed ${pushed} − acked ${acked} is negative`);
      await page.goto(`${setup.broker.url}/`);
      await waitText(page.getByTestId('now-pending-delta'), '+13');
      assert.match(await text('metric-pending-delta'), new RegExp(`filling: 0 pending at \\d\\d:\\d\\d → ${count(13)} pending now`));
      assert.equal(await text('count-pending'), '13');
      // The 15 pushes are never hidden behind "idle": a count while their minute is open, a rate after it.
      const rate = await text('metric-throughput');
      assert.ok(/15 pushed in the current minute/.test(rate) || /peak /.test(rate), rate);
      await page.screenshot({ path: new URL(`../screenshots/groups-${size.width}.png`, import.meta.url).pathname, fullPage: true });

      // The hour before this broker started is a gap, not 60 minutes of zero traffic: the charts hold only the
      // complete minutes since it started (none or one or two of them here).
      const sinceStart = Math.ceil((Date.now() - startedAt) / 60_000) + 1;
      for (const [view, chart] of [['/operations', 'ops-throughput'], ['/analytics', 'flow-chart']] as const) {
        await page.goto(`${setup.broker.url}${view}`);
        await page.getByTestId(chart).waitFor();
        await page.waitForFunction((id) => document.querySelector(`[data-testid=${id}]`)?.closest('.card')?.querySelector('.skeleton') === null, chart);
        const points = Number(await page.getByTestId(chart).getAttribute('data-points'));
        assert.ok(points <= sinceStart, `${view}: ${points} points for a broker up ${sinceStart} minute(s)`);
        assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), true, `${view}: no sideways scroll`);
      }
    } finally {
      await context.close();
    }
  });
}
