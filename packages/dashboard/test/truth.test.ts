/**
 * The dashboard tells the truth (docs/dashboard.md "Colour" and "Figures"), on a realistic installation:
 * several queues with partitions, two consumer groups and queue mode, a DLQ, a toy queue with 8 pending, a
 * second running broker and a third that was stopped. A stopped broker is shown as stopped, never counted as
 * running; colour is severity at the documented thresholds (never "the deepest is red"); figures on one screen
 * agree; the message list previews payloads with a size cap. Every view is checked at 1280x800 (a laptop),
 * 1440x900 and 1920x1080: no sideways scrolling, tables as wide as their card; the screenshots at 1440 and 1920
 * are the documentation's (docs/images/ under `npm run docs:images`), those at 1280 in packages/dashboard/screenshots/.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as broker from '@queen/client/api';
import { startBroker, useBroker, type BrokerProcess } from '../../server/test/support/harness.js';
import { brokerApi, expectStatus, found } from '../../server/test/support/sdk-api.js';
import fs from 'node:fs';
import path from 'node:path';
import { docImagePath, SCREENSHOT_DIR, useBrowser } from './support/browser.js';
import { count, open, waitCount, waitText } from './support/dashboard.js';
import { seedInstallation, QUEUES } from './support/seed.js';

const SETTINGS = { STATS_INTERVAL_MS: '500', QUEEN_HEARTBEAT_INTERVAL_MS: '1000' };
let second: BrokerProcess | undefined;

const setup = useBroker({ ...SETTINGS, SERVER_ID: 'broker-a' }, async ({ db }) => {
  // A broker that ran and stopped: its samples stay in the range, its process is gone.
  const stopped = await startBroker(db, { ...SETTINGS, SERVER_ID: 'broker-old' });
  await refreshStats(brokerApi(stopped.url));
  await stopped.stop();
  second = await startBroker(db, { ...SETTINGS, SERVER_ID: 'broker-b' });
  const other = brokerApi(second.url);
  await seedInstallation(api, other);
  await refreshStats(other);
  await refreshStats(api);
});
const api = brokerApi(() => setup.broker.url);

async function refreshStats(http: broker.ApiRequester): Promise<void> {
  await expectStatus(http, broker.refreshStats);
}

const ui = useBrowser();
const url = (): string => setup.broker.url;
/** One read of the API layer, answered with 200. */
const get = <T>(call: (http: broker.ApiRequester) => Promise<T>): Promise<T> => expectStatus(api, call);
const text = async (testid: string): Promise<string> => ((await ui.page.getByTestId(testid).first().textContent()) ?? '').trim();

test.after(async () => {
  await second?.stop();
});

test('item 5: a stopped broker is shown as stopped and not counted as running (Dashboard, Operations, System, Analytics)', async () => {
  const sm = await get(broker.getSystemMetrics);
  assert.deepEqual(sm.replicas.map((r: any) => [r.workerId, r.alive]).sort(), [['broker-a', true], ['broker-b', true], ['broker-old', false]]);
  await open(ui.page, url(), '/');
  await ui.page.getByTestId('metric-event-loop').waitFor();
  assert.match(await text('metric-event-loop'), /2 running · 1 stopped/);
  await open(ui.page, url(), '/operations');
  await waitCount(ui.page.getByTestId('worker-row'), 3);
  await waitText(ui.page.locator('[data-testid=worker-row][data-alive=false] [data-testid=worker-state]'), 'stopped');
  assert.match(await ui.page.locator('[data-testid=worker-row][data-alive=false]').textContent() ?? '', /broker-old/);
  await waitText(ui.page.getByTestId('workers-count'), '2 running · 1 stopped');
  await open(ui.page, url(), '/system');
  await waitText(ui.page.getByTestId('sys-replicas'), '2 running · 1 stopped');
  // The process list (shared-state) knows only the running ones.
  await waitCount(ui.page.getByTestId('process-row'), 2);
  await open(ui.page, url(), '/analytics');
  await ui.page.getByTestId('an-workers').waitFor();
  assert.match(await text('an-workers'), /2 running · 1 stopped/);
});

