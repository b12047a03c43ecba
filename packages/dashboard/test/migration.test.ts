/**
 * The Migration view in Chromium against a real broker on a PostgreSQL with wal_level=logical: the connection
 * test names the target's version, start moves the deployment (the status reaches `complete`), and the
 * validation table lists the moved tables.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startBroker, type BrokerProcess } from '../../server/test/support/harness.js';
import { bufferDir } from '../../server/test/support/buffering.js';
import { startSystemPostgres, type SystemPostgres } from '../../server/test/support/system-postgres.js';
import { screenshot, useBrowser } from './support/browser.js';
import { nav, open, waitText } from './support/dashboard.js';

let source: SystemPostgres;
let target: SystemPostgres;
let broker: BrokerProcess;
const ui = useBrowser();

before(async () => {
  [source, target] = await Promise.all([startSystemPostgres({ wal_level: 'logical' }), startSystemPostgres()]);
  broker = await startBroker({
    name: 'postgres', env: { PG_HOST: '127.0.0.1', PG_PORT: String(source.port), PG_USER: 'postgres', PG_PASSWORD: 'postgres', PG_DB: 'postgres' },
    query: (text, values) => source.sql(text, values), close: async () => undefined,
  }, { FILE_BUFFER_DIR: bufferDir() });
});

after(async () => {
  await broker?.stop();
  await source?.stop();
  await target?.stop();
});

test('Migration: test the target, start, watch it complete, compare row counts', async () => {
  const page = ui.page;
  await open(page, broker.url, '/');
  await nav(page, 'Migration');
  await waitText(page.getByTestId('mig-status'), 'idle');
  await page.getByTestId('mig-host').fill('127.0.0.1');
  await page.getByTestId('mig-port').fill(String(target.port));
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
  assert.ok((await target.sql(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'queen:%'`)).rows[0].n > 0, 'the broker works on the target');
});
