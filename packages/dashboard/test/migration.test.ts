/**
 * The Migration view in Chromium against a real broker on a PostgreSQL with wal_level=logical: the connection
 * test names the target's version, start moves the deployment (the status reaches `complete`), and the
 * validation table lists the moved tables.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MovePair } from '../../server/test/support/move-pair.js';
import { screenshot, useBrowser } from './support/browser.js';
import { nav, open, waitText } from './support/dashboard.js';

const move = new MovePair();
const ui = useBrowser();

test('Migration: test the target, start, watch it complete, compare row counts', async () => {
  const page = ui.page;
  await open(page, move.broker.url, '/');
  await nav(page, 'Migration');
  await waitText(page.getByTestId('mig-status'), 'idle');
  await page.getByTestId('mig-host').fill('127.0.0.1');
  await page.getByTestId('mig-port').fill(String(move.target.port));
  await page.getByTestId('mig-database').fill('postgres');
  await page.getByTestId('mig-user').fill('postgres');
  await page.getByTestId('mig-password').fill('postgres');
  await page.getByTestId('mig-test').click();
  await page.getByTestId('mig-tested').waitFor();
  assert.match(await page.getByTestId('mig-tested').textContent() ?? '', /PostgreSQL 15\.\d+.*Emptyyes.*Online possibleyes/);
  await page.getByTestId('mig-start').click();
  await waitText(page.getByTestId('mig-status'), 'complete', 60_000);
  await page.getByTestId('mig-validate').click();
  await page.getByTestId('mig-validation').waitFor();
  assert.match(await page.getByTestId('mig-validation').textContent() ?? '', /queen\.segments/);
  await screenshot(page, 'migration');
  assert.ok((await move.target.sql(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'queen:%'`)).rows[0].n > 0, 'the broker works on the target');
});