test('item 6: colour is severity at fixed thresholds: the deepest queue with 8 pending is not red, a toy workload is not "falling behind"', async () => {
  const queues = (await get(broker.listQueues)).queues;
  const deepest = [...queues].sort((a, b) => b.messages.pending - a.messages.pending)[0]!;
  assert.ok(deepest.messages.pending < 1000, `the seed keeps every queue below the amber threshold (${deepest.messages.pending})`);
  await open(ui.page, url(), '/');
  await waitText(ui.page.getByTestId('top-queue-pending'), count(deepest.messages.pending));
  const tones = await ui.page.getByTestId('top-queue-bar').evaluateAll((els) => els.map((e) => e.getAttribute('data-tone')));
  assert.ok(tones.length >= 3);
  assert.deepEqual([...new Set(tones)], ['ok'], 'no bar is amber or red below 1,000 pending and 60 s lag');
  await open(ui.page, url(), '/queues');
  const rows = ui.page.locator('[data-testid=queue-table] [data-testid=row]');
  await waitCount(rows, queues.length);
  const toy = rows.filter({ hasText: QUEUES.emails });
  assert.equal(await toy.evaluate((e) => e.className.includes('sev-bad') || e.className.includes('sev-warn')), false, 'a queue with 8 pushes and no pops yet is not falling behind');
});

test('item 7: figures on one screen agree (throughput now vs peak, net flow vs pending, errors vs DLQ, the pool figure says what it is)', async () => {
  const overview = await get(broker.getOverview);
  const status = await get(broker.getStatus);
  await open(ui.page, url(), '/');
  await ui.page.getByTestId('metric-throughput').waitFor();
  const row = await text('metric-throughput');
  const peak = /peak ([\d.,]+) \/s/.exec(row);
  if (peak !== null) assert.ok(Number((await text('now-throughput')).replace(/,/g, '')) <= Number(peak[1]!.replace(/,/g, '')), row);
  const flow = await text('metric-pending-delta');
  assert.match(flow, new RegExp(`${count(overview.messages.pending)} pending now`));
  // Net flow is the change of the pending samples over the range (an ack counts once per group: never pushed − acked).
  const samples = status.pendingHistory;
  if (samples.length >= 2) {
    const change = samples[samples.length - 1]!.pending - samples[0]!.pending;
    assert.equal(await text('now-pending-delta'), `${change > 0 ? '+' : ''}${count(change)}`, 'the figure is the change its context states');
    assert.match(flow, new RegExp(`${count(samples[0]!.pending)} pending at \\d\\d:\\d\\d`));
  } else {
    assert.equal(await text('now-pending-delta'), '–', 'one sample is no change yet');
  }
  const errors = await text('metric-errors');
  assert.match(errors, new RegExp(`${count(status.deadLetterQueue.totalMessages)} in the DLQ now`));
  assert.match(errors, new RegExp(`failed acks ${count(status.errors.ackFailed)}`));
  assert.match(await text('now-db-pool'), /^(\d+ \/ \d+|–)$/, 'whole connections (or – before a complete minute), not "0.00 / 2.83"');
  assert.match(await text('metric-db-pool'), /in use \/ open/);
  // The queue page: the banner's DLQ count is the DLQ count beside it.
  const dlqQueue = found(await get((h) => broker.getQueue(h, QUEUES.payments)));
  await open(ui.page, url(), `/queues/${QUEUES.payments}`);
  await waitText(ui.page.getByTestId('q-dlq'), count(dlqQueue.totals.deadLetter));
  await waitText(ui.page.getByTestId('dlq-badge'), count(dlqQueue.totals.deadLetter));
  assert.match((await ui.page.locator('.banner.bad').first().textContent()) ?? '', new RegExp(`^${count(dlqQueue.totals.deadLetter)} message\\(s\\) in the dead-letter queue now`));
});

test('item 9: the message list previews each payload, capped at 160 characters with the full size', async () => {
  const listed = await get((h) => broker.listMessages(h, { queue: QUEUES.audit, limit: 100, preview: 1000 }));
  await open(ui.page, url(), `/messages?queue=${QUEUES.audit}`);
  const cells = ui.page.getByTestId('payload-preview');
  await waitCount(cells, listed.messages.length);
  const texts = await cells.allTextContents();
  const large = texts.filter((t) => t.includes('svc-export'));
  assert.equal(large.length, 1);
  const cut = /^(.*)… \((.+)\)$/.exec(large[0]!);
  assert.ok(cut !== null, large[0]);
  assert.equal(cut[1]!.length, 160);
  assert.match(cut[2]!, /^5\.\d KB$/);
  const small = listed.messages.find((m: any) => !m.payloadTruncated);
  assert.ok(small !== undefined && typeof small.payloadPreview === 'string' && texts.includes(small.payloadPreview), 'a short payload is shown whole, as sent');
  assert.equal(texts.filter((t) => t.includes('…')).length, 1);
});

/** Every view, with what to wait for before the screenshot. */
const VIEWS: { name: string; path: string; ready: string }[] = [
  { name: 'dashboard', path: '/', ready: '[data-testid=metric-table]' },
  { name: 'operations', path: '/operations', ready: '[data-testid=ops-throughput] canvas' },
  { name: 'queues', path: '/queues', ready: '[data-testid=queue-table] [data-testid=row]' },
  { name: 'queue-detail', path: `/queues/${QUEUES.orders}`, ready: '[data-testid=partition-row]' },
  { name: 'consumers', path: '/consumers', ready: '[data-testid=view-group]' },
  { name: 'messages', path: `/messages?queue=${QUEUES.orders}&limit=50`, ready: '[data-testid=payload-preview]' },
  { name: 'traces', path: '/traces?name=order-flow', ready: '[data-testid=trace-total]' },
  { name: 'analytics', path: '/analytics', ready: '[data-testid=an-workers] dd' },
  { name: 'dlq', path: '/dlq', ready: '[data-testid=dlq-total]' },
  { name: 'system', path: '/system', ready: '[data-testid=process-row]' },
  { name: 'postgres', path: '/system?tab=postgres', ready: '[data-testid=pg-hit-ratio]' },
];

/** What sticks out: sideways page scrolling, and cards or table bodies whose content is wider than they are. */
async function overflow(page: import('playwright-core').Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth) out.push(`page scrolls sideways (${doc.scrollWidth} > ${doc.clientWidth})`);
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('.card, .vbody, .vtable'))) {
      if (el.scrollWidth > el.clientWidth + 1) out.push(`${el.className} "${el.querySelector('.card-head')?.textContent?.slice(0, 40) ?? el.textContent?.slice(0, 40)}" clips ${el.scrollWidth - el.clientWidth}px`);
    }
    return out;
  });
}

/** Where each size's screenshots go: the documentation's at 1440 and 1920, the laptop's beside the other test screenshots. */
const SHOTS: Record<number, (view: string) => string> = {
  1280: (view) => path.join(SCREENSHOT_DIR, `${view}-1280.png`),
  1440: (view) => docImagePath(`${view}.png`),
  1920: (view) => docImagePath(`${view}-1920.png`),
};

for (const size of [{ width: 1280, height: 800 }, { width: 1440, height: 900 }, { width: 1920, height: 1080 }]) {
  test(`items 8 and 10: every view at ${size.width}x${size.height}: nothing scrolls sideways or clips; a screenshot of each`, async () => {
    const context = await ui.browser.newContext({ viewport: size });
    const page = await context.newPage();
    try {
      for (const view of VIEWS) {
        await page.goto(`${url()}${view.path}`);
        await page.locator(view.ready).first().waitFor({ timeout: 15_000 });
        await page.waitForTimeout(400); // charts size themselves to their card
        assert.deepEqual(await overflow(page), [], `${view.name} at ${size.width}x${size.height}`);
        if (view.name === 'queues') {
          // Every row's Delete button is whole and inside the table.
          const table = await page.getByTestId('queue-table').boundingBox();
          const button = await page.getByTestId('delete-queue').first().boundingBox();
          assert.ok(table !== null && button !== null && button.x + button.width <= table.x + table.width && button.width >= 40, JSON.stringify({ table, button }));
        }
        if (view.name === 'consumers') {
          // The groups table is as tall as its rows (up to its cap), not a short box with its own scrollbars.
          const box = await page.getByTestId('group-table').evaluate((el) => { const body = el.querySelector<HTMLElement>('.vbody')!; return { client: body.clientHeight, scroll: body.scrollHeight }; });
          assert.ok(box.scroll <= box.client + 1, JSON.stringify(box));
        }
        fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
        await page.screenshot({ path: SHOTS[size.width]!(view.name), fullPage: true });
      }
    } finally {
      await context.close();
    }
  });
}
